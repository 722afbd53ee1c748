import {
  Backend,
  Dashboards,
  dashboardQueries,
  disaggregatedGraphSpec,
  DynamoValidationError,
  Fabric,
  observedGraphOf,
  renderDashboardConfigMap,
  renderObservability,
  renderPodMonitors,
  renderSlaAlerts,
  renderSlaPlanned,
  checkDeployment,
  Diagnostics,
} from '../../src/core/internal';
import { esmModelErrors } from '../support/manifests';
import { RELEASES } from '../../src/core/releases/versions';
import { metricNames, promqlErrors, referenceServingMetrics } from '../support/promql';

const SLA = { ttftMs: 300, itlMs: 30 };
const HISTOGRAM_SERIES = /_(bucket|sum|count)$/;

function issues(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof DynamoValidationError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  throw new Error('expected a DynamoValidationError');
}

/** A version of each release line the versions table supports. */
const VERSIONS = Object.keys(RELEASES).map((line) => `${line}.0`);
const plannerMetricsOf = (line: string): string[] => {
  const { correctionFactors, estimatedLatency, ...names } = RELEASES[line].metrics.planner;
  return [...Object.values(names), ...Object.values(correctionFactors ?? {}), ...Object.values(estimatedLatency ?? {})];
};
const lineOf = (version: string) => version.split('.').slice(0, 2).join('.');

