import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { Backend, SlaPlannedDeployment } from 'dynamo-constructs/cdk8s';

/**
 * Guide 1, step 8: state the SLA and a GPU budget; the operator profiles
 * Nemotron Nano 4B offline with AIConfigurator (H200) and generates a
 * disaggregated graph whose planner scales it between 1 and 4 GPUs.
 */
export class SlaPlannedChart extends Chart {
  /** The guide applies the request with `-n dynamo-system`; pass a namespace to set it in the manifest. */
  constructor(scope: Construct, id: string, namespace?: string) {
    super(scope, id, { namespace });

    new SlaPlannedDeployment(this, 'nemotron-nano-sla', {
      model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
      backend: Backend.vllm({ cuda: 13 }),
      sla: { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 },
      aiConfigurator: { system: 'h200_sxm', backendVersion: '0.12.0' },
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
