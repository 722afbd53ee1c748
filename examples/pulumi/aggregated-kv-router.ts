import * as pulumi from '@pulumi/pulumi';
import { AggregatedDeployment, Backend, ModelCache, Router } from 'dynamo-constructs/pulumi';

/** Guide 3, the Pulumi twin of ../aggregated-kv-router.ts. */
export function aggregatedKvRouter(namespace?: string, opts?: pulumi.ComponentResourceOptions): AggregatedDeployment {
  const modelCache = ModelCache.fromClaim('models', { claimName: 'model-cache' });

  return new AggregatedDeployment('nemotron-agg-router', {
    namespace,
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
  }, opts);
}
