import { Chart, Testing } from 'cdk8s';
import {
  Backend,
  Dashboards,
  DecodeWorker,
  DisaggregatedDeployment,
  DynamoGraph,
  DynamoPlatform,
  DynamoValidationError,
  Fabric,
  Frontend,
  GrafanaDashboard,
  HelmInstall,
  Planner,
  PodMonitors,
  PrefillWorker,
  PrometheusStack,
  SlaAlerts,
  SlaPlannedDeployment,
} from '../../src/cdk8s';
import { esmModelErrors } from '../support/manifests';

const chart = () => new Chart(Testing.app(), 'c', { namespace: 'serving' });

test('GrafanaDashboard: a ConfigMap for the Grafana sidecar, in monitoring by default', () => {
  const c = chart();
  new GrafanaDashboard(c, 'dynamo-planner', { dashboard: Dashboards.planner() });
  const [cm] = Testing.synth(c);
  expect(cm.metadata).toEqual({ name: 'dynamo-planner', namespace: 'monitoring', labels: { grafana_dashboard: '1' } });
  expect(JSON.parse(cm.data['dynamo-planner.json']).uid).toBe('dynamo-constructs-planner');
});

test('SlaAlerts on a graph built component by component take the planner\'s SLA at synth', () => {
  const c = chart();
  const graph = new DynamoGraph(c, 'llm', { model: 'm', backend: Backend.vllm(), fabric: Fabric.rdma() });
  const alerts = new SlaAlerts(c, 'alerts', { deployment: graph, forDuration: '10m' });
  // components added after the alerts still count: the rule renders at synth
  new Frontend(graph, 'Frontend');
  new PrefillWorker(graph, 'VllmPrefillWorker');
  new DecodeWorker(graph, 'VllmDecodeWorker');
  new Planner(graph, 'Planner', { ttftMs: 400, itlMs: 40 });
  const rule = Testing.synth(c).find((o) => o.kind === 'PrometheusRule');
  expect(rule.metadata).toEqual({ name: 'llm-sla', namespace: 'serving', labels: { release: 'prometheus' } });
  expect(rule.spec.groups[0].rules[0].expr).toMatch(/ > 0\.4$/);
  expect(rule.spec.groups[0].rules[0].for).toBe('10m');
  expect(alerts.apiObjects).toHaveLength(1);
  expect(esmModelErrors([rule])).toEqual([[]]);
});

test('SlaAlerts without an SLA to take fail at synth with a DynamoValidationError', () => {
  const c = chart();
  const graph = new DynamoGraph(c, 'llm', { model: 'm', backend: Backend.vllm() });
  new Frontend(graph, 'Frontend');
  new PrefillWorker(graph, 'VllmPrefillWorker');
  new DecodeWorker(graph, 'VllmDecodeWorker');
  new SlaAlerts(c, 'alerts', { deployment: graph });
  expect(() => Testing.synth(c)).toThrow(DynamoValidationError);
});

test('observability on a deployment adds dashboards, the PrometheusRule and PodMonitors, all valid', () => {
  const c = chart();
  const prometheus = new PrometheusStack(c, 'prometheus', { releaseName: 'kps', install: HelmInstall.none() });
  const d = new DisaggregatedDeployment(c, 'llm', {
    model: 'm',
    backend: Backend.vllm(),
    fabric: Fabric.rdma(),
    prefill: {},
    decode: {},
    planner: { ttftMs: 300, itlMs: 30 },
    observability: { podMonitors: true, prometheus },
  });
  const out = Testing.synth(c);
  expect(out.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
    // the 1.x planner's config, applied before the graph that mounts it
    'ConfigMap/serving/llm-planner-config',
    'DynamoGraphDeployment/serving/llm',
    'ConfigMap/monitoring/llm-serving-dashboard',
    'ConfigMap/monitoring/llm-planner-dashboard',
    'PrometheusRule/serving/llm-sla',
    'PodMonitor/serving/llm-frontend',
    'PodMonitor/serving/llm-worker',
    'PodMonitor/serving/llm-planner',
  ]);
  expect(out.find((o) => o.kind === 'PrometheusRule').metadata.labels).toEqual({ release: 'kps' });
  expect(d.apiObjects.map((o) => o.kind)).toContain('PrometheusRule');
  const monitoring = out.filter((o) => o.apiVersion === 'monitoring.coreos.com/v1');
  expect(esmModelErrors(monitoring)).toEqual(monitoring.map(() => []));
});

test('an SLA-planned deployment\'s observability follows the generated graph', () => {
  const c = chart();
  const req = new SlaPlannedDeployment(c, 'req', {
    model: 'm',
    backend: Backend.vllm(),
    sla: { isl: 100, osl: 10, ttftMs: 300, itlMs: 30 },
    deploymentOverrides: { name: 'vllm-disagg' },
    observability: {},
  });
  new PodMonitors(c, 'monitors', { deployment: req });
  const names = Testing.synth(c).map((o) => `${o.kind}/${o.metadata.name}`);
  expect(names).toEqual([
    'DynamoGraphDeploymentRequest/req',
    'ConfigMap/vllm-disagg-serving-dashboard',
    'ConfigMap/vllm-disagg-planner-dashboard',
    'PrometheusRule/vllm-disagg-sla',
    'PodMonitor/vllm-disagg-frontend',
    'PodMonitor/vllm-disagg-worker',
    'PodMonitor/vllm-disagg-planner',
  ]);
});

test('DynamoPlatform can add cluster-wide PodMonitors', () => {
  const c = chart();
  new DynamoPlatform(c, 'platform', { install: HelmInstall.none(), podMonitors: true });
  const out = Testing.synth(c);
  expect(out.map((o) => [o.metadata.name, o.metadata.namespace, o.spec.namespaceSelector])).toEqual([
    ['dynamo-frontend', 'dynamo-system', { any: true }],
    ['dynamo-worker', 'dynamo-system', { any: true }],
    ['dynamo-planner', 'dynamo-system', { any: true }],
  ]);
});
