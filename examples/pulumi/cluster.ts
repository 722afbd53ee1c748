import * as k8s from '@pulumi/kubernetes';
import { Backend, DynamoPlatform, ImagePullSecret, PrometheusStack, SlaPlannedDeployment } from 'dynamo-constructs/pulumi';

/** Guide 1's whole stack, the Pulumi twin of ../cluster.ts (the charts as helm.v3.Releases). */
export function cluster(namespace = 'dynamo-system'): SlaPlannedDeployment {
  const ns = new k8s.core.v1.Namespace(namespace, { metadata: { name: namespace }, spec: {} });

  const prometheus = new PrometheusStack('prometheus');

  const platform = new DynamoPlatform(
    'platform',
    {
      namespace,
      createNamespace: false,
      prometheus,
      imagePullSecrets: [ImagePullSecret.fromName('nvcr-imagepullsecret')],
    },
    { dependsOn: [ns] },
  );

  return new SlaPlannedDeployment(
    'nemotron-nano-sla',
    {
      namespace,
      model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
      backend: Backend.vllm({ cuda: 13 }),
      sla: { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 },
      aiConfigurator: { system: 'h200_sxm', backendVersion: '0.12.0' },
      planner: { minEndpoint: 1, maxGpuBudget: 4, adjustmentIntervalSeconds: 30 },
      deploymentOverrides: { name: 'vllm-disagg' },
    },
    // applied after the namespace and the platform that serves it
    { dependsOn: [ns, platform] },
  );
}
