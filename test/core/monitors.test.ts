import { Testing } from 'cdk8s';
import {
  aggregatedGraphSpec,
  Backend,
  checkGraphManifest,
  checkPodMonitorOptions,
  disaggregatedGraphSpec,
  DynamoValidationError,
  dynamoPlatformModel,
  Fabric,
  GraphSpec,
  KUBE_PROMETHEUS_STACK_VERSION,
  manifestPath,
  ObservedGraph,
  observedGraphOf,
  PlannerOptions,
  prometheusStackModel,
  renderGraph,
  renderObservability,
  renderPodMonitors,
  validate,
} from '../../src/core/internal';
import { DisaggregatedDeployment, PodMonitors } from '../../src/cdk8s';
import { lintSources } from '../../src/cli/lint/lint';
import { RELEASES } from '../../src/core/releases/versions';
import { lintCrds } from '../support/crd';
import { toYaml } from '../support/manifests';

/**
 * The PodMonitors the library writes, read against Dynamo's platform chart of each release line
 * (../shared/reference/sla-loop.md, reference.md section f) and against the pods Dynamo's operator
 * creates; and the rules `dynamo-constructs lint` runs on monitors given with a graph.
 */

const LINES_1X = Object.keys(RELEASES).filter((l) => !l.startsWith('0.'));
const LINES_0X = Object.keys(RELEASES).filter((l) => l.startsWith('0.'));
const MONITOR_RULES = ['planner-scrape-window', 'planner-namespace-label', 'podmonitor-worker-types'];

type Labels = Record<string, string>;

/** Kubernetes label selector semantics, written here from the API's definition to read the monitors with. */
function selectorMatches(selector: any, labels: Labels): boolean {
  const byLabel = Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpression = (selector?.matchExpressions ?? []).every((e: any) => {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    if (e.operator === 'In') return has && e.values.includes(labels[e.key]);
    if (e.operator === 'NotIn') return !has || !e.values.includes(labels[e.key]);
    if (e.operator === 'Exists') return has;
    if (e.operator === 'DoesNotExist') return !has;
    throw new Error(`unknown operator ${e.operator}`);
  });
  return byLabel && byExpression;
}

/** The labels Dynamo's operator gives a pod of a component. */
const pod = (graph: string, type: string): Labels => ({
  'nvidia.com/dynamo-graph-deployment-name': graph,
  'nvidia.com/dynamo-component-type': type,
  'nvidia.com/metrics-enabled': 'true',
  'nvidia.com/dynamo-namespace': `ns-${graph}`,
});

const spec = (dynamoVersion: string, planner?: Partial<PlannerOptions>, name = 'llm'): GraphSpec =>
  disaggregatedGraphSpec(name, 'ns', {
    dynamoVersion,
    model: 'meta-llama/Llama-3.3-70B-Instruct',
    backend: Backend.vllm(),
    fabric: Fabric.rdma(),
    prefill: { tensorParallelSize: 2 },
    decode: { tensorParallelSize: 2 },
    ...(planner ? { planner: { ttftMs: 200, itlMs: 20, maxGpuBudget: 16, ...planner } } : {}),
  });

const byName = (monitors: any[], suffix: string) => monitors.find((m) => m.metadata.name.endsWith(`-${suffix}`));
const endpoint = (monitor: any) => monitor.spec.podMetricsEndpoints[0];
const intervals = (monitors: any[]) => [...new Set(monitors.map((m) => endpoint(m).interval))];

