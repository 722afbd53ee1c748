import {
  Backend,
  disaggregatedGraphSpec,
  DisaggregatedDeploymentOptions,
  Fabric,
  KubeObject,
  renderGraph,
  renderModelCachePvc,
  Router,
} from 'dynamo-constructs';

/**
 * The fleet the benchmarks synthesize: N copies of guide 2's disaggregated
 * deployment, each with a model cache, a KV router and an RDMA fabric, each in
 * its own namespace.
 */

export const MODEL_CACHE = { size: '100Gi', storageClassName: 'nfs' } as const;

export function modelOptions(): Omit<DisaggregatedDeploymentOptions, 'modelCache'> {
  return {
    model: 'meta-llama/Llama-3.3-70B-Instruct',
    backend: Backend.vllm({ cuda: 13 }),
    hfTokenSecret: 'hf-token-secret',
    fabric: Fabric.rdma(),
    frontend: { router: Router.kv({ overlapScoreWeight: 1.5, temperature: 0.3 }) },
    prefill: { replicas: 2, tensorParallelSize: 2, kvCacheDtype: 'fp8', maxNumSeqs: 1 },
    decode: { replicas: 2, tensorParallelSize: 4, kvCacheDtype: 'fp8', maxNumSeqs: 1024 },
  };
}

export const namespaceOf = (i: number) => `team-${i}`;
export const GRAPH_NAME = 'llama-70b';
export const CLAIM_NAME = 'model-cache';

/** The final objects of model `i`, as the library renders them (for the floors, computed before timing). */
export function finalObjects(i: number): KubeObject[] {
  const namespace = namespaceOf(i);
  const pvc = renderModelCachePvc(CLAIM_NAME, namespace, MODEL_CACHE).object;
  const graph = renderGraph(
    disaggregatedGraphSpec(GRAPH_NAME, namespace, { ...modelOptions(), modelCache: { claimName: CLAIM_NAME, mountPath: '/opt/models' } }),
  ).graph;
  return [pvc, graph];
}

/** Peak resident set size of this process, in MiB. */
export function peakRssMiB(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

/** JSON with sorted keys and no undefined values: equal objects give equal text. */
export function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(
        Object.keys(v)
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value));
}
