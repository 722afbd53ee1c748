import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { Backend, DynamoPlatform, ImagePullSecret, PrometheusStack, SlaPlannedDeployment } from 'dynamo-constructs/pulumi';

/** Guide 1's infrastructure, the Pulumi twin of ClusterInfraChart in ../cluster.ts (charts as helm.v3.Releases). */
export function clusterInfra(namespace = 'dynamo-system', opts?: pulumi.ComponentResourceOptions): DynamoPlatform {
  const ns = new k8s.core.v1.Namespace(namespace, { metadata: { name: namespace }, spec: {} }, opts);

  const prometheus = new PrometheusStack('prometheus', {}, opts);

  return new DynamoPlatform(
    'platform',
    {
      namespace,
      createNamespace: false,
      prometheus,
      imagePullSecrets: [ImagePullSecret.fromName('nvcr-imagepullsecret')],
    },
    { ...opts, dependsOn: [ns] },
  );
}

/** Guide 1's SLA-planned deployment, the Pulumi twin of ClusterWorkloadsChart; give it the platform in dependsOn. */
export function clusterWorkloads(namespace = 'dynamo-system', opts?: pulumi.ComponentResourceOptions): SlaPlannedDeployment {
  return new SlaPlannedDeployment(
    'nemotron-nano-sla',
    {
      namespace,
      model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
      backend: Backend.vllm({ cuda: 13 }),
      sla: { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 },
      searchStrategy: 'rapid',
      hardware: { gpuSku: 'h200_sxm' },
      planner: { minEndpoint: 1, maxGpuBudget: 4, adjustmentIntervalSeconds: 30 },
      deploymentOverrides: { name: 'vllm-disagg' },
      observability: {},
    },
    opts,
  );
}