describe.each(LINES_1X)('the %s.x monitors, as the 1.x platform chart writes them', (line) => {
  const version = `${line}.0`;
  const monitors: any[] = renderPodMonitors({ graph: observedGraphOf(spec(version, {})) }, undefined);
  const cluster: any[] = renderPodMonitors({ namespace: 'dynamo-system', dynamoVersion: version }, undefined);

  test('each pod type is selected by its monitor, within the graph: workers of type worker, prefill and decode', () => {
    const types = { frontend: ['frontend'], worker: ['worker', 'prefill', 'decode'], planner: ['planner'] };
    for (const [component, selected] of Object.entries(types)) {
      for (const type of ['frontend', 'worker', 'prefill', 'decode', 'planner']) {
        expect({ component, type, selects: selectorMatches(byName(monitors, component).spec.selector, pod('llm', type)) }).toEqual({ component, type, selects: selected.includes(type) });
        expect({ component, type, cluster: selectorMatches(byName(cluster, component).spec.selector, pod('other', type)) }).toEqual({ component, type, cluster: selected.includes(type) });
      }
      // another graph's pods, and pods whose metrics are turned off, are not
      expect(selectorMatches(byName(monitors, component).spec.selector, pod('other', selected[0]))).toBe(false);
      expect(selectorMatches(byName(monitors, component).spec.selector, { ...pod('llm', selected[0]), 'nvidia.com/metrics-enabled': 'false' })).toBe(false);
    }
  });

  test('the frontend series get dynamo_namespace from the pod label, the scraped labels kept; workers their component type', () => {
    const frontend = endpoint(byName(monitors, 'frontend'));
    expect([frontend.port, frontend.path, frontend.honorLabels]).toEqual(['http', '/metrics', true]);
    // Prometheus turns a pod label into __meta_kubernetes_pod_label_<name, non-alphanumerics as _>
    const meta = (label: string) => `__meta_kubernetes_pod_label_${label.replace(/[./-]/g, '_')}`;
    expect(frontend.relabelings).toEqual([{ action: 'replace', sourceLabels: [meta('nvidia.com/dynamo-namespace')], targetLabel: 'dynamo_namespace' }]);
    const worker = endpoint(byName(monitors, 'worker'));
    expect([worker.port, worker.path, worker.honorLabels]).toEqual(['system', '/metrics', undefined]);
    expect(worker.relabelings).toEqual([{ action: 'replace', sourceLabels: [meta('nvidia.com/dynamo-component-type')], targetLabel: 'dynamo_component_type' }]);
    const planner = endpoint(byName(monitors, 'planner'));
    expect([planner.port, planner.path, planner.relabelings]).toEqual(['metrics', '/metrics', undefined]);
  });

  test('every 5 s, in the graph\'s namespace; cluster-wide ones in every namespace', () => {
    expect(intervals(monitors)).toEqual(['5s']);
    expect(intervals(cluster)).toEqual(['5s']);
    expect(monitors.map((m) => [m.metadata.namespace, m.spec.namespaceSelector])).toEqual(monitors.map(() => ['ns', undefined]));
    expect(cluster.map((m) => m.spec.namespaceSelector)).toEqual(cluster.map(() => ({ any: true })));
  });
});

describe.each(LINES_0X)('the %s.x monitors, as the 0.x platform chart writes them', (line) => {
  const version = `${line}.0`;
  const monitors: any[] = renderPodMonitors({ graph: observedGraphOf(spec(version, {})) }, undefined);

  test('one component type each (0.x pods of prefill and decode workers are of type worker), every 30 s; the frontend series get dynamo_namespace', () => {
    for (const [component, type, port] of [['frontend', 'frontend', 'http'], ['worker', 'worker', 'system'], ['planner', 'planner', 'metrics']]) {
      const m = byName(monitors, component);
      expect(m.spec.selector).toEqual({ matchLabels: { 'nvidia.com/dynamo-graph-deployment-name': 'llm', 'nvidia.com/dynamo-component-type': type, 'nvidia.com/metrics-enabled': 'true' } });
      // the 0.9 planner keeps only frontend series whose dynamo_namespace is its own, which the 0.9.0 frontend
      // does not export (measured by rehearse --sla: without the label the planner saw no requests at 3x capacity)
      const relabel = component === 'frontend'
        ? { honorLabels: true, relabelings: [{ action: 'replace', sourceLabels: ['__meta_kubernetes_pod_label_nvidia_com_dynamo_namespace'], targetLabel: 'dynamo_namespace' }] }
        : {};
      expect(endpoint(m)).toEqual({ port, path: '/metrics', interval: '30s', ...relabel });
    }
    expect(intervals(renderPodMonitors({ namespace: 'dynamo-system', dynamoVersion: version }, undefined))).toEqual(['30s']);
    // a planner that adjusts faster than every minute is scraped at half its interval
    expect(intervals(renderPodMonitors({ graph: observedGraphOf(spec(version, { adjustmentIntervalSeconds: 40 })) }, undefined))).toEqual(['20s']);
  });
});

