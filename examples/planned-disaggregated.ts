import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { Backend, DisaggregatedDeployment, Fabric, LoadPredictor, ModelCache, Router } from 'dynamo-constructs/cdk8s';

/**
 * A disaggregated graph with its own SLA planner (the graph an SLA-planned
 * deployment generates, written directly): the planner reads the profiling
 * results ConfigMap and scales prefill and decode workers within 16 GPUs to
 * hold TTFT under 300 ms and ITL under 30 ms.
 */
export class PlannedDisaggregatedChart extends Chart {
  constructor(scope: Construct, id: string, namespace = 'dynamo-workloads') {
    super(scope, id, { namespace });

    const modelCache = ModelCache.fromClaim(this, 'weights', { claimName: 'model-cache' });

    new DisaggregatedDeployment(this, 'llama-70b', {
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
    });
  }
}

if (require.main === module) {
  const app = new App();
  new PlannedDisaggregatedChart(app, 'planned-disaggregated');
  app.synth();
}
