import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { Backend, DisaggregatedDeployment, Fabric, ModelCache, Router } from 'dynamo-constructs/cdk8s';

/**
 * TensorRT-LLM disaggregated over RDMA: each worker's engine config is
 * generated into a ConfigMap and passed with `--extra-engine-args`.
 */
export class TrtllmDisaggregatedChart extends Chart {
  constructor(scope: Construct, id: string, namespace = 'dynamo-workloads') {
    super(scope, id, { namespace });

    const modelCache = new ModelCache(this, 'qwen-cache', { size: '200Gi', storageClassName: 'nfs-client' });

    new DisaggregatedDeployment(this, 'qwen3-32b', {
      model: 'Qwen/Qwen3-32B',
      backend: Backend.trtllm(),
      hfTokenSecret: 'hf-token-secret',
      modelCache,
      fabric: Fabric.rdma(),
      frontend: { router: Router.kv() },
      prefill: {
        replicas: 2,
        tensorParallelSize: 1,
        maxNumSeqs: 4,
        kvCacheDtype: 'fp8',
        blockSize: 32,
        engineConfig: { kv_cache_config: { free_gpu_memory_fraction: 0.75 } },
      },
      decode: {
        tensorParallelSize: 4,
        maxNumSeqs: 256,
        kvCacheDtype: 'fp8',
        blockSize: 32,
        engineConfig: { kv_cache_config: { free_gpu_memory_fraction: 0.85 } },
      },
    });
  }
}

if (require.main === module) {
  const app = new App();
  new TrtllmDisaggregatedChart(app, 'trtllm-disaggregated');
  app.synth();
}
