/**
 * The deployments the conformance suite renders for each release line: every
 * example, a generated matrix that reaches every value an option can put on a
 * command line (backends x topologies x routers x fabrics x worker shapes x
 * planner settings), and a seeded sample of the fuzz tests' sensible
 * deployments.
 */
import * as fc from 'fast-check';
import { App } from 'cdk8s';
import {
  aggregatedGraphSpec,
  Backend,
  BackendName,
  disaggregatedGraphSpec,
  DisaggregatedDeploymentOptions,
  Fabric,
  KubeObject,
  LoadPredictor,
  PlannerOptions,
  releaseOf,
  renderGraph,
  renderSlaPlanned,
  Router,
  WorkerOptions,
} from '../../src/core/internal';
import { DELIVERY, EXAMPLES } from '../../examples';
import { sensibleAggregated, sensibleDisaggregated } from '../support/sensible';

/** One deployment's objects, named for messages. */
export interface Rendered {
  readonly source: string;
  readonly objects: readonly unknown[];
}

/** Every example, synthesized as `npm run synth` does (in memory). */
export function examples(): Rendered[] {
  const app = new App({ outdir: 'dist' });
  return Object.entries({ ...EXAMPLES, ...DELIVERY }).map(([name, ChartClass]) => ({ source: `examples/${name}`, objects: new ChartClass(app, name).toJson() }));
}

const BACKENDS: Record<BackendName, () => Backend> = { vllm: () => Backend.vllm(), sglang: () => Backend.sglang(), trtllm: () => Backend.trtllm() };

/** Router setups with every option the release's frontend has a flag for. */
function routers(version: string): [string, Router, number][] {
  const flags = releaseOf(version).router.flags;
  const tree = { ...(flags.maxTreeSize ? { maxTreeSize: 4096 } : {}), ...(flags.pruneTargetRatio ? { pruneTargetRatio: 0.5 } : {}) };
  return [
    ['round-robin', Router.roundRobin(), 1],
    ['random', Router.random(), 1],
    ['kv', Router.kv(), 1],
    [
      'kv-tuned',
      Router.kv({ overlapScoreWeight: 1.5, temperature: 0.3, activeDecodeBlocksThreshold: 0.85, activePrefillTokensThreshold: 8192, blockSize: 32 }),
      1,
    ],
    ['kv-no-events', Router.kv({ kvEvents: false, ttlSeconds: 90, ...tree }), 1],
    ['kv-replicas', Router.kv({ replicaSync: true }), 2],
  ];
}

function fabrics(): [string, Fabric][] {
  return [
    ['tcp', Fabric.tcp()],
    ['rdma', Fabric.rdma()],
    ['efa', Fabric.efa()],
  ];
}

/** KV cache dtypes the library takes for `backend` on `version`, or one the engine's default names. */
function kvDtypes(backend: BackendName, version: string): (string | undefined)[] {
  const engine = releaseOf(version).engines[backend];
  return 'kvCacheDtypes' in engine && engine.kvCacheDtypes ? [...engine.kvCacheDtypes] : [undefined, 'fp8'];
}

/** Worker shapes: the defaults, and one with every per-worker engine option set. */
function shapes(backend: BackendName, version: string, blockSize: number | undefined): [string, WorkerOptions][] {
  const dtypes = kvDtypes(backend, version);
  return [
    ['defaults', blockSize !== undefined ? { blockSize } : {}],
    ...dtypes.map((kvCacheDtype, i): [string, WorkerOptions] => [
      `tuned-${kvCacheDtype ?? 'default'}`,
      {
        tensorParallelSize: 2,
        pipelineParallelSize: 2,
        maxNumSeqs: 8 + i,
        maxModelLen: 8192,
        kvCacheDtype,
        blockSize,
        ...(i === 0 ? { nodeCount: 2 } : {}),
        ...(backend === 'trtllm' ? { engineConfig: { kv_cache_config: { free_gpu_memory_fraction: 0.8 } } } : {}),
      },
    ]),
  ];
}

/** Planner settings: every load predictor the release's planner has, with each of its parameters. */
function planners(version: string): [string, PlannerOptions][] {
  const { kinds, log1p } = releaseOf(version).planner.loadPredictors;
  const prometheusEndpoint = 'http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9090';
  const all: [string, PlannerOptions][] = [
    ['planner-defaults', { ttftMs: 200, itlMs: 20, prometheusEndpoint }],
    ['planner-constant', { ttftMs: 150.5, itlMs: 12.5, loadPredictor: LoadPredictor.constant(), minEndpoint: 2, maxGpuBudget: 64 }],
    ['planner-arima', { ttftMs: 300, itlMs: 30, loadPredictor: LoadPredictor.arima(log1p ? { log1p: true } : {}), adjustmentIntervalSeconds: 60, maxGpuBudget: 64 }],
    ['planner-kalman', { ttftMs: 300, itlMs: 30, loadPredictor: LoadPredictor.kalman({ qLevel: 0.1, qTrend: 0.01, r: 2, minPoints: 8 }), prometheusEndpoint, maxGpuBudget: 64 }],
    ['planner-prophet', { ttftMs: 300, itlMs: 30, loadPredictor: LoadPredictor.prophet(log1p ? { windowSize: 200, log1p: true } : { windowSize: 200 }), maxGpuBudget: 64 }],
  ];
  return all.filter(([, p]) => p.loadPredictor === undefined || kinds.includes(p.loadPredictor.kind));
}

