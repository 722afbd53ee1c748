import * as pulumi from '@pulumi/pulumi';
import {
  AggregatedDeployment,
  Backend,
  DynamoPlatform,
  DynamoValidationError,
  HfTokenSecret,
  ImagePullSecret,
  PrometheusStack,
  SlaPlannedDeployment,
} from '../../src/pulumi';
import { KUBE_PROMETHEUS_STACK_VERSION } from '../../src/core';
import { PulumiRecorder } from '../support/pulumi';

const recorder = new PulumiRecorder();
beforeAll(() => recorder.install());
beforeAll(() => jest.spyOn(pulumi.log, 'warn').mockImplementation(() => Promise.resolve()));
beforeEach(() => recorder.clear());

const RELEASE = 'kubernetes:helm.sh/v3:Release';

describe('releases', () => {
  test('Prometheus stack and the 0.9 platform as helm.v3.Releases with the values cdk8s uses; the platform after its CRDs', async () => {
    const prometheus = new PrometheusStack('prometheus');
    const platform = new DynamoPlatform('platform', { version: '0.9.0', prometheus });
    await recorder.settle();
    const order = ['prometheus', 'platform-dynamo-crds', 'platform-dynamo-platform'];
    const releases = recorder.registrations.filter((r) => r.type === RELEASE).sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
    // Pulumi names come from the component's; release names are the charts'
    expect(releases.map((r) => [r.name, r.inputs.name, r.inputs.namespace, r.inputs.chart, r.inputs.repositoryOpts.repo, r.inputs.version, r.inputs.createNamespace])).toEqual([
      ['prometheus', 'prometheus', 'monitoring', 'kube-prometheus-stack', 'https://prometheus-community.github.io/helm-charts', KUBE_PROMETHEUS_STACK_VERSION, true],
      ['platform-dynamo-crds', 'dynamo-crds', 'default', 'dynamo-crds', 'https://helm.ngc.nvidia.com/nvidia/ai-dynamo', '0.9.0', false],
      ['platform-dynamo-platform', 'dynamo-platform', 'dynamo-system', 'dynamo-platform', 'https://helm.ngc.nvidia.com/nvidia/ai-dynamo', '0.9.0', true],
    ]);
    expect(releases[0].inputs.values).toEqual(prometheus.values);
    expect(releases[0].inputs.values.prometheus.prometheusSpec.probeNamespaceSelector).toEqual({ matchLabels: null });
    expect(releases[2].inputs.values).toEqual(platform.values);
    // after the CRDs, and after Prometheus (its PodMonitor API must exist for the chart's monitors)
    expect(releases[2].dependencies).toEqual(expect.arrayContaining([releases[1].urn, releases[0].urn]));
    const platformComponent = recorder.registrations.find((r) => r.type === 'dynamo-constructs:index:DynamoPlatform')!;
    expect(releases[1].parent).toBe(platformComponent.urn);
  });

  test('the 1.x platform is one release, after Prometheus', async () => {
    const prometheus = new PrometheusStack('prometheus');
    const platform = new DynamoPlatform('platform', { prometheus });
    await recorder.settle();
    const releases = recorder.registrations.filter((r) => r.type === RELEASE && r.inputs.chart.startsWith('dynamo-'));
    expect(releases.map((r) => [r.name, r.inputs.chart, r.inputs.version])).toEqual([['platform-dynamo-platform', 'dynamo-platform', '1.6.1']]);
    expect(releases[0].inputs.values).toEqual(platform.values);
    const stack = recorder.registrations.find((r) => r.type === RELEASE && r.name === 'prometheus')!;
    expect(releases[0].dependencies).toContain(stack.urn);
  });

  test('HelmInstall is a cdk8s choice: passing one to Pulumi is an error, not ignored', () => {
    expect(() => new PrometheusStack('p', { install: {} } as any)).toThrow(/install: is cdk8s only/);
  });

  test('workloads wait for the platform when given it in dependsOn', async () => {
    const platform = new DynamoPlatform('platform');
    new AggregatedDeployment('agg', { model: 'm', backend: Backend.vllm(), workers: {} }, { dependsOn: [platform] });
    await recorder.settle();
    const dgd = recorder.registrations.find((r) => r.type === 'kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment')!;
    // depending on a component is depending on every resource in it
    for (const release of recorder.registrations.filter((r) => r.type === RELEASE)) expect(dgd.dependencies).toContain(release.urn);
  });
});

