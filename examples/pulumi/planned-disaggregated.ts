import * as pulumi from '@pulumi/pulumi';
import { Backend, DisaggregatedDeployment, Fabric, LoadPredictor, ModelCache, Router } from 'dynamo-constructs/pulumi';

/** A disaggregated graph with its own SLA planner, the Pulumi twin of ../planned-disaggregated.ts. */
export function plannedDisaggregated(namespace?: string, opts?: pulumi.ComponentResourceOptions): DisaggregatedDeployment {
  const modelCache = ModelCache.fromClaim('weights', { claimName: 'model-cache' });

  return new DisaggregatedDeployment('llama-70b', {
    namespace,
    model: 'meta-llama/Llama-3.3-70B-Instruct',
    backend: Backend.vllm(),
    hfTokenSecret: 'hf-token-secret',
    modelCache,
    fabric: Fabric.rdma(),
    frontend: { router: Router.kv() },
    prefill: { tensorParallelSize: 2, maxNumSeqs: 4 },
    decode: { tensorParallelSize: 4, maxNumSeqs: 512 },
    planner: {
      ttftMs: 300,
      itlMs: 30,
      minEndpoint: 1,
      maxGpuBudget: 16,
      adjustmentIntervalSeconds: 60,
      loadPredictor: LoadPredictor.kalman({ qLevel: 0.1, qTrend: 0.01, r: 1.0 }),
      prometheusEndpoint: 'http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9090',
    },
    // dashboards and alerts drawn from the planner's SLA, and monitors for this graph
    observability: { podMonitors: true },
  }, opts);
}
