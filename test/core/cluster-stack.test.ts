import {
  checkDynamoPlatform,
  checkPrometheusStack,
  Diagnostics,
  DynamoPlatformOptions,
  dynamoPlatformModel,
  DynamoValidationError,
  HfTokenSecret,
  ImagePullSecret,
  PrometheusStackOptions,
  prometheusStackModel,
  renderFluxObjects,
} from '../../src/core/internal';
import { guideCommand, helmSetValues, readGuides } from '../support/guides';
import { esmModelErrors, manifestErrors } from '../support/manifests';

function platform(o: DynamoPlatformOptions = {}) {
  const d = new Diagnostics();
  checkDynamoPlatform(d, o);
  d.throwIfErrors();
  return { model: dynamoPlatformModel(o), warnings: d.warnings };
}

function stack(o: PrometheusStackOptions = {}) {
  const d = new Diagnostics();
  checkPrometheusStack(d, o);
  d.throwIfErrors();
  return { model: prometheusStackModel(o), warnings: d.warnings };
}

function issues(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof DynamoValidationError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  throw new Error('expected a DynamoValidationError');
}

describe('Prometheus stack (guide 1 step 4)', () => {
  const guide = guideCommand(readGuides(), '$ helm install prometheus', ' 3. Verify Prometheus');

  test('exactly the guide\'s values, plus the Grafana sidecar settings that load dashboard ConfigMaps', () => {
    const fromGuide = helmSetValues(guide);
    expect(fromGuide).toEqual({
      prometheus: { prometheusSpec: { podMonitorSelectorNilUsesHelmValues: false, podMonitorNamespaceSelector: {}, probeNamespaceSelector: { matchLabels: null } } },
    });
    const { model } = stack();
    expect(model.values).toEqual({
      ...fromGuide,
      grafana: { sidecar: { dashboards: { enabled: true, label: 'grafana_dashboard', labelValue: '1' } } },
    });
    expect(guide).toContain(`helm install ${model.releaseName} -n ${model.namespace} --create-namespace prometheus-community/${model.release.chart.chart}`);
  });

  test('the query endpoint is the one guide 1 gives the platform, and follows the release name', () => {
    const platformCommand = guideCommand(readGuides(), '$ helm upgrade --install dynamo-platform', ' The command configures');
    expect(stack().model.queryEndpoint).toBe((helmSetValues(platformCommand) as any).prometheusEndpoint);
    expect(stack({ releaseName: 'kps', namespace: 'observability' }).model.queryEndpoint).toBe('http://kps-kube-prometheus-stack-prometheus.observability.svc.cluster.local:9090');
    // the chart cuts its fullname to 26 characters and does not repeat kube-prometheus
    expect(stack({ releaseName: 'kube-prometheus-stack' }).model.queryEndpoint).toBe('http://kube-prometheus-stack-prometheus.monitoring.svc.cluster.local:9090');
    expect(stack({ releaseName: 'observability-platform' }).model.queryEndpoint).toBe('http://observability-platform-kub-prometheus.monitoring.svc.cluster.local:9090');
    expect(stack({ values: { fullnameOverride: 'prom' } }).model.queryEndpoint).toBe('http://prom-prometheus.monitoring.svc.cluster.local:9090');
    // a release named after part of the chart name still gets the suffix, then the cut
    expect(stack({ releaseName: 'kube-prometheus' }).model.queryEndpoint).toBe('http://kube-prometheus-kube-prome-prometheus.monitoring.svc.cluster.local:9090');
    expect(stack({ releaseName: 'monitoring', values: { nameOverride: 'kps' } }).model.queryEndpoint).toBe('http://monitoring-kps-prometheus.monitoring.svc.cluster.local:9090');
    expect(stack({ values: { prometheus: { service: { port: 9091 } } } }).model.queryEndpoint).toBe('http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9091');
  });

  test('user values deep-merge over the library\'s, and undoing the guide\'s fix is a warning', () => {
    const { model, warnings } = stack({
      chartVersion: '77.0.0',
      values: { grafana: { adminPassword: 'from-secret' }, prometheus: { prometheusSpec: { retention: '30d', podMonitorSelectorNilUsesHelmValues: true } } },
    });
    expect(model.release.chart.version).toBe('77.0.0');
    expect((model.values as any).grafana).toEqual({ adminPassword: 'from-secret', sidecar: { dashboards: { enabled: true, label: 'grafana_dashboard', labelValue: '1' } } });
    expect((model.values as any).prometheus.prometheusSpec.retention).toBe('30d');
    expect(warnings.map((w) => w.rule)).toEqual(['prometheus-podmonitors']);
  });
});

