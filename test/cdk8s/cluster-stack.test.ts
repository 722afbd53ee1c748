import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { ClusterDeliveryChart, ClusterInfraChart, ClusterWorkloadsChart } from '../../examples/cluster';
import { Backend, DisaggregatedDeployment, DynamoPlatform, DynamoValidationError, Fabric, HelmInstall, PrometheusStack, SlaPlannedDeployment } from '../../src/cdk8s';
import { esmModelErrors } from '../support/manifests';

/**
 * `HelmInstall.template()` runs `helm template` through cdk8s's Helm construct.
 * No helm CLI is needed here: a stand-in records the arguments and the values
 * file it is given, and prints one object, as helm would print the chart.
 */
let helmDir: string;
let fakeHelm: string;
const calls = () => fs.readFileSync(path.join(helmDir, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

beforeAll(() => {
  helmDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-helm-'));
  fakeHelm = path.join(helmDir, 'helm');
  fs.writeFileSync(
    fakeHelm,
    `#!${process.execPath}
const fs = require('fs');
const args = process.argv.slice(2);
const values = args.includes('-f') ? fs.readFileSync(args[args.indexOf('-f') + 1], 'utf8') : null;
fs.appendFileSync(${JSON.stringify(path.join(helmDir, 'calls.jsonl'))}, JSON.stringify({ args, values }) + '\\n');
const release = args[args.length - 2];
process.stdout.write('apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: ' + release + '-rendered\\n');
`,
  );
  fs.chmodSync(fakeHelm, 0o755);
});

beforeEach(() => fs.rmSync(path.join(helmDir, 'calls.jsonl'), { force: true }));
afterAll(() => fs.rmSync(helmDir, { recursive: true, force: true }));

describe('HelmInstall.template()', () => {
  test('passes chart, repo, version, release, namespace and a values file with guide 1\'s values to helm', () => {
    const chart = new Chart(Testing.app(), 'c');
    const stack = new PrometheusStack(chart, 'prometheus', { chartVersion: '77.0.0', install: HelmInstall.template({ helmExecutable: fakeHelm, helmFlags: ['--kube-version', '1.30'] }) });
    const out = Testing.synth(chart);
    const [call] = calls();
    expect(call.args.slice(0, 2)).toEqual(['template', '-f']);
    expect(call.args.slice(3)).toEqual([
      '--repo', 'https://prometheus-community.github.io/helm-charts',
      '--version', '77.0.0',
      '--namespace', 'monitoring',
      // the chart's CRDs (the Prometheus operator's) are part of the manifest
      '--include-crds',
      '--kube-version', '1.30',
      'prometheus',
      'kube-prometheus-stack',
    ]);
    // the values file keeps what Helm gives a meaning: {} and null
    expect(YAML.parse(call.values)).toEqual(stack.values);
    expect(call.values).toContain('matchLabels: null');
    expect(call.values).toContain('podMonitorNamespaceSelector: {}');
    // the namespace, then the chart's objects
    expect(out.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Namespace/monitoring', 'ConfigMap/prometheus-rendered']);
    expect(stack.apiObjects.map((o) => o.kind)).toEqual(['Namespace', 'ConfigMap']);
  });

  test('the 0.9 platform renders the CRD chart, then the platform chart, both from NGC; with Prometheus, after it', () => {
    const chart = new Chart(Testing.app(), 'c');
    const prometheus = new PrometheusStack(chart, 'prometheus', { install: HelmInstall.template({ helmExecutable: fakeHelm }) });
    const platform = new DynamoPlatform(chart, 'platform', { version: '0.9.0', prometheus, install: HelmInstall.template({ helmExecutable: fakeHelm }) });
    const out = Testing.synth(chart);
    const [, crds, main] = calls();
    expect(crds.args).toEqual(['template', '--repo', 'https://helm.ngc.nvidia.com/nvidia/ai-dynamo', '--version', '0.9.0', '--namespace', 'default', '--include-crds', 'dynamo-crds', 'dynamo-crds']);
    // the chart adds its PodMonitors only where the monitoring API exists: helm template has no cluster to ask
    expect(main.args.slice(3)).toEqual([
      '--repo', 'https://helm.ngc.nvidia.com/nvidia/ai-dynamo',
      '--version', '0.9.0',
      '--namespace', 'dynamo-system',
      '--include-crds',
      '--api-versions', 'monitoring.coreos.com/v1',
      'dynamo-platform', 'dynamo-platform',
    ]);
    expect(YAML.parse(main.values)).toEqual(platform.values);
    const order = out.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(order).toEqual(['Namespace/monitoring', 'ConfigMap/prometheus-rendered', 'Namespace/dynamo-system', 'ConfigMap/dynamo-crds-rendered', 'ConfigMap/dynamo-platform-rendered']);
  });

  test('the 1.x platform is one chart: its operator installs the CRDs', () => {
    const chart = new Chart(Testing.app(), 'c');
    const platform = new DynamoPlatform(chart, 'platform', { install: HelmInstall.template({ helmExecutable: fakeHelm }) });
    const out = Testing.synth(chart);
    const [main] = calls();
    expect(calls()).toHaveLength(1);
    expect(main.args.slice(3)).toEqual(['--repo', 'https://helm.ngc.nvidia.com/nvidia/ai-dynamo', '--version', '1.6.1', '--namespace', 'dynamo-system', '--include-crds', 'dynamo-platform', 'dynamo-platform']);
    expect(YAML.parse(main.values)).toEqual(platform.values);
    expect(out.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Namespace/dynamo-system', 'ConfigMap/dynamo-platform-rendered']);
  });
});

describe('HelmInstall.flux() and none()', () => {
  test('Flux objects carry the values as core renders them, null included, and validate', () => {
    const chart = new Chart(Testing.app(), 'c');
    new PrometheusStack(chart, 'prometheus', { install: HelmInstall.flux() });
    const out = Testing.synth(chart);
    expect(out.map((o) => o.kind)).toEqual(['HelmRepository', 'HelmRelease']);
    expect(out[1].spec.values.prometheus.prometheusSpec).toEqual({
      podMonitorSelectorNilUsesHelmValues: false,
      podMonitorNamespaceSelector: {},
      probeNamespaceSelector: { matchLabels: null },
    });
    expect(esmModelErrors(out)).toEqual([[], []]);
  });

  test('none() emits nothing; the values and endpoint stay available', () => {
    const chart = new Chart(Testing.app(), 'c');
    const stack = new PrometheusStack(chart, 'prometheus', { install: HelmInstall.none() });
    const platform = new DynamoPlatform(chart, 'platform', { prometheus: stack, install: HelmInstall.none() });
    expect(Testing.synth(chart)).toEqual([]);
    expect((platform.values as any)['dynamo-operator'].dynamo.metrics.prometheusEndpoint).toBe(stack.queryEndpoint);
  });

  test('bad install options are reported', () => {
    const e = (() => {
      try {
        new PrometheusStack(new Chart(Testing.app(), 'c'), 'p', { install: HelmInstall.flux({ interval: 'soon' }), releaseName: 'Prometheus' });
      } catch (err) {
        return err as DynamoValidationError;
      }
      throw new Error('nothing thrown');
    })();
    expect(e.issues.map((i) => i.path)).toEqual(['releaseName', 'install.interval']);
  });
});

describe('the cluster example (guide 1\'s whole stack, two Kustomizations)', () => {
  const infra = Testing.synth(new ClusterInfraChart(Testing.app(), 'cluster-infra'));
  const workloads = Testing.synth(new ClusterWorkloadsChart(Testing.app(), 'cluster-workloads'));

  test('infrastructure: namespace, Prometheus, and the platform wired to it and installed after it', () => {
    expect(infra.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Namespace/dynamo-system',
      'HelmRepository/prometheus-community',
      'HelmRelease/prometheus',
      'HelmRepository/ngc-ai-dynamo',
      'HelmRelease/dynamo-platform',
    ]);
    const platform = infra.find((o) => o.kind === 'HelmRelease' && o.metadata.name === 'dynamo-platform');
    expect(platform.spec.values['dynamo-operator'].dynamo.metrics.prometheusEndpoint).toBe('http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9090');
    expect(platform.spec.targetNamespace).toBe('dynamo-system');
    expect(platform.spec.dependsOn).toEqual([{ name: 'prometheus', namespace: 'flux-system' }]);
  });

  test('workloads, applied after: the SLA request with its dashboards and alerts', () => {
    expect(workloads.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'DynamoGraphDeploymentRequest/dynamo-system/nemotron-nano-sla',
      'ConfigMap/monitoring/vllm-disagg-serving-dashboard',
      'ConfigMap/monitoring/vllm-disagg-planner-dashboard',
      'PrometheusRule/dynamo-system/vllm-disagg-sla',
    ]);
  });

  test('delivery: two Flux Kustomizations, the workloads after the infrastructure is applied and ready', () => {
    const delivery = Testing.synth(new ClusterDeliveryChart(Testing.app(), 'cluster-delivery'));
    expect(delivery.map((o) => [o.kind, o.metadata.namespace, o.metadata.name, o.spec.path, o.spec.wait, o.spec.dependsOn])).toEqual([
      ['Kustomization', 'flux-system', 'cluster-infra', './dist/cluster-infra', true, undefined],
      ['Kustomization', 'flux-system', 'cluster-workloads', './dist/cluster-workloads', true, [{ name: 'cluster-infra' }]],
    ]);
    expect(delivery.map((o) => o.spec.sourceRef)).toEqual([{ kind: 'GitRepository', name: 'platform' }, { kind: 'GitRepository', name: 'platform' }]);
    expect(esmModelErrors(delivery)).toEqual([[], []]);
  });

  test('no token anywhere in the manifests: secrets are referenced by name', () => {
    const text = JSON.stringify([...infra, ...workloads]);
    expect(text).toContain('nvcr-imagepullsecret');
    expect(text).not.toMatch(/hf_[A-Za-z0-9]{10,}|nvapi-|dockerconfigjson|password/i);
  });

  test('a planner takes its Prometheus endpoint from the stack', () => {
    const chart = new Chart(Testing.app(), 'c');
    const prometheus = new PrometheusStack(chart, 'prometheus', { releaseName: 'kps', install: HelmInstall.none() });
    new DisaggregatedDeployment(chart, 'llm', {
      model: 'm',
      backend: Backend.vllm(),
      fabric: Fabric.rdma(),
      prefill: {},
      decode: {},
      planner: { ttftMs: 200, itlMs: 20, prometheusEndpoint: prometheus },
    });
    // 1.x: in the PlannerConfig the planner mounts
    const config = Testing.synth(chart).find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'llm-planner-config');
    expect(JSON.parse(config.data['planner_config.json']).metric_pulling_prometheus_endpoint).toBe('http://kps-kube-prometheus-stack-prometheus.monitoring.svc.cluster.local:9090');
  });

  test('an SLA-planned deployment takes the namespace object too', () => {
    const chart = new Chart(Testing.app(), 'c');
    const req = new SlaPlannedDeployment(chart, 'r', { namespace: { name: 'serving' }, model: 'm', backend: Backend.vllm(), sla: { isl: 1, osl: 1, ttftMs: 1, itlMs: 1 } });
    expect(Testing.synth(chart)[0].metadata.namespace).toBe('serving');
    expect(req.apiObjects).toHaveLength(1);
  });
});
