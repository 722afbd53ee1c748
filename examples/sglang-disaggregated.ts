import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { Backend, DisaggregatedDeployment, Fabric, ModelCache, Router } from 'dynamo-constructs/cdk8s';

/**
 * SGLang disaggregated on AWS EFA (guide 4's engine settings): KV cache moves
 * through NIXL's LIBFABRIC backend with libfabric's shm transfer off, so a
 * prefill and a decode worker sharing a node still use the EFA device.
 */
export class SglangDisaggregatedChart extends Chart {
  constructor(scope: Construct, id: string, namespace = 'dynamo-workloads') {
    super(scope, id, { namespace });

    const modelCache = new ModelCache(this, 'deepseek-cache', { size: '200Gi', storageClassName: 'efs-sc' });

    new DisaggregatedDeployment(this, 'deepseek-v2-lite', {
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
    });
  }
}

if (require.main === module) {
  const app = new App();
  new SglangDisaggregatedChart(app, 'sglang-disaggregated');
  app.synth();
}
