import * as pulumi from '@pulumi/pulumi';
import { Backend, DisaggregatedDeployment, Fabric, ModelCache, Router } from 'dynamo-constructs/pulumi';

/** SGLang on AWS EFA, the Pulumi twin of ../sglang-disaggregated.ts. */
export function sglangDisaggregated(namespace?: string, opts?: pulumi.ComponentResourceOptions): DisaggregatedDeployment {
  const modelCache = new ModelCache('deepseek-cache', { namespace, size: '200Gi', storageClassName: 'efs-sc' }, opts);

  return new DisaggregatedDeployment('deepseek-v2-lite', {
    namespace,
    model: 'deepseek-ai/DeepSeek-V2-Lite-Chat',
    backend: Backend.sglang(),
    hfTokenSecret: 'hf-token-secret',
    imagePullSecrets: ['nvcr-imagepullsecret'],
    modelCache,
    fabric: Fabric.efa(),
    trustRemoteCode: true,
    frontend: { router: Router.kv({ overlapScoreWeight: 1.5 }) },
    prefill: {
      tensorParallelSize: 2,
      kvCacheDtype: 'bf16',
      maxModelLen: 32768,
      extraArgs: ['--chunked-prefill-size', '8192', '--mem-fraction-static', '0.75'],
    },
    decode: {
      tensorParallelSize: 2,
      kvCacheDtype: 'bf16',
      maxModelLen: 32768,
      extraArgs: ['--mem-fraction-static', '0.75'],
    },
  }, opts);
}