test('a graph without a planner gets no planner monitor; the platform\'s cluster-wide ones always have one, in the namespaces its operator manages', () => {
  const unplanned = renderPodMonitors({ graph: observedGraphOf(spec('1.6.1')) }, undefined);
  expect(unplanned.map((m) => m.metadata.name)).toEqual(['llm-frontend', 'llm-worker']);
  expect(dynamoPlatformModel({ podMonitors: true }).podMonitors.map((m) => m.metadata.name)).toEqual(['dynamo-frontend', 'dynamo-worker', 'dynamo-planner']);
  const restricted: any[] = [...dynamoPlatformModel({ podMonitors: true, restrictToNamespace: 'team-a' }).podMonitors];
  expect(restricted.map((m) => m.spec.namespaceSelector)).toEqual(restricted.map(() => ({ matchNames: ['team-a'] })));
});

describe('the scrape interval follows the planner', () => {
  const intervalFor = (version: string, adjustmentIntervalSeconds?: number) =>
    intervals(renderPodMonitors({ graph: observedGraphOf(spec(version, adjustmentIntervalSeconds === undefined ? {} : { adjustmentIntervalSeconds })) }, undefined));

  test('at most half the adjustment interval, in whole seconds; never slower than the line\'s default', () => {
    expect(intervalFor('1.6.1', 6)).toEqual(['3s']);
    expect(intervalFor('1.6.1', 7)).toEqual(['3s']);
    expect(intervalFor('1.6.1', 60)).toEqual(['5s']);
    expect(intervalFor('1.6.1')).toEqual(['5s']);
    expect(intervalFor('0.9.0', 30)).toEqual(['15s']);
    expect(intervalFor('0.9.0', 120)).toEqual(['30s']);
    // no whole second fits twice in 1 s: the shortest interval the option takes
    expect(intervalFor('1.6.1', 1)).toEqual(['1s']);
  });

  test('every window of two seconds or more holds two scrapes', () => {
    for (const line of Object.keys(RELEASES)) {
      for (let w = 2; w <= 200; w++) {
        const [interval] = intervalFor(`${line}.0`, w);
        const seconds = Number(interval.replace(/s$/, ''));
        expect({ line, w, fits: 2 * seconds <= w && seconds >= 1 && seconds <= RELEASES[line].monitoring.scrapeIntervalSeconds }).toEqual({ line, w, fits: true });
      }
    }
  });
});