describe.each(VERSIONS.flatMap((v) => [
  [`planner ${v}`, v, () => Dashboards.planner({ sla: SLA, dynamoVersion: v })] as const,
  [`serving ${v}`, v, () => Dashboards.serving({ sla: SLA, dynamoVersion: v })] as const,
]))('%s dashboard', (_name, version, build) => {
  const dashboard = build();
  const queries = dashboardQueries(dashboard);

  test('every query parses as PromQL (Grafana variables substituted)', () => {
    expect(queries.length).toBeGreaterThan(8);
    for (const q of queries) expect(promqlErrors(q)).toEqual([]);
  });

  test('every metric is one its release names: its planner and KV gauges (versions table), the frontend\'s (reference.md)', () => {
    const release = RELEASES[lineOf(version)];
    // `up` is Prometheus's own, one per target
    const known = new Set([...plannerMetricsOf(release.line), ...Object.values(release.metrics.kvCache ?? {}), ...referenceServingMetrics(), 'up']);
    for (const metric of queries.flatMap(metricNames)) {
      expect({ metric, known: known.has(metric.replace(HISTOGRAM_SERIES, '')) }).toEqual({ metric, known: true });
    }
  });

  test('the JSON round-trips: what the ConfigMap holds is the SDK\'s dashboard model', () => {
    const configMap = renderDashboardConfigMap('d', 'monitoring', dashboard);
    expect(JSON.parse(configMap.data['d.json'])).toEqual(JSON.parse(JSON.stringify(dashboard)));
    expect(JSON.parse(JSON.stringify(dashboard))).toEqual(dashboard);
    expect(configMap.metadata.labels).toEqual({ grafana_dashboard: '1' });
    expect(renderDashboardConfigMap('d', 'monitoring', build()).data['d.json']).toBe(configMap.data['d.json']);
  });

  test('has a namespace variable; panels use the data source variable', () => {
    expect(dashboard.templating!.list!.map((v) => v.name)).toEqual(expect.arrayContaining(['datasource', 'namespace']));
    for (const panel of dashboard.panels!.filter((p) => p.type !== 'row')) {
      expect((panel as { datasource?: unknown }).datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
    }
  });
});

test.each(Object.keys(RELEASES))('the %s planner dashboard reads each planner metric of its release and none of another line', (line) => {
  const dashboard = Dashboards.planner({ dynamoVersion: `${line}.0` });
  const used = new Set(dashboardQueries(dashboard).flatMap(metricNames));
  const own = plannerMetricsOf(line);
  expect(own.length).toBe(16);
  expect(own.filter((m) => !used.has(m))).toEqual([]);
  const others = Object.keys(RELEASES).flatMap(plannerMetricsOf).filter((m) => !own.includes(m));
  expect(others.filter((m) => used.has(m))).toEqual([]);
  const titles = dashboard.panels!.map((p) => p.title);
  expect(titles).toEqual(expect.arrayContaining(['Worker counts', 'GPU-hours', 'Scaling decisions', 'TTFT', 'ITL']));
  // 0.8/0.9 planners publish correction factors; 1.x planners the latency they estimate instead
  expect(titles.includes('Correction factors')).toBe(line.startsWith('0.'));
  const ttft = dashboard.panels!.find((p) => p.title === 'TTFT') as unknown as { targets: { legendFormat: string }[] };
  expect(ttft.targets.map((t) => t.legendFormat)).toEqual(line.startsWith('0.') ? ['observed'] : ['observed', 'estimated at the chosen replicas']);
});

test('the serving dashboard has KV cache panels where the release publishes KV gauges (not 0.9), with that release\'s names', () => {
  const kvPanels = (version: string) =>
    Dashboards.serving({ sla: SLA, dynamoVersion: version }).panels!.filter((p) => /KV cache|Prefix cache/.test(p.title ?? '')).flatMap((p) => dashboardQueries({ panels: [p] } as any).flatMap(metricNames));
  expect(kvPanels('0.8.1')).toEqual(['dynamo_component_kvstats_gpu_cache_usage_percent', 'dynamo_component_kvstats_gpu_prefix_cache_hit_rate']);
  expect(kvPanels('0.9.0')).toEqual([]);
  expect(kvPanels('1.6.1')).toEqual(['dynamo_component_gpu_cache_usage_percent', 'dynamo_component_kv_cache_hit_rate']);
});

test('a graph\'s dashboards follow the release it runs', () => {
  const spec = (dynamoVersion: string) =>
    disaggregatedGraphSpec('llama', 'serving', { model: 'm', backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {}, planner: { ttftMs: 250, itlMs: 20 }, dynamoVersion });
  const plannerMetrics = (dynamoVersion: string) => {
    const objects = renderObservability(observedGraphOf(spec(dynamoVersion)), {});
    const planner = objects.find((o) => o.metadata.name === 'llama-planner-dashboard') as any;
    return dashboardQueries(JSON.parse(planner.data['llama-planner-dashboard.json'])).flatMap(metricNames);
  };
  expect(plannerMetrics('0.9.0')).toContain('planner:num_p_workers');
  expect(plannerMetrics('1.6.1')).toContain('dynamo_planner_num_prefill_replicas');
  expect(plannerMetrics('1.6.1')).not.toContain('planner:num_p_workers');
});

test('the serving dashboard draws the SLA targets as thresholds on the TTFT and ITL panels', () => {
  const thresholds = (title: string) => {
    const panel = Dashboards.serving({ sla: { ttftMs: 450, itlMs: 12.5 } }).panels!.find((p) => p.title === title) as any;
    return { unit: panel.fieldConfig.defaults.unit, steps: panel.fieldConfig.defaults.thresholds.steps, style: panel.fieldConfig.defaults.custom.thresholdsStyle };
  };
  expect(thresholds('Time to first token')).toEqual({ unit: 's', steps: [{ value: null, color: 'green' }, { value: 0.45, color: 'red' }], style: { mode: 'line' } });
  expect(thresholds('Inter-token latency')).toEqual({ unit: 's', steps: [{ value: null, color: 'green' }, { value: 0.0125, color: 'red' }], style: { mode: 'line' } });
});

test('dashboard options are checked', () => {
  expect(issues(() => Dashboards.serving({} as any))).toEqual(['sla: is required: { ttftMs, itlMs }']);
  expect(issues(() => Dashboards.planner({ uid: 'has spaces', sla: { ttftMs: 0, itlMs: 1 } }))).toEqual([
    'uid: must be at most 40 letters, digits, \'-\' or \'_\' (Grafana\'s limit), got "has spaces"',
    'sla.ttftMs: must be a number > 0, got 0',
  ]);
  expect(issues(() => Dashboards.planner({ dynamoVersion: '0.7.0' }))[0]).toMatch(/^dynamoVersion: Dynamo "0.7.0" is not supported; supported releases are 0.8.x, 0.9.x, 1.4.x/);
});

describe('SLA alerts', () => {
  const spec = disaggregatedGraphSpec('llama', 'serving', {
    model: 'm',
    backend: Backend.vllm(),
    fabric: Fabric.rdma(),
    prefill: {},
    decode: {},
    planner: { ttftMs: 250, itlMs: 20 },
  });
  const graph = observedGraphOf(spec);
  const rule = renderSlaAlerts(graph, {}) as any;
  const rules = rule.spec.groups[0].rules;

  test('thresholds come from the planner\'s SLA; every expression parses', () => {
    expect(graph.sla).toEqual({ ttftMs: 250, itlMs: 20 });
    expect(rules.map((r: any) => r.alert)).toEqual(['DynamoTTFTAboveSLA', 'DynamoITLAboveSLA', 'DynamoFrontendErrors', 'DynamoNoWorkers']);
    expect(rules[0].expr).toBe(
      'histogram_quantile(0.95, sum by (le) (rate(dynamo_frontend_time_to_first_token_seconds_bucket{namespace="serving", pod=~"llama-(0-)?frontend-.*"}[5m]))) > 0.25',
    );
    expect(rules[1].expr).toMatch(/dynamo_frontend_inter_token_latency_seconds_bucket.* > 0\.02$/);
    expect(rules[3].expr).toBe('(sum(up{namespace="serving", pod=~"llama-.*", pod!~"llama-(0-)?(frontend|planner)-.*"}) or vector(0)) == 0');
    for (const r of rules) expect(promqlErrors(r.expr)).toEqual([]);
  });

  test('labels and annotations name the deployment and the target', () => {
    expect(rule.metadata).toEqual({ name: 'llama-sla', namespace: 'serving', labels: { release: 'prometheus' } });
    expect(rules[0].labels).toEqual({ severity: 'critical', dynamo_graph: 'llama' });
    expect(rules[0].for).toBe('5m');
    expect(rules[0].annotations.summary).toBe('p95 time to first token of llama in serving is above its 250 ms SLA');
    expect(rules[1].annotations.sla_target).toBe('20 ms');
  });

  test('validates with the prometheus-operator model, as do PodMonitors', () => {
    const monitors = renderPodMonitors({ graph }, { releaseName: 'kps', namespace: 'monitoring' });
    expect(monitors.map((m: any) => [m.metadata.name, m.spec.podMetricsEndpoints[0].port, m.metadata.labels.release])).toEqual([
      ['llama-frontend', 'http', 'kps'],
      ['llama-worker', 'system', 'kps'],
      ['llama-planner', 'metrics', 'kps'],
    ]);
    expect((monitors[1] as any).spec.selector.matchLabels['nvidia.com/dynamo-graph-deployment-name']).toBe('llama');
    const cluster = renderPodMonitors({ namespace: 'dynamo-system' }, undefined);
    expect((cluster[0] as any).spec.namespaceSelector).toEqual({ any: true });
    // the 0.x line's monitors too (one component type each, no relabelings)
    const older = renderPodMonitors({ graph: { ...graph, dynamoVersion: '0.9.0' } }, undefined);
    const all = [rule, ...monitors, ...cluster, ...older];
    expect(esmModelErrors(all)).toEqual(all.map(() => []));
    const broken = { ...rule, spec: { groups: [{ name: 'x', rules: [{ alert: 'A' }] }] } };
    expect(esmModelErrors([broken])[0].join('\n')).toMatch(/expr/);
  });
});

describe('observability on a deployment', () => {
  test('a planned deployment gets serving and planner dashboards and alerts from its planner\'s SLA', () => {
    const spec = disaggregatedGraphSpec('llama', 'serving', { model: 'm', backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {}, planner: { ttftMs: 250, itlMs: 20 } });
    const objects = renderObservability(observedGraphOf(spec), { podMonitors: true, prometheus: { releaseName: 'kps', namespace: 'observability' } });
    expect(objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'ConfigMap/observability/llama-serving-dashboard',
      'ConfigMap/observability/llama-planner-dashboard',
      'PrometheusRule/serving/llama-sla',
      'PodMonitor/serving/llama-frontend',
      'PodMonitor/serving/llama-worker',
      'PodMonitor/serving/llama-planner',
    ]);
  });

  test('an SLA request takes its alert thresholds from sla', () => {
    const { observability } = renderSlaPlanned('req', 'ns', {
      model: 'm',
      backend: Backend.vllm(),
      sla: { isl: 100, osl: 10, ttftMs: 300, itlMs: 30 },
      deploymentOverrides: { name: 'vllm-disagg' },
      observability: { dashboards: false },
    });
    expect(observability.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['PrometheusRule/vllm-disagg-sla']);
    expect((observability[0] as any).spec.groups[0].rules[0].expr).toMatch(/pod=~"vllm-disagg-\(0-\)\?frontend-\.\*"\}\[5m\]\)\)\) > 0\.3$/);
  });

  test('the SLA cannot drift from the planner\'s, and is required without one', () => {
    const planned = disaggregatedGraphSpec('g', 'ns', { model: 'm', backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {}, planner: { ttftMs: 250, itlMs: 20 } });
    expect(issues(() => {
      const d = new Diagnostics();
      checkDeployment(d, planned, { sla: { ttftMs: 300, itlMs: 20 } });
      d.throwIfErrors();
    })).toEqual(['observability.sla: is 300 ms TTFT / 20 ms ITL, but the deployment is planned for 250 / 20; leave sla out so alerts follow the planned SLA']);
    const unplanned = disaggregatedGraphSpec('g', 'ns', { model: 'm', backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {} });
    expect(issues(() => {
      const d = new Diagnostics();
      checkDeployment(d, unplanned, {});
      d.throwIfErrors();
    })).toEqual(['observability.sla: is required: { ttftMs, itlMs }, since the deployment has no planner or SLA request to take it from']);
  });
});