describe('Dynamo platform (guide 1 step 5)', () => {
  const guide = guideCommand(readGuides(), '$ helm upgrade --install dynamo-platform', ' The command configures');

  test('exactly the guide\'s values: operator tag, Grove, KAI, NATS reloader, Prometheus endpoint', () => {
    const prometheus = stack().model;
    const { model } = platform({ version: '0.9.0', prometheus });
    const fromGuide = helmSetValues(guide);
    expect(model.values).toEqual({
      ...fromGuide,
      'dynamo-operator': {
        ...(fromGuide['dynamo-operator'] as object),
        // the key the operator chart documents for the endpoint it injects as PROMETHEUS_ENDPOINT
        dynamo: { metrics: { prometheusEndpoint: prometheus.queryEndpoint } },
      },
    });
    expect(guide).toContain(`--namespace \${NAMESPACE}`);
    expect(model.namespace).toBe('dynamo-system');
  });

  test('two releases from NGC, CRDs first, the platform after them', () => {
    const { model } = platform({ version: '0.9.0' });
    expect(model.releases.map((r) => [r.releaseName, r.namespace, r.chart.repo, r.chart.chart, r.chart.version])).toEqual([
      ['dynamo-crds', 'default', 'https://helm.ngc.nvidia.com/nvidia/ai-dynamo', 'dynamo-crds', '0.9.0'],
      ['dynamo-platform', 'dynamo-system', 'https://helm.ngc.nvidia.com/nvidia/ai-dynamo', 'dynamo-platform', '0.9.0'],
    ]);
    expect(model.releases[1].dependsOn).toEqual([{ releaseName: 'dynamo-crds', namespace: 'default' }]);
    expect(platform({ version: '0.9.0', crds: false }).model.releases.map((r) => r.releaseName)).toEqual(['dynamo-platform']);
  });

  test('1.x: one release (the operator installs the CRDs), parts installed with global.<part>.install, no etcd or NATS unless asked', () => {
    const prometheus = stack().model;
    const { model } = platform({ version: '1.6.1', prometheus });
    expect(model.releases.map((r) => [r.releaseName, r.chart.chart, r.chart.version, r.dependsOn])).toEqual([
      ['dynamo-platform', 'dynamo-platform', '1.6.1', [{ releaseName: 'prometheus', namespace: 'monitoring' }]],
    ]);
    expect(model.values).toEqual({
      'dynamo-operator': {
        controllerManager: { manager: { image: { tag: '1.6.1' } } },
        dynamo: { metrics: { prometheusEndpoint: prometheus.queryEndpoint } },
      },
      global: { grove: { install: true }, 'kai-scheduler': { install: true } },
      // the chart's requirement when it installs KAI next to Grove
      'kai-scheduler': { scheduler: { args: { 'default-staleness-grace-period': '-1s' } } },
    });
    const withNats = platform({ version: '1.4.2', grove: false, nats: { enabled: true }, etcd: { address: 'http://etcd.infra:2379' }, natsReloaderTag: '0.22.3' }).model.values;
    expect(withNats).toEqual({
      'dynamo-operator': { controllerManager: { manager: { image: { tag: '1.4.2' } } }, etcdAddr: 'http://etcd.infra:2379' },
      global: { grove: { install: false }, 'kai-scheduler': { install: true }, etcd: { install: false }, nats: { install: true } },
      nats: { reloader: { image: { tag: '0.22.3' } } },
    });
  });

  test('1.x: options its chart no longer has are errors; namespace restriction warns and stops CRD upgrades', () => {
    expect(issues(() => platform({ version: '1.6.1', crds: true, webhook: { enabled: true }, natsReloaderTag: '0.22.3' }))).toEqual([
      'crds: is true, but Dynamo 1.6.1 has no dynamo-crds chart: its operator installs and upgrades the CRDs; leave crds out',
      'webhook.enabled: is set, but Dynamo 1.6.1\'s chart always runs the admission webhook (the switch was removed in 1.0); leave it out',
      'natsReloaderTag: is set, but the platform installs no NATS (Dynamo 1.6.x installs it only with nats: { enabled: true })',
    ]);
    const { model, warnings } = platform({ version: '1.6.1', restrictToNamespace: 'team-a' });
    expect((model.values['dynamo-operator'] as any).upgradeCRD).toBe(false);
    expect((model.values['dynamo-operator'] as any).namespaceRestriction).toEqual({ enabled: true, targetNamespace: 'team-a' });
    expect(warnings.map((w) => `${w.rule} ${w.path}`)).toEqual(['deprecated restrictToNamespace']);
  });

  test('typed values for etcd, NATS, webhook, namespace restriction and ingress; the escape hatch wins', () => {
    const { model, warnings } = platform({
      version: '0.8.1',
      grove: false,
      kaiScheduler: false,
      imagePullSecrets: [ImagePullSecret.fromName('nvcr-imagepullsecret')],
      etcd: { address: 'http://etcd.infra:2379' },
      nats: { storageClass: 'fast', storageSize: '50Gi' },
      webhook: { enabled: false },
      restrictToNamespace: 'team-a',
      ingress: { enabled: true, className: 'nginx', hostSuffix: 'llm.example.com' },
      values: { 'dynamo-operator': { discoveryBackend: 'etcd' } },
    });
    expect(model.values).toEqual({
      'dynamo-operator': {
        controllerManager: { manager: { image: { tag: '0.8.1' } } },
        imagePullSecrets: [{ name: 'nvcr-imagepullsecret' }],
        etcdAddr: 'http://etcd.infra:2379',
        webhook: { enabled: false },
        namespaceRestriction: { enabled: true, targetNamespace: 'team-a' },
        dynamo: { ingress: { enabled: true, className: 'nginx' }, ingressHostSuffix: 'llm.example.com' },
        discoveryBackend: 'etcd',
      },
      grove: { enabled: false },
      'kai-scheduler': { enabled: false },
      etcd: { enabled: false },
      nats: { config: { jetstream: { fileStore: { pvc: { storageClassName: 'fast', size: '50Gi' } } } } },
    });
    expect(warnings.map((w) => w.rule)).toEqual(['webhook-disabled']);
  });

  test('bad options are all reported', () => {
    expect(
      issues(() =>
        platform({
          version: '1.3.0',
          etcd: { enabled: true, address: 'etcd:2379' },
          webhook: { failurePolicy: 'Sometimes' as any },
          prometheus: 'prometheus:9090',
          restrictToNamespace: 'Team_A',
        }),
      ),
    ).toEqual([
      'version: Dynamo "1.3.0" is not supported; supported releases are 0.8.x, 0.9.x, 1.4.x, 1.5.x, 1.6.x (e.g. "1.6.1")',
      'prometheus: must be a URL (http or https) such as "http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9090", got "prometheus:9090"',
      'etcd.address: must be a URL (http or https) such as "http://etcd.infra:2379", got "etcd:2379"',
      'etcd.enabled: is true, but address points at an external etcd; install one or the other',
      'webhook.failurePolicy: must be one of "Fail", "Ignore", got "Sometimes"',
      'restrictToNamespace: must be a DNS-1123 label (lowercase letters, digits and \'-\', starting and ending with a letter or digit, at most 63 characters), got "Team_A"',
    ]);
  });
});