describe('scrapeIntervalSeconds', () => {
  const graph = (adjustmentIntervalSeconds?: number): ObservedGraph => observedGraphOf(spec('1.6.1', adjustmentIntervalSeconds === undefined ? {} : { adjustmentIntervalSeconds }));
  const issues = (o: unknown, g: ObservedGraph | undefined) => {
    try {
      validate((d) => checkPodMonitorOptions(d, '', o as never, g));
      return [];
    } catch (e) {
      if (e instanceof DynamoValidationError) return e.issues.map((i) => `${i.path}: ${i.message} [${i.rule}]`);
      throw e;
    }
  };

  test('a value that leaves the planner\'s window under two scrapes is an error naming both', () => {
    expect(issues({ scrapeIntervalSeconds: 5 }, graph(6))).toEqual([
      "scrapeIntervalSeconds: is 5, but the planner's adjustment interval is 6 s: its increase(...[6s]) queries need at least two scrapes in each window, so scrapeIntervalSeconds may be at most 3; lower it, or raise the planner's adjustmentIntervalSeconds to at least 10 [option-conflict]",
    ]);
    expect(issues({ scrapeIntervalSeconds: 91 }, graph())).toEqual([
      "scrapeIntervalSeconds: is 91, but the planner's adjustment interval is 180 s (the planner's default): its increase(...[180s]) queries need at least two scrapes in each window, so scrapeIntervalSeconds may be at most 90; lower it, or raise the planner's adjustmentIntervalSeconds to at least 182 [option-conflict]",
    ]);
    expect(issues({ scrapeIntervalSeconds: 1 }, graph(1))).toEqual([
      "scrapeIntervalSeconds: is 1, but the planner's adjustment interval is 1 s: its increase(...[1s]) queries need at least two scrapes in each window, which no whole-second interval gives; raise the planner's adjustmentIntervalSeconds to at least 2 [option-conflict]",
    ]);
  });

  test('what fits is taken and rendered; without a planner any whole number of seconds is', () => {
    expect(issues({ scrapeIntervalSeconds: 3 }, graph(6))).toEqual([]);
    expect(issues({ scrapeIntervalSeconds: 90 }, graph())).toEqual([]);
    expect(issues({ scrapeIntervalSeconds: 120 }, observedGraphOf(spec('1.6.1')))).toEqual([]);
    expect(intervals(renderPodMonitors({ graph: graph(6) }, undefined, { scrapeIntervalSeconds: 2 }))).toEqual(['2s']);
  });

  test('a value that is not a whole number of seconds, an unknown key and an unknown release are errors', () => {
    expect(issues({ scrapeIntervalSeconds: 2.5 }, graph(6))).toEqual(['scrapeIntervalSeconds: must be a whole number of seconds >= 1, got 2.5 [value-range]']);
    expect(issues({ scrapeIntervalSeconds: '5s' }, undefined)).toEqual(['scrapeIntervalSeconds: must be a whole number of seconds >= 1, got "5s" [value-range]']);
    expect(issues({ interval: '5s' }, undefined)).toEqual(['interval: is not a known option; known options are scrapeIntervalSeconds [unknown-option]']);
    // a graph of a release the library has no monitors for is an error, not a crash
    expect(issues({}, { ...graph(6), dynamoVersion: '0.5.0' })).toEqual([expect.stringMatching(/^deployment\.dynamoVersion: Dynamo "0\.5\.0" is not supported; .*\[unknown-version\]$/)]);
  });

  test('the PodMonitors construct checks it against the deployment\'s planner', () => {
    const chart = Testing.chart();
    const deployment = new DisaggregatedDeployment(chart, 'llm', {
      model: 'meta-llama/Llama-3.3-70B-Instruct',
      backend: Backend.vllm(),
      fabric: Fabric.rdma(),
      prefill: { tensorParallelSize: 2 },
      decode: { tensorParallelSize: 2 },
      planner: { ttftMs: 200, itlMs: 20, maxGpuBudget: 16, adjustmentIntervalSeconds: 8 },
    });
    expect(() => new PodMonitors(chart, 'slow', { deployment, scrapeIntervalSeconds: 5 })).toThrow(/scrapeIntervalSeconds: is 5, but the planner's adjustment interval is 8 s/);
    new PodMonitors(chart, 'fits', { deployment, scrapeIntervalSeconds: 4 });
    const monitors = Testing.synth(chart).filter((o) => o.kind === 'PodMonitor');
    expect(intervals(monitors)).toEqual(['4s']);
  });
});

/** What the rules report for a graph and the objects given with it, as lint prints the paths. */
function findings(graph: unknown, objects: unknown[]): string[] {
  return checkGraphManifest(graph as Record<string, unknown>, objects)
    .filter((f) => MONITOR_RULES.includes(f.rule))
    .map((f) => `${manifestPath(f)} [${f.rule}]`);
}

/** A graph with its planner ConfigMap, and the monitors the library writes for it, edited. */
function planned(version: string, planner: Partial<PlannerOptions>, edit: (monitors: any[]) => void = () => undefined) {
  const s = spec(version, planner);
  const rendered = renderGraph(s);
  const monitors = JSON.parse(JSON.stringify(renderPodMonitors({ graph: observedGraphOf(s) }, undefined)));
  edit(monitors);
  return { graph: rendered.graph, objects: [...rendered.configMaps, ...monitors] as any[] };
}

/** The worker monitor as the 0.x chart selects: component type worker only. */
const workerOnly = (m: any[]) => (m[1].spec.selector = { matchLabels: { 'nvidia.com/dynamo-graph-deployment-name': 'llm', 'nvidia.com/dynamo-component-type': 'worker', 'nvidia.com/metrics-enabled': 'true' } });

const CONFIG_FIELD = 'Planner.podTemplate.spec.containers[main].args[--config](ConfigMap llm-planner-config: planner_config.json).throughput_adjustment_interval_seconds';

describe('lint: monitors against the planner they feed', () => {
  test('our own output: no finding, whatever the release and the adjustment interval; the 0.x chart\'s monitors on a 1.x graph: all three', () => {
    for (const line of Object.keys(RELEASES)) {
      for (const w of [undefined, 2, 3, 6, 10, 30, 60, 180]) {
        const s = spec(`${line}.0`, w === undefined ? {} : { adjustmentIntervalSeconds: w });
        const rendered = renderGraph(s);
        const objects = [...rendered.configMaps, ...renderObservability(observedGraphOf(s), { podMonitors: true })];
        expect({ line, w, found: findings(rendered.graph, objects) }).toEqual({ line, w, found: [] });
        if (line.startsWith('0.') || w !== 30) continue;
        // what the 0.x chart (and this library before) wrote: worker type only, every 30 s, the series as scraped
        const older = objects.map((o: any) => {
          if (o.kind !== 'PodMonitor') return o;
          const m = JSON.parse(JSON.stringify(o));
          m.spec.podMetricsEndpoints = [{ port: endpoint(m).port, path: '/metrics', interval: '30s' }];
          if (m.metadata.name.endsWith('-worker')) workerOnly([undefined, m]);
          return m;
        });
        expect({ line, found: [...new Set(findings(rendered.graph, older).map((x) => x.replace(/^.* \[/, '[')))] }).toEqual({
          line,
          found: ['[planner-scrape-window]', '[planner-namespace-label]', '[podmonitor-worker-types]'],
        });
      }
      const aggregated = aggregatedGraphSpec('agg', 'ns', { dynamoVersion: `${line}.0`, model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), workers: {} });
      const objects = renderObservability(observedGraphOf(aggregated), { podMonitors: true, sla: { ttftMs: 200, itlMs: 20 } });
      expect({ line, found: findings(renderGraph(aggregated).graph, objects) }).toEqual({ line, found: [] });
    }
  });

  test('a window under twice the scrape interval, read from the 1.x PlannerConfig in its ConfigMap or from the 0.x flag', () => {
    // the 1.x chart's 5 s monitors under a planner that adjusts every 6 s
    const fast = planned('1.6.1', { adjustmentIntervalSeconds: 6 }, (m) => m.forEach((x) => (endpoint(x).interval = '5s')));
    expect(findings(fast.graph, fast.objects)).toEqual([`${CONFIG_FIELD} [planner-scrape-window]`]);
    // the planner's default window (180 s) under a 2 minute scrape
    const slow = planned('1.6.1', {}, (m) => (endpoint(m[0]).interval = '2m'));
    const message = checkGraphManifest(slow.graph as never, slow.objects).find((f) => f.rule === 'planner-scrape-window')!.message;
    expect(message).toMatch(/^is 180 s \(the planner's default\), under twice the 120 s scrape interval of PodMonitor\/llm-frontend\.spec\.podMetricsEndpoints\[0\], which scrapes Frontend: .* Scrape the frontend every 90 s or less \(interval: "90s"\), or raise the adjustment interval to at least 240 s$/);
    // a monitor with no interval scrapes at Prometheus's default, 30 s
    const unset = planned('0.9.0', { adjustmentIntervalSeconds: 30 }, (m) => delete endpoint(m[0]).interval);
    expect(findings(unset.graph, unset.objects)).toEqual(['Planner.extraPodSpec.mainContainer.args[--adjustment-interval] [planner-scrape-window]']);
  });

  test('only monitors that scrape the frontend\'s pods count: another graph\'s, another namespace\'s, another port', () => {
    const slow = (edit: (m: any) => void) => planned('0.9.0', { adjustmentIntervalSeconds: 30 }, (m) => {
      endpoint(m[0]).interval = '30s';
      edit(m[0]);
    });
    const cases: Record<string, (m: any) => void> = {
      'another graph': (m) => (m.spec.selector.matchLabels['nvidia.com/dynamo-graph-deployment-name'] = 'other'),
      'another namespace': (m) => (m.metadata.namespace = 'elsewhere'),
      'another port': (m) => (endpoint(m).port = 'system'),
      'pods with metrics turned off': (m) => (m.spec.selector.matchLabels['nvidia.com/metrics-enabled'] = 'false'),
    };
    for (const [name, edit] of Object.entries(cases)) {
      const { graph, objects } = slow(edit);
      expect({ name, found: findings(graph, objects) }).toEqual({ name, found: [] });
    }
    // the same monitor, looking in every namespace: it scrapes them again
    const everywhere = slow((m) => {
      m.metadata.namespace = 'elsewhere';
      m.spec.namespaceSelector = { any: true };
    });
    expect(findings(everywhere.graph, everywhere.objects)).toEqual(['Planner.extraPodSpec.mainContainer.args[--adjustment-interval] [planner-scrape-window]']);
  });

  test('the planner\'s window is not judged where the objects do not hold it', () => {
    const { graph, objects } = planned('1.6.1', { adjustmentIntervalSeconds: 6 }, (m) => (endpoint(m[0]).interval = '30s'));
    expect(findings(graph, objects)).toEqual([`${CONFIG_FIELD} [planner-scrape-window]`]);
    // without the planner's ConfigMap, its --config file is out of sight
    expect(findings(graph, objects.filter((o) => o.kind !== 'ConfigMap'))).toEqual([]);
  });

  test('the platform\'s cluster-wide monitors feed every graph\'s planner', () => {
    const s = spec('1.6.1', { adjustmentIntervalSeconds: 6 });
    const cluster = dynamoPlatformModel({ podMonitors: true }).podMonitors;
    expect(findings(renderGraph(s).graph, [...renderGraph(s).configMaps, ...cluster])).toEqual([`${CONFIG_FIELD} [planner-scrape-window]`]);
    const fits = spec('1.6.1', { adjustmentIntervalSeconds: 10 });
    expect(findings(renderGraph(fits).graph, [...renderGraph(fits).configMaps, ...cluster])).toEqual([]);
  });

  test('a 1.x planner fed without dynamo_namespace sees nothing; a 0.x planner does not filter on it', () => {
    const strip = (m: any[]) => delete endpoint(m[0]).relabelings;
    const v1 = planned('1.6.1', {}, strip);
    expect(findings(v1.graph, v1.objects)).toEqual(['PodMonitor/llm-frontend.spec.podMetricsEndpoints[0].relabelings [planner-namespace-label]']);
    const v0 = planned('0.9.0', {}, strip);
    expect(findings(v0.graph, v0.objects)).toEqual([]);
    // another monitor of the frontend that adds the label feeds the planner
    const both = planned('1.6.1', {}, (m) => {
      const labelled = JSON.parse(JSON.stringify(m[0]));
      labelled.metadata.name = 'labelled';
      strip(m);
      m.push(labelled);
    });
    expect(findings(both.graph, both.objects)).toEqual([]);
  });
});

describe('lint: monitors that miss a pool of workers', () => {

  test('1.x prefill and decode pods are missed by a monitor of type worker', () => {
    const { graph, objects } = planned('1.6.1', {}, workerOnly);
    expect(findings(graph, objects)).toEqual(['PodMonitor/llm-worker.spec.selector [podmonitor-worker-types]', 'PodMonitor/llm-worker.spec.selector [podmonitor-worker-types]']);
    const messages = checkGraphManifest(graph as never, objects).filter((f) => f.rule === 'podmonitor-worker-types').map((f) => f.message);
    expect(messages.map((m) => /not those of (\w+) \(nvidia.com\/dynamo-component-type: (\w+)\)/.exec(m)!.slice(1))).toEqual([
      ['VllmPrefillWorker', 'prefill'],
      ['VllmDecodeWorker', 'decode'],
    ]);
  });

  test('silent where the pods are of type worker (0.x, 1.x aggregated), and where another monitor scrapes the pool', () => {
    const v1 = planned('1.6.1', {}, workerOnly);
    expect(findings(v1.graph, v1.objects)).toHaveLength(2);
    const v0 = planned('0.9.0', {}, workerOnly);
    expect(findings(v0.graph, v0.objects)).toEqual([]);
    const aggregated = aggregatedGraphSpec('llm', 'ns', { dynamoVersion: '1.6.1', model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), workers: {} });
    const monitors = JSON.parse(JSON.stringify(renderPodMonitors({ graph: observedGraphOf(aggregated) }, undefined)));
    workerOnly(monitors);
    expect(findings(renderGraph(aggregated).graph, monitors)).toEqual([]);
    const split = planned('1.6.1', {}, (m) => {
      workerOnly(m);
      m.push({ ...m[1], metadata: { ...m[1].metadata, name: 'llm-disagg' }, spec: { ...m[1].spec, selector: { matchExpressions: [{ key: 'nvidia.com/dynamo-component-type', operator: 'In', values: ['prefill', 'decode'] }] } } });
    });
    expect(findings(split.graph, split.objects)).toEqual([]);
  });
});

test('malformed PodMonitors are not judged and break nothing; a well-formed one next to them still is', () => {
  const { graph, objects } = planned('1.6.1', { adjustmentIntervalSeconds: 6 }, (m) => (endpoint(m[0]).interval = '1m'));
  const monitor = (name: string, spec: unknown) => ({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor', metadata: { name, namespace: 'ns' }, spec });
  const hostile = [
    monitor('no-spec', null),
    monitor('selector-string', { selector: 'frontend', podMetricsEndpoints: [{ port: 'http', interval: '60s' }] }),
    monitor('bad-expressions', { selector: { matchExpressions: [null, { key: 5 }, { key: 'nvidia.com/dynamo-component-type', operator: 'Near', values: ['frontend'] }] }, podMetricsEndpoints: [{ interval: '60s' }] }),
    monitor('bad-endpoints', { selector: {}, podMetricsEndpoints: 'http' }),
    monitor('bad-fields', { selector: { matchLabels: { constructor: 'x', __proto__: 'y' } }, namespaceSelector: { matchNames: 'ns' }, podMetricsEndpoints: [{ port: 'http', interval: 60, relabelings: 5 }] }),
    monitor('huge-interval', { selector: {}, podMetricsEndpoints: [{ port: 'http', interval: `${'9'.repeat(400)}s`, relabelings: [{ targetLabel: 'dynamo_namespace' }] }] }),
    { apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor', metadata: 'none' },
  ];
  expect(findings(graph, [...objects, ...hostile])).toEqual([`${CONFIG_FIELD} [planner-scrape-window]`]);
});

test('dynamo-constructs lint reports the findings on manifests, and none on the library\'s own', () => {
  const lint = (objects: unknown[]) =>
    lintSources([{ file: 'graph.yaml', text: toYaml(objects) }], { crds: lintCrds() })
      .findings.filter((f) => MONITOR_RULES.includes(f.rule))
      .map((f) => f.rule);
  const good = planned('1.6.1', { adjustmentIntervalSeconds: 60 });
  expect(lint([good.graph, ...good.objects])).toEqual([]);
  // what the platform chart's 0.x monitors looked like, next to a 1.x graph planned every 30 s
  const bad = planned('1.6.1', { adjustmentIntervalSeconds: 30 }, (m) => {
    workerOnly(m);
    m.forEach((x) => {
      endpoint(x).interval = '30s';
      delete endpoint(x).relabelings;
      delete endpoint(x).honorLabels;
    });
  });
  expect(lint([bad.graph, ...bad.objects]).sort()).toEqual(['planner-namespace-label', 'planner-scrape-window', 'podmonitor-worker-types', 'podmonitor-worker-types']);
});

test('PrometheusStack installs the pinned kube-prometheus-stack chart unless told another version', () => {
  expect(KUBE_PROMETHEUS_STACK_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  expect(prometheusStackModel({}).release.chart.version).toBe(KUBE_PROMETHEUS_STACK_VERSION);
  expect(prometheusStackModel({ chartVersion: '78.1.0' }).release.chart.version).toBe('78.1.0');
});
