import { App, Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import {
  Backend,
  DynamoPlatform,
  HelmInstall,
  ImagePullSecret,
  PrometheusStack,
  SlaPlannedDeployment,
} from 'dynamo-constructs/cdk8s';

/**
 * Guide 1's whole stack, for GitOps (Flux installs the charts): the workload
 * namespace, kube-prometheus-stack with the values that make Prometheus scrape
 * Dynamo, the Dynamo platform wired to that Prometheus, and an SLA-planned
 * deployment. Secrets are referenced, never written: create `nvcr-imagepullsecret`
 * and `hf-token-secret` out of band (guide 1 step 6).
 */
export class ClusterChart extends Chart {
  constructor(scope: Construct, id: string, namespace = 'dynamo-system') {
    super(scope, id);

    const ns = new kplus.Namespace(this, 'namespace', { metadata: { name: namespace } });

    const prometheus = new PrometheusStack(this, 'prometheus', { install: HelmInstall.flux() });

    const platform = new DynamoPlatform(this, 'platform', {
      namespace: ns.name,
      // the namespace object above creates it
      createNamespace: false,
      prometheus,
      imagePullSecrets: [ImagePullSecret.fromName('nvcr-imagepullsecret')],
      install: HelmInstall.flux(),
    });

    const request = new SlaPlannedDeployment(this, 'nemotron-nano-sla', {
      namespace: ns,
      model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
      backend: Backend.vllm({ cuda: 13 }),
      sla: { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 },
      aiConfigurator: { system: 'h200_sxm', backendVersion: '0.12.0' },
      planner: { minEndpoint: 1, maxGpuBudget: 4, adjustmentIntervalSeconds: 30 },
      deploymentOverrides: { name: 'vllm-disagg' },
    });
    // applied after the namespace and the platform that serves it
    request.apiObject.addDependency(ns, platform);
  }
}

if (require.main === module) {
  const app = new App();
  new ClusterChart(app, 'cluster');
  app.synth();
}