describe('Flux objects', () => {
  test('one HelmRepository per repository, HelmReleases in order with dependsOn; valid against the Flux models', () => {
    const objects = renderFluxObjects([...platform({ version: '0.9.0' }).model.releases, stack().model.release], { namespace: 'gitops', interval: '5m' });
    expect(objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'HelmRepository/gitops/ngc-ai-dynamo',
      'HelmRepository/gitops/prometheus-community',
      'HelmRelease/gitops/dynamo-crds',
      'HelmRelease/gitops/dynamo-platform',
      'HelmRelease/gitops/prometheus',
    ]);
    const release = objects[3] as any;
    expect(release.spec).toMatchObject({
      interval: '5m',
      releaseName: 'dynamo-platform',
      targetNamespace: 'dynamo-system',
      storageNamespace: 'dynamo-system',
      chart: { spec: { chart: 'dynamo-platform', version: '0.9.0', sourceRef: { kind: 'HelmRepository', name: 'ngc-ai-dynamo', namespace: 'gitops' } } },
      install: { createNamespace: true },
      dependsOn: [{ name: 'dynamo-crds', namespace: 'gitops' }],
    });
    expect(esmModelErrors(objects)).toEqual(objects.map(() => []));
  });

  test('the model can fail: a malformed HelmRelease is rejected', () => {
    const bad = { ...(renderFluxObjects([stack().model.release])[1] as any) };
    bad.spec = { ...bad.spec, interval: 10, chart: { spec: { chart: 'x' } } };
    expect(manifestErrors(bad).join('\n')).toMatch(/interval must be string/);
  });
});

describe('secrets by reference', () => {
  test('references carry a name only and check it', () => {
    expect(HfTokenSecret.fromName('hf-token-secret').name).toBe('hf-token-secret');
    expect(HfTokenSecret.TOKEN_KEY).toBe('HF_TOKEN');
    expect(() => ImagePullSecret.fromName('NGC Key')).toThrow(/must be a DNS-1123 subdomain/);
  });
});
