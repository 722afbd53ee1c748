import * as pulumi from '@pulumi/pulumi';
import { Backend, DisaggregatedDeployment, Fabric, ModelCache, Router } from 'dynamo-constructs/pulumi';

/** TensorRT-LLM over RDMA, the Pulumi twin of ../trtllm-disaggregated.ts. */
export function trtllmDisaggregated(namespace?: string, opts?: pulumi.ComponentResourceOptions): DisaggregatedDeployment {
  const modelCache = new ModelCache('qwen-cache', { namespace, size: '200Gi', storageClassName: 'nfs-client' }, opts);

  return new DisaggregatedDeployment('qwen3-32b', {
    namespace,
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
  }, opts);
}
