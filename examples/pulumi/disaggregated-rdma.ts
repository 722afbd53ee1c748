import * as pulumi from '@pulumi/pulumi';
import { Backend, DisaggregatedDeployment, Fabric, ModelCache } from 'dynamo-constructs/pulumi';

/** Guide 2, the Pulumi twin of ../disaggregated-rdma.ts. */
export function disaggregatedRdma(namespace?: string, opts?: pulumi.ComponentResourceOptions): DisaggregatedDeployment {
  const modelCache = new ModelCache('model-cache', { namespace, size: '100Gi' }, opts);

  return new DisaggregatedDeployment('dynamo-disagg', {
    namespace,
    model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
    backend: Backend.vllm({ cuda: 13 }),
    hfTokenSecret: 'hf-token-secret',
    modelCache,
    fabric: Fabric.rdma(),
    trustRemoteCode: true,
    podInfoEnv: ['POD_UID'],
    frontend: { podInfoEnv: [] },
    prefill: { serviceName: 'VLLMPrefillWorker', replicas: 2, kvCacheDtype: 'fp8', maxNumSeqs: 1 },
    decode: { serviceName: 'VLLMDecodeWorker', replicas: 2, kvCacheDtype: 'fp8', maxNumSeqs: 1024 },
  }, opts);
}
