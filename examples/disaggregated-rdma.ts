import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { Backend, DisaggregatedDeployment, Fabric, ModelCache } from 'dynamo-constructs/cdk8s';

/**
 * Guide 2: Nemotron Nano 4B served disaggregated, 2 prefill + 2 decode workers,
 * KV cache over RDMA (InfiniBand/RoCE), model weights cached on a shared PVC.
 */
export class DisaggregatedRdmaChart extends Chart {
  /** `dynamoVersion`: the release to deploy (the current one by default; guide 2 was written for 0.9.0). */
  constructor(scope: Construct, id: string, namespace = 'dynamo-workloads', dynamoVersion?: string) {
    super(scope, id, { namespace });

    const modelCache = new ModelCache(this, 'model-cache', { size: '100Gi' });

    new DisaggregatedDeployment(this, 'dynamo-disagg', {
      model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
      dynamoVersion,
      backend: Backend.vllm({ cuda: 13 }),
      hfTokenSecret: 'hf-token-secret',
      modelCache,
      fabric: Fabric.rdma(),
      trustRemoteCode: true,
      // the guide exposes only the pod UID, and only to the workers
      podInfoEnv: ['POD_UID'],
      frontend: { podInfoEnv: [] },
      prefill: { serviceName: 'VLLMPrefillWorker', replicas: 2, kvCacheDtype: 'fp8', maxNumSeqs: 1 },
      decode: { serviceName: 'VLLMDecodeWorker', replicas: 2, kvCacheDtype: 'fp8', maxNumSeqs: 1024 },
    });
  }
}

if (require.main === module) {
  const app = new App();
  new DisaggregatedRdmaChart(app, 'disaggregated-rdma');
  app.synth();
}
