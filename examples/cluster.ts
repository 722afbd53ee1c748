import { App, Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import {
  Backend,
  DynamoPlatform,
  FluxKustomization,
  HelmInstall,
  ImagePullSecret,
  PrometheusStack,
  SlaPlannedDeployment,
} from 'dynamo-constructs/cdk8s';

/**
 * Guide 1's whole stack for GitOps, in two manifests that Flux applies as two
 * Kustomizations, the second after the first is ready: the CRDs the workloads
 * use are installed by the first.
 *
 * Infrastructure: the platform namespace, kube-prometheus-stack with the values
 * that make Prometheus scrape Dynamo, and the Dynamo platform wired to it.
 */
export class ClusterInfraChart extends Chart {
  constructor(scope: Construct, id: string, namespace = 'dynamo-system') {
    super(scope, id);

    const ns = new kplus.Namespace(this, 'namespace', { metadata: { name: namespace } });

    const prometheus = new PrometheusStack(this, 'prometheus', { install: HelmInstall.flux() });

    new DynamoPlatform(this, 'platform', {
      namespace: ns.name,
      // the namespace object above creates it
      createNamespace: false,
      prometheus,
      // referenced, never written: create it out of band (guide 1 step 6)
      imagePullSecrets: [ImagePullSecret.fromName('nvcr-imagepullsecret')],
      install: HelmInstall.flux(),
    });
  }
}

/**
 * Workloads: guide 1's SLA-planned deployment in the platform namespace, with
 * dashboards and SLA alerts drawn from its SLA. The generated graph reads
 * `hf-token-secret`, which is created out of band too.
 */
export class ClusterWorkloadsChart extends Chart {
  constructor(scope: Construct, id: string, namespace = 'dynamo-system') {
    super(scope, id, { namespace });

    new SlaPlannedDeployment(this, 'nemotron-nano-sla', {
      model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
      backend: Backend.vllm({ cuda: 13 }),
      sla: { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 },
      searchStrategy: 'rapid',
      hardware: { gpuSku: 'h200_sxm' },
      planner: { minEndpoint: 1, maxGpuBudget: 4, adjustmentIntervalSeconds: 30 },
      deploymentOverrides: { name: 'vllm-disagg' },
      observability: {},
    });
  }
}

/**
 * The delivery: the two stages as Flux Kustomizations reading the platform repository's
 * GitRepository, the workloads after the infrastructure is applied and ready (its HelmReleases
 * installed, so the kinds the workloads use exist). Each stage is a folder of manifests: synthesize
 * the charts with `yamlOutputType: YamlOutputType.FOLDER_PER_CHART_FILE_PER_RESOURCE`.
 */
export class ClusterDeliveryChart extends Chart {
  constructor(scope: Construct, id: string, repository = 'platform', folder = './dist') {
    super(scope, id);

    const sourceRef = { kind: 'GitRepository', name: repository } as const;
    const infra = new FluxKustomization(this, 'cluster-infra', { sourceRef, path: `${folder}/cluster-infra` });
    new FluxKustomization(this, 'cluster-workloads', { sourceRef, path: `${folder}/cluster-workloads`, dependsOn: [infra] });
  }
}

if (require.main === module) {
  const app = new App();
  new ClusterInfraChart(app, 'cluster-infra');
  new ClusterWorkloadsChart(app, 'cluster-workloads');
  new ClusterDeliveryChart(app, 'cluster-delivery');
  app.synth();
}