describe('secrets from secret Outputs', () => {
  test('an HF token Secret is created from a secret Output, and the graph waits for it', async () => {
    const token = new HfTokenSecret('hf-token', { namespace: 'serving', token: pulumi.secret('value-from-config') });
    new AggregatedDeployment('agg', { namespace: 'serving', model: 'm', backend: Backend.vllm(), hfTokenSecret: token, workers: {} });
    await recorder.settle();
    const secret = recorder.registrations.find((r) => r.type === 'kubernetes:core/v1:Secret')!;
    expect(secret.inputs.metadata).toEqual({ name: 'hf-token', namespace: 'serving' });
    expect(secret.inputs.type).toBe('Opaque');
    // kept secret in Pulumi's state
    expect(pulumi.runtime.isRpcSecret(secret.inputs.stringData)).toBe(true);
    expect(pulumi.runtime.unwrapRpcSecret(secret.inputs.stringData)).toEqual({ HF_TOKEN: 'value-from-config' });
    const dgd = recorder.registrations.find((r) => r.type === 'kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment')!;
    expect(dgd.inputs.spec.components.find((c: any) => c.name === 'VllmWorker').podTemplate.spec.containers[0].envFrom).toEqual([{ secretRef: { name: 'hf-token' } }]);
    expect(dgd.dependencies).toContain(secret.urn);
  });

  test('an SLA-planned request waits for the HF token and pull Secrets created beside it', async () => {
    const token = new HfTokenSecret('hf-token-secret', { namespace: 'serving', token: pulumi.secret('value-from-config') });
    const pull = new ImagePullSecret('nvcr', { namespace: 'serving', password: pulumi.secret('ngc-api-key') });
    new SlaPlannedDeployment('req', {
      namespace: 'serving', model: 'm', backend: Backend.vllm(), sla: { isl: 100, osl: 10, ttftMs: 300, itlMs: 30 }, hfTokenSecret: token, imagePullSecrets: [pull],
    });
    await recorder.settle();
    const secrets = recorder.registrations.filter((r) => r.type === 'kubernetes:core/v1:Secret');
    const dgdr = recorder.registrations.find((r) => r.type === 'kubernetes:nvidia.com/v1beta1:DynamoGraphDeploymentRequest')!;
    expect(secrets.map((s) => dgdr.dependencies.includes(s.urn))).toEqual([true, true]);
    expect(dgdr.inputs.spec.overrides.profilingJob.template.spec.imagePullSecrets).toEqual([{ name: 'nvcr' }]);
  });

  test('an image pull Secret for nvcr.io from a secret Output', async () => {
    new ImagePullSecret('nvcr-imagepullsecret', { password: pulumi.secret('ngc-api-key') });
    await recorder.settle();
    const secret = recorder.registrations.find((r) => r.type === 'kubernetes:core/v1:Secret')!;
    expect(secret.inputs.type).toBe('kubernetes.io/dockerconfigjson');
    expect(pulumi.runtime.isRpcSecret(secret.inputs.stringData)).toBe(true);
    const config = JSON.parse(pulumi.runtime.unwrapRpcSecret(secret.inputs.stringData)['.dockerconfigjson']);
    expect(config.auths['nvcr.io']).toEqual({ username: '$oauthtoken', password: 'ngc-api-key', auth: Buffer.from('$oauthtoken:ngc-api-key').toString('base64') });
  });

  test('a literal token is refused', () => {
    let e: DynamoValidationError | undefined;
    try {
      new HfTokenSecret('leak', { token: 'hf_abcdefghijklmnop' as any });
    } catch (err) {
      e = err as DynamoValidationError;
    }
    expect(e).toBeInstanceOf(DynamoValidationError);
    expect(e!.issues[0].message).toMatch(/^must be a Pulumi secret Output .* got a literal string; a token is never written in a program or a manifest$/);
    expect(e!.message).not.toContain('hf_abcdefghijklmnop');
  });

  test('fromName references an existing Secret and creates nothing', async () => {
    expect(HfTokenSecret.fromName('hf-token-secret').name).toBe('hf-token-secret');
    expect(ImagePullSecret.fromName('nvcr-imagepullsecret').name).toBe('nvcr-imagepullsecret');
    await recorder.settle();
    expect(recorder.registrations).toEqual([]);
  });
});
