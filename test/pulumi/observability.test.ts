import * as pulumi from '@pulumi/pulumi';
import { Backend, Dashboards, DisaggregatedDeployment, Fabric, GrafanaDashboard, PodMonitors, SlaAlerts } from '../../src/pulumi';
import { PulumiRecorder } from '../support/pulumi';

const recorder = new PulumiRecorder();
beforeAll(() => recorder.install());
beforeAll(() => jest.spyOn(pulumi.log, 'warn').mockImplementation(() => Promise.resolve()));
beforeEach(() => recorder.clear());

test('GrafanaDashboard, SlaAlerts and PodMonitors register the objects core renders', async () => {
  const d = new DisaggregatedDeployment('llm', { namespace: 'serving', model: 'm', backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {}, planner: { ttftMs: 300, itlMs: 30 } });
  new GrafanaDashboard('planner-dashboard', { dashboard: Dashboards.planner() });
  new SlaAlerts('llm-alerts', { deployment: d });
  new PodMonitors('llm-monitors', { deployment: d });
  await recorder.settle();
  const byType = (t: string) => recorder.registrations.filter((r) => r.type === t);
  expect(byType('kubernetes:core/v1:ConfigMap').map((r) => r.inputs.metadata)).toEqual([
    { name: 'planner-dashboard', namespace: 'monitoring', labels: { grafana_dashboard: '1' } },
    // the 1.x planner's config
    { name: 'llm-planner-config', namespace: 'serving' },
  ]);
  const [rule] = byType('kubernetes:monitoring.coreos.com/v1:PrometheusRule');
  expect(rule.inputs.metadata).toEqual({ name: 'llm-sla', namespace: 'serving', labels: { release: 'prometheus' } });
  expect(rule.inputs.spec.groups[0].rules[0].expr).toMatch(/ > 0\.3$/);
  expect(byType('kubernetes:monitoring.coreos.com/v1:PodMonitor').map((r) => r.inputs.metadata.name).sort()).toEqual(['llm-frontend', 'llm-planner', 'llm-worker']);
  for (const r of recorder.registrations.filter((x) => x.type.startsWith('dynamo-constructs:index:') && ['GrafanaDashboard', 'SlaAlerts', 'PodMonitors'].some((n) => x.type.endsWith(n)))) {
    expect(recorder.outputsRegistered.has(r.urn)).toBe(true);
  }
});
