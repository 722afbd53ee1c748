import * as pulumi from '@pulumi/pulumi';
import { Backend, SlaPlannedDeployment } from 'dynamo-constructs/pulumi';

/** Guide 1 step 8, the Pulumi twin of ../sla-planned.ts. */
export function slaPlanned(namespace?: string, opts?: pulumi.ComponentResourceOptions): SlaPlannedDeployment {
  return new SlaPlannedDeployment('nemotron-nano-sla', {
    namespace,
    model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
    backend: Backend.vllm({ cuda: 13 }),
    sla: { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 },
    searchStrategy: 'rapid',
    hardware: { gpuSku: 'h200_sxm' },
    planner: { minEndpoint: 1, maxGpuBudget: 4, adjustmentIntervalSeconds: 30 },
    deploymentOverrides: { name: 'vllm-disagg' },
  }, opts);
}
