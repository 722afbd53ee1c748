import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { Backend, SlaPlannedDeployment } from 'dynamo-constructs/cdk8s';

/**
 * Guide 1, step 8: state the SLA and a GPU budget; the operator profiles
 * Nemotron Nano 4B offline for H200 and generates a disaggregated graph whose
 * planner scales it between 1 and 4 GPUs. Dynamo 1.x profiles offline with its
 * built-in performance model (searchStrategy 'rapid'); 0.8 and 0.9, as the
 * guide does, with AIConfigurator.
 */
export class SlaPlannedChart extends Chart {
  /**
   * The guide applies the request with `-n dynamo-system`; pass a namespace to set it in the manifest.
   * `dynamoVersion`: the release to deploy (the current one by default; the guide was written for 0.9.0).
   */
  constructor(scope: Construct, id: string, namespace?: string, dynamoVersion?: string) {
    super(scope, id, { namespace });

    const offlineProfiling = dynamoVersion?.startsWith('0.')
      ? { aiConfigurator: { system: 'h200_sxm', backendVersion: '0.12.0' } }
      : { searchStrategy: 'rapid' as const, hardware: { gpuSku: 'h200_sxm' } };
    new SlaPlannedDeployment(this, 'nemotron-nano-sla', {
      model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
      dynamoVersion,
      backend: Backend.vllm({ cuda: 13 }),
      sla: { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 },
      ...offlineProfiling,
      planner: { minEndpoint: 1, maxGpuBudget: 4, adjustmentIntervalSeconds: 30 },
      deploymentOverrides: { name: 'vllm-disagg' },
    });
  }
}

if (require.main === module) {
  const app = new App();
  new SlaPlannedChart(app, 'sla-planned');
  app.synth();
}
