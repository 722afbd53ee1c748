import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { AggregatedDeployment, Backend, ModelCache, Router } from 'dynamo-constructs/cdk8s';

/**
 * Guide 3: aggregated vLLM workers behind the KV-aware router, with the
 * guide's recommended router parameters, pinned to the release the guide was
 * written for: Dynamo 1.6 deprecates the overlap weight and temperature flags
 * in favour of a router policy file (the library warns where they are used).
 */
export class AggregatedKvRouterChart extends Chart {
  constructor(scope: Construct, id: string, namespace = 'dynamo-workloads') {
    super(scope, id, { namespace });

    const modelCache = ModelCache.fromClaim(this, 'models', { claimName: 'model-cache' });

    new AggregatedDeployment(this, 'nemotron-agg-router', {
      model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
      dynamoVersion: '0.9.0',
      backend: Backend.vllm(),
      hfTokenSecret: 'hf-token-secret',
      modelCache,
      trustRemoteCode: true,
      frontend: {
        router: Router.kv({
          overlapScoreWeight: 1.5,
          temperature: 0.1,
          activeDecodeBlocksThreshold: 0.85,
          activePrefillTokensThreshold: 10000,
        }),
      },
      workers: { replicas: 2, blockSize: 16 },
    });
  }
}

if (require.main === module) {
  const app = new App();
  new AggregatedKvRouterChart(app, 'aggregated-kv-router');
  app.synth();
}