function render(source: string, build: () => { graph: KubeObject; configMaps: readonly KubeObject[] }): Rendered {
  try {
    const r = build();
    return { source, objects: [r.graph, ...r.configMaps] };
  } catch (e) {
    throw new Error(`${source}: ${(e as Error).message}`);
  }
}

/** The generated matrix for one Dynamo release. */
export function matrix(version: string): Rendered[] {
  const out: Rendered[] = [];
  for (const backend of Object.keys(BACKENDS) as BackendName[]) {
    for (const [routerName, router, frontendReplicas] of routers(version)) {
      const blockSize = router.mode === 'kv' ? router.options.blockSize : undefined;
      for (const [fabricName, fabric] of fabrics()) {
        for (const [shapeName, shape] of shapes(backend, version, blockSize)) {
          const graph = {
            model: 'Qwen/Qwen3-32B',
            backend: BACKENDS[backend](),
            dynamoVersion: version,
            fabric,
            trustRemoteCode: shapeName !== 'defaults',
            ...(shapeName !== 'defaults' ? { servedModelName: 'qwen3' } : {}),
            frontend: { router, replicas: frontendReplicas },
          };
          const id = `matrix/${backend}/${routerName}/${fabricName}/${shapeName}`;
          out.push(render(`${id}/aggregated`, () => renderGraph(aggregatedGraphSpec('agg', 'ns', { ...graph, workers: shape }))));
          const disagg: DisaggregatedDeploymentOptions = { ...graph, prefill: { ...shape, replicas: 2 }, decode: shape };
          out.push(render(`${id}/disaggregated`, () => renderGraph(disaggregatedGraphSpec('disagg', 'ns', disagg))));
        }
      }
      // planners read no worker flags: one fabric and one shape suffice
      for (const [plannerName, planner] of planners(version)) {
        out.push(
          render(`matrix/${backend}/${routerName}/rdma/${plannerName}`, () =>
            renderGraph(
              disaggregatedGraphSpec('planned', 'ns', {
                model: 'Qwen/Qwen3-32B',
                backend: BACKENDS[backend](),
                dynamoVersion: version,
                fabric: Fabric.rdma(),
                frontend: { router, replicas: frontendReplicas },
                prefill: blockSize !== undefined ? { blockSize } : {},
                decode: blockSize !== undefined ? { blockSize } : {},
                planner,
              }),
            ),
          ),
        );
      }
    }
    // rehearsals: every router, both topologies, with the worker options the mocker takes
    for (const [routerName, router, frontendReplicas] of routers(version)) {
      const blockSize = router.mode === 'kv' ? router.options.blockSize : undefined;
      const shape = { blockSize, maxNumSeqs: 64, maxModelLen: 8192, tensorParallelSize: 2 };
      const graph = { model: 'Qwen/Qwen3-32B', backend: BACKENDS[backend](), dynamoVersion: version, servedModelName: 'qwen3', rehearsal: true, frontend: { router, replicas: frontendReplicas } };
      const id = `matrix/${backend}/${routerName}/rehearsal`;
      out.push(render(`${id}/aggregated`, () => renderGraph(aggregatedGraphSpec('agg', 'ns', { ...graph, workers: shape }))));
      out.push(render(`${id}/disaggregated`, () => renderGraph(disaggregatedGraphSpec('disagg', 'ns', { ...graph, fabric: Fabric.rdma(), prefill: shape, decode: shape, planner: { ttftMs: 200, itlMs: 20 } }))));
    }
    // SLA-planned requests: the profiler starts the planner with the request's planner settings
    for (const [plannerName, planner] of planners(version)) {
      // a request takes its targets from `sla` and the endpoint from the platform
      const { ttftMs, itlMs, prometheusEndpoint, ...settings } = planner;
      void prometheusEndpoint;
      out.push({
        source: `matrix/${backend}/request/${plannerName}`,
        objects: [
          renderSlaPlanned('request', 'ns', {
            model: 'Qwen/Qwen3-32B',
            backend: BACKENDS[backend](),
            dynamoVersion: version,
            sla: { isl: 4000, osl: 500, ttftMs: ttftMs!, itlMs: itlMs! },
            planner: settings,
          }).object,
        ],
      });
    }
  }
  return out;
}

/** Seeded samples of the fuzz tests' sensible deployments, each on the release it asks for. */
export function sample(seed: number, count: number): Rendered[] {
  const disagg = fc.sample(sensibleDisaggregated, { seed, numRuns: count });
  const agg = fc.sample(sensibleAggregated, { seed: seed + 1, numRuns: count });
  return [
    ...disagg.map((o, i) => render(`sample/disaggregated-${i}`, () => renderGraph(disaggregatedGraphSpec('sample', 'ns', o as never)))),
    ...agg.map((o, i) => render(`sample/aggregated-${i}`, () => renderGraph(aggregatedGraphSpec('sample', 'ns', o as never)))),
  ];
}
