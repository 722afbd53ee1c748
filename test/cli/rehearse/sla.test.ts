import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { EXAMPLES } from '../../../examples';
import { Dashboards, renderGraph, aggregatedGraphSpec, Backend } from '../../../src/core/internal';
import { run } from '../../../src/cli/main';
import { manifestModel, indexObjects, releaseOf } from '../../../src/core/internal';
import { alertMeasure, metricNames, plannerFlags, plannerSettings, rehearseSla, requestWorkload, SlaRehearseOptions } from '../../../src/cli/rehearse/sla';
import { RehearsalError } from '../../../src/cli/rehearse/plan';
import { localPrometheusConfig, prometheusObject } from '../../../src/cli/rehearse/sla-monitoring';
import { dynamoNamespaceOf, graphComponents, graphStatus, podObject, replicasPatch, scalingAdapter, servedModelPatch, specReplicas, withProjectedStatus } from '../../../src/cli/rehearse/sla-pods';
import { writeRehearsalProfile } from '../../../src/cli/rehearse/sla-profile';
import { plannerSettingsOf, slaLoopOf, SLA_LOOPS } from '../../../src/cli/rehearse/sla-release';
import { DisaggregatedDeployment, Fabric, LoadPredictor, ModelCache, Router } from '../../../src/cdk8s';

/** What `rehearse --sla` computes and refuses before it starts anything (the loop itself runs in test/sla/run.ts). */

const CRD_DIR = resolve(__dirname, '..', '..', '..', '..', 'shared', 'dynamo', 'crds-v1beta1');
function crds() {
  if (!existsSync(CRD_DIR)) throw new Error(`Dynamo's v1beta1 CRDs are not at ${CRD_DIR}; the tests read them from ../shared`);
  return readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml')).map((f) => ({ file: join(CRD_DIR, f), text: readFileSync(join(CRD_DIR, f), 'utf8') }));
}

const example = () => Testing.synth(new EXAMPLES['planned-disaggregated'](Testing.app(), 'p')) as any[];
/** The planned example's props at Dynamo 0.9.0 (as test/sla/run.ts renders it). */
const example09 = (planner: Record<string, unknown> = {}) => {
  const chart = Testing.chart();
  new DisaggregatedDeployment(chart, 'llama-70b', {
    model: 'meta-llama/Llama-3.3-70B-Instruct', backend: Backend.vllm(), dynamoVersion: '0.9.0', hfTokenSecret: 'hf-token-secret',
    modelCache: ModelCache.fromClaim(chart, 'weights', { claimName: 'model-cache' }), fabric: Fabric.rdma(), frontend: { router: Router.kv() },
    prefill: { tensorParallelSize: 2, maxNumSeqs: 4 }, decode: { tensorParallelSize: 4, maxNumSeqs: 512 },
    planner: { ttftMs: 300, itlMs: 30, minEndpoint: 1, maxGpuBudget: 16, adjustmentIntervalSeconds: 60, loadPredictor: LoadPredictor.kalman({ qLevel: 0.1, qTrend: 0.01, r: 1.0 }), ...planner },
    observability: { podMonitors: true },
  });
  return Testing.synth(chart).map((o: any) => ({ ...o, metadata: { ...o.metadata, namespace: o.metadata.namespace ?? 'dynamo-workloads' } })) as any[];
};
const CRD_DIR_0_9 = resolve(__dirname, '..', '..', '..', '..', 'shared', 'dynamo', 'crds');
const crdOf = (file: string, kind: string) => YAML.parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS()).find((d: any) => d?.spec?.names?.kind === kind);
const graphOf = (objects: any[]) => objects.find((o) => o.kind === 'DynamoGraphDeployment');

/** Whether a PodMonitor's selector (matchLabels and matchExpressions) selects a pod's labels. */
function selects(selector: any, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every((e: any) => {
    if (e.operator === 'In') return e.values.includes(labels[e.key]);
    if (e.operator === 'Exists') return e.key in labels;
    throw new Error(`operator ${e.operator} not handled here`);
  });
  return byLabels && byExpressions;
}

describe('pods as the operator would create them', () => {
  const objects = example();
  const dgd = graphOf(objects);
  const components = graphComponents(dgd);
  const ns = dynamoNamespaceOf(dgd.metadata.namespace, dgd.metadata.name);

  test('every component\'s pod is selected by exactly the graph\'s PodMonitor for its type, on the port it names', () => {
    const monitors = objects.filter((o) => o.kind === 'PodMonitor');
    expect(monitors.length).toBe(3);
    for (const c of components) {
      const pod: any = podObject(dgd, c, 0, ns);
      const selecting = monitors.filter((m) => selects(m.spec.selector, pod.metadata.labels));
      expect([c.name, selecting.map((m) => m.metadata.name)]).toEqual([c.name, [`${dgd.metadata.name}-${c.type === 'prefill' || c.type === 'decode' ? 'worker' : c.type}`]]);
      const port = pod.spec.containers[0].ports[0].name;
      expect(selecting[0].spec.podMetricsEndpoints.map((e: any) => e.port)).toContain(port);
    }
  });

  test('labels: graph, component, Dynamo namespace (<namespace>-<graph>), type; the frontend monitor turns the namespace label into dynamo_namespace', () => {
    const frontend = components.find((c) => c.type === 'frontend')!;
    const pod: any = podObject(dgd, frontend, 0, ns);
    expect(pod.metadata.labels).toMatchObject({
      'nvidia.com/dynamo-graph-deployment-name': 'llama-70b',
      'nvidia.com/dynamo-component': 'Frontend',
      'nvidia.com/dynamo-namespace': 'dynamo-workloads-llama-70b',
      'nvidia.com/dynamo-component-type': 'frontend',
      'nvidia.com/metrics-enabled': 'true',
    });
    const monitor = objects.find((o) => o.kind === 'PodMonitor' && o.metadata.name === 'llama-70b-frontend');
    expect(monitor.spec.podMetricsEndpoints[0].relabelings).toContainEqual(expect.objectContaining({ sourceLabels: ['__meta_kubernetes_pod_label_nvidia_com_dynamo_namespace'], targetLabel: 'dynamo_namespace' }));
  });

  test('scaling adapters only for components that ask for one; the status counts replicas and is Ready when all are', () => {
    expect(components.filter((c) => c.scalingAdapter).map((c) => c.name)).toEqual(['VllmPrefillWorker', 'VllmDecodeWorker']);
    expect(scalingAdapter('llama-70b', 'dynamo-workloads', components[1])).toMatchObject({ metadata: { name: 'llama-70b-vllmprefillworker' }, spec: { replicas: 1, dgdRef: { name: 'llama-70b', serviceName: 'VllmPrefillWorker' } } });
    const counts = new Map(components.map((c) => [c.name, { desired: 2, ready: c.type === 'decode' ? 1 : 2 }]));
    const pending: any = graphStatus(3, components, counts, 'llama-70b', ns, '2026-01-01T00:00:00Z', 'm');
    expect(pending.status.conditions[0]).toMatchObject({ type: 'Ready', status: 'False', observedGeneration: 3 });
    expect(pending.status.components.VllmDecodeWorker).toMatchObject({ replicas: 2, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 2, ready: false, servedModelName: 'm', gpusPerEngine: 4 });
    expect(pending.status.components.Frontend.servedModelName).toBeUndefined();
    counts.set('VllmDecodeWorker', { desired: 2, ready: 2 });
    expect((graphStatus(3, components, counts, 'llama-70b', ns, 'now') as any).status.conditions[0].status).toBe('True');
  });

  test('the CRD copy here lacks the status fields 1.6\'s planner reads: they are added, and nothing else changes', () => {
    const dgdCrd = crds().map((c) => YAML.parseAllDocuments(c.text).map((d) => d.toJS())).flat().find((d: any) => d?.spec?.names?.kind === 'DynamoGraphDeployment');
    const { crd, added } = withProjectedStatus(dgdCrd);
    expect(added).toEqual(['servedModelName', 'runtimeComponentName']);
    const v1beta1 = (crd.spec.versions as any[]).find((v) => v.name === 'v1beta1');
    expect(v1beta1.schema.openAPIV3Schema.properties.status.properties.components.additionalProperties.properties.servedModelName).toEqual({ type: 'string' });
    for (const v of crd.spec.versions as any[]) {
      const props = v.schema?.openAPIV3Schema?.properties?.status?.properties?.components?.additionalProperties?.properties;
      if (props) for (const k of added) delete props[k];
    }
    expect(crd).toEqual(dgdCrd);
    expect(withProjectedStatus(crd).added).toEqual(['servedModelName', 'runtimeComponentName']);
  });
});

describe('the operator\'s configuration, run outside the cluster', () => {
  // rendered by the real prometheus-operator v0.85.0 for the planned example's monitors
  const generated = readFileSync(join(__dirname, '..', '..', 'fixtures', 'sla', 'prometheus-operator-v0.85.0-config.yaml'), 'utf8');
  const local = YAML.parse(localPrometheusConfig(generated, { podName: 'prometheus-0', rulesDir: '/run/rules', kubeconfig: '/run/kubeconfig' }));
  const original = YAML.parse(generated);

  test('placeholders filled (the shard keep rule would drop every target), rules read locally, discovery given the kubeconfig', () => {
    expect(JSON.stringify(local)).not.toContain('$(');
    expect(local.global.external_labels.prometheus_replica).toBe('prometheus-0');
    expect(local.rule_files).toEqual(['/run/rules/*.yaml']);
    const shard = local.scrape_configs.flatMap((s: any) => s.relabel_configs).filter((r: any) => r.action === 'keep' && String(r.regex).startsWith('0;'));
    expect(shard.length).toBe(original.scrape_configs.length);
    for (const s of local.scrape_configs) for (const sd of s.kubernetes_sd_configs) expect(sd.kubeconfig_file).toBe('/run/kubeconfig');
  });

  test('nothing else changes', () => {
    const undo = JSON.parse(JSON.stringify(local).replace(/prometheus-0/g, '$(POD_NAME)').replace(/"0;\|/g, '"$(SHARD);|'));
    for (const s of undo.scrape_configs) for (const sd of s.kubernetes_sd_configs) delete sd.kubeconfig_file;
    undo.rule_files = original.rule_files;
    expect(undo).toEqual(original);
  });

  test('the Prometheus object is the chart\'s: every monitor selected, rules by the release label', () => {
    expect(prometheusObject({ release: 'prometheus', namespace: 'monitoring' })).toMatchObject({
      metadata: { name: 'prometheus-kube-prometheus-prometheus', namespace: 'monitoring' },
      spec: { podMonitorSelector: {}, podMonitorNamespaceSelector: {}, ruleSelector: { matchLabels: { release: 'prometheus' } } },
    });
  });
});

test('the PlannerConfig a hostile manifest writes: files, endpoints, plugins and credentials left out and named; scaling settings kept', () => {
  const r = plannerSettings({
    environment: 'kubernetes', mode: 'disagg', ttft_ms: 300, itl_ms: 30, throughput_adjustment_interval_seconds: 60, load_predictor: 'kalman', advisory: false,
    log_dir: '/home/user/.ssh', load_predictor_warmup_trace: '/etc/shadow', metric_pulling_prometheus_token_file: '/root/token', metric_pulling_prometheus_ca_bundle: '/x',
    plugins: { external_plugins: [{ endpoint: 'http://evil' }] }, control_api_port: 1, model_name: 'a\nb', profile_results_dir: '/elsewhere', metric_pulling_prometheus_endpoint: 'http://evil:9090',
  });
  expect(r.kept).toEqual({ environment: 'kubernetes', mode: 'disagg', ttft_ms: 300, itl_ms: 30, throughput_adjustment_interval_seconds: 60, load_predictor: 'kalman', advisory: false });
  expect(r.dropped).toEqual(['log_dir', 'load_predictor_warmup_trace', 'metric_pulling_prometheus_token_file', 'metric_pulling_prometheus_ca_bundle', 'plugins', 'control_api_port', 'model_name']);
});

test('an alert\'s measure: its expression without the threshold, which returns series whether it fires or not', () => {
  const rule = example().find((o) => o.kind === 'PrometheusRule');
  const exprs: Record<string, string> = Object.fromEntries(rule.spec.groups[0].rules.map((r: any) => [r.alert, r.expr]));
  const measures = Object.fromEntries(Object.entries(exprs).map(([k, v]) => [k, alertMeasure(v)]));
  for (const [k, m] of Object.entries(measures)) {
    expect(exprs[k].startsWith(m)).toBe(true);
    expect(exprs[k].slice(m.length)).toMatch(/^\s*(>|==)\s*[0-9.]+$/);
  }
  expect(measures.DynamoNoWorkers).toMatch(/^\(sum\(up\{.*\}\) or vector\(0\)\)$/);
  // comparisons inside selectors, strings and functions stay
  expect(alertMeasure('sum(x{a!="b>1"}) > bool 2')).toBe('sum(x{a!="b>1"})');
  expect(alertMeasure('a > b')).toBe('a > b');
  expect(alertMeasure('rate(x[5m])')).toBe('rate(x[5m])');
});

test('the load\'s sequence lengths come from the SLA request among the files (1.x workload, 0.x profiling SLA), when it has them', () => {
  const request = (Testing.synth(new EXAMPLES['sla-planned'](Testing.app(), 's')) as any[]).filter((o) => o.kind === 'DynamoGraphDeploymentRequest');
  expect(request.length).toBe(1);
  expect(requestWorkload(request)).toEqual({ isl: request[0].spec.workload.isl, osl: request[0].spec.workload.osl });
  expect(requestWorkload(request).isl).toBeGreaterThan(0);
  expect(requestWorkload([{ kind: 'DynamoGraphDeploymentRequest', spec: { profilingConfig: { config: { sla: { isl: 3000, osl: 150 } } } } }])).toEqual({ isl: 3000, osl: 150 });
  expect(requestWorkload([{ kind: 'DynamoGraphDeploymentRequest', spec: { workload: { isl: -1, osl: 'x' } } }])).toEqual({ isl: undefined, osl: undefined });
  expect(requestWorkload(example())).toEqual({ isl: undefined, osl: undefined });
});

test('the metrics a panel reads: selectors and ranges, not functions, labels or strings', () => {
  const serving = Dashboards.serving({ sla: { ttftMs: 300, itlMs: 30 }, dynamoVersion: '1.6.1' });
  const exprs = (serving.panels ?? []).flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
  const names = new Set(exprs.flatMap(metricNames));
  expect(names).toEqual(new Set([
    'dynamo_frontend_requests_total', 'dynamo_component_errors_total', 'up', 'dynamo_frontend_time_to_first_token_seconds', 'dynamo_frontend_inter_token_latency_seconds',
    'dynamo_frontend_input_sequence_tokens', 'dynamo_frontend_output_sequence_tokens', 'dynamo_frontend_inflight_requests', 'dynamo_frontend_queued_requests',
    'dynamo_component_gpu_cache_usage_percent', 'dynamo_component_kv_cache_hit_rate',
  ]));
  expect(metricNames('sum by (le) (rate(x_bucket{a="rate(y[5m])"}[1m]))')).toEqual(['x']);
});

test('the rehearsal\'s engine profile is in the profiler\'s format, ITL meets its target where one replica serves 1 request/s', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sla-profile-'));
  try {
    const p = writeRehearsalProfile(dir, { ttftMs: 300, itlMs: 30, isl: 1000, osl: 100 });
    const prefill = JSON.parse(readFileSync(join(dir, 'prefill_raw_data.json'), 'utf8'));
    const decode = JSON.parse(readFileSync(join(dir, 'decode_raw_data.json'), 'utf8'));
    expect(prefill.prefill_isl.length).toBe(prefill.prefill_ttft.length);
    expect(prefill.prefill_ttft[prefill.prefill_isl.indexOf(1000)]).toBeLessThanOrEqual(300 / 4);
    expect(decode.x_kv_usage.length).toBe(decode.z_itl.length);
    expect(decode.y_context_length.length).toBe(decode.z_itl.length);
    // Little's law at the target: concurrency / (osl x ITL) requests per second
    const usage = (1 - 0.3) / 0.9;
    const concurrency = (usage * decode.max_kv_tokens) / (1000 + 50);
    expect(concurrency / (100 * 0.03)).toBeCloseTo(p.replicaCapacity, 1);
    expect(Math.max(...decode.z_itl)).toBeGreaterThan(30);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('Dynamo 0.9: the same loop, its release\'s row', () => {
  const objects = example09();
  const dgd = graphOf(objects);
  const planner = () => manifestModel(dgd, indexObjects(objects), { release: releaseOf('0.9.0') }).services.find((s) => s.kind === 'planner')!;

  test('the planner runs with the Planner service\'s own scaling flags; Kubernetes mode, the mocker\'s names, Prometheus and the profile are the rehearsal\'s', () => {
    const settings = plannerSettingsOf(SLA_LOOPS['0.9.0'], planner());
    expect([settings.ttftMs, settings.itlMs, settings.intervalSeconds]).toEqual([300, 30, 60]);
    const { args } = settings.argv({ prometheusUrl: 'http://127.0.0.1:9090', profileDir: '/run/profile', configFile: '/run/c.json' });
    const manifestArgs: string[] = dgd.spec.services.Planner.extraPodSpec.mainContainer.args;
    const own = ['--environment', '--backend', '--metric-pulling-prometheus-endpoint', '--profile-results-dir'];
    // every manifest flag but the rehearsal's own passes as written; the rehearsal's come first, once each
    expect(args.slice(8)).toEqual(manifestArgs.filter((a) => !own.includes(a.split('=')[0])));
    expect(args.slice(0, 8)).toEqual(['--environment', 'kubernetes', '--backend', 'mocker', '--metric-pulling-prometheus-endpoint', 'http://127.0.0.1:9090', '--profile-results-dir', '/run/profile']);
    expect(settings.replaced).toEqual(own.filter((f) => manifestArgs.some((a) => a.startsWith(`${f}=`))));
  });

  test('the flags a hostile manifest gives the 0.9 planner: files, endpoints, modes and odd values left out and named', () => {
    const r = plannerFlags(new Map<string, string | true>([
      ['--ttft', '300'], ['--itl', '30.5'], ['--load-predictor', 'kalman'], ['--no-correction', true],
      ['--log-dir', '/home/user/.ssh'], ['--load-predictor-warmup-trace', '/etc/shadow'], ['--namespace', 'other'], ['--no-operation', true],
      ['--metric-reporting-prometheus-port', '22'], ['--max-gpu-budget', '1e9'], ['--load-predictor', 'kalman'], ['--kalman-r', '--x'], ['--model-name', 'm'],
      ['--metric-pulling-prometheus-endpoint', 'http://evil:9090'], ['--adjustment-interval', true],
    ]));
    expect(r.kept).toEqual(['--ttft=300', '--itl=30.5', '--load-predictor=kalman', '--no-correction']);
    expect(r.dropped).toEqual(['--log-dir', '--load-predictor-warmup-trace', '--namespace', '--no-operation', '--metric-reporting-prometheus-port', '--max-gpu-budget', '--kalman-r', '--model-name', '--adjustment-interval']);
  });

  test('services read as the 0.9 operator reads them: an adapter for each unless disabled, roles from subComponentType, pods selected by the 0.x monitors', () => {
    const components = graphComponents(dgd);
    expect(components.map((c) => [c.name, c.type, c.subType, c.scalingAdapter, c.gpus])).toEqual(
      Object.entries(dgd.spec.services).map(([name, s]: [string, any]) => [name, s.componentType, s.subComponentType, true, Number(s.resources?.limits?.gpu ?? 0)]),
    );
    const off = graphComponents({ spec: { services: { A: { componentType: 'worker', scalingAdapter: { disable: true } } } } });
    expect(off[0].scalingAdapter).toBe(false);
    expect(scalingAdapter('llama-70b', 'ns', components[0], 'nvidia.com/v1alpha1')).toMatchObject({ apiVersion: 'nvidia.com/v1alpha1', spec: { dgdRef: { name: 'llama-70b', serviceName: components[0].name } } });
    const monitors = objects.filter((o) => o.kind === 'PodMonitor');
    const ns = dynamoNamespaceOf('dynamo-workloads', 'llama-70b');
    for (const c of components) {
      const pod: any = podObject(dgd, c, 0, ns, c.type === 'worker' ? 9103 : undefined);
      const selecting = monitors.filter((m) => selects(m.spec.selector, pod.metadata.labels));
      expect([c.name, selecting.map((m) => m.metadata.name)]).toEqual([c.name, [`llama-70b-${c.type}`]]);
      expect(selecting[0].spec.podMetricsEndpoints.map((e: any) => e.port)).toContain(pod.spec.containers[0].ports[0].name);
      if (c.subType) expect(pod.metadata.labels['nvidia.com/dynamo-sub-component-type']).toBe(c.subType);
    }
    expect((podObject(dgd, components.find((c) => c.type === 'worker')!, 0, ns, 9103) as any).spec.containers[0].ports[0]).toEqual({ name: 'system', containerPort: 9103, protocol: 'TCP' });
  });

  test('replicas read and written in either form; adapters\' replicas patch the graph where the spec has none', () => {
    const v1alpha1 = { spec: { services: { Decode: { replicas: 2 }, Prefill: {} } } };
    const v1beta1 = { spec: { components: [{ name: 'Prefill' }, { name: 'Decode', replicas: 2 }] } };
    // where the spec says none, the adapter's replicas are still written into it (1.6's planner reads the spec's)
    for (const g of [v1alpha1, v1beta1]) expect([specReplicas(g, 'Decode'), specReplicas(g, 'Prefill')]).toEqual([2, undefined]);
    expect(replicasPatch(v1alpha1, 'Prefill', 3)).toEqual({ body: JSON.stringify({ spec: { services: { Prefill: { replicas: 3 } } } }), contentType: 'application/merge-patch+json' });
    expect(replicasPatch(v1beta1, 'Decode', 3)).toEqual({ body: JSON.stringify([{ op: 'add', path: '/spec/components/1/replicas', value: 3 }]), contentType: 'application/json-patch+json' });
    expect([replicasPatch(v1alpha1, 'Nope', 1), replicasPatch(v1beta1, 'Nope', 1)]).toEqual([undefined, undefined]);
  });

  test('the v1alpha1 status: services and the Ready condition, every field one the 0.9 CRD declares', () => {
    const components = graphComponents(dgd);
    const counts = new Map(components.map((c) => [c.name, { desired: 2, ready: c.subType === 'decode' ? 1 : 2 }]));
    const st: any = graphStatus(4, components, counts, 'llama-70b', 'x', '2026-01-01T00:00:00Z', 'm', 'nvidia.com/v1alpha1');
    expect(st.status.conditions[0]).toMatchObject({ type: 'Ready', status: 'False', observedGeneration: 4 });
    const crd = crdOf(join(CRD_DIR_0_9, 'nvidia.com_dynamographdeployments.yaml'), 'DynamoGraphDeployment');
    const schema = crd.spec.versions.find((v: any) => v.name === 'v1alpha1').schema.openAPIV3Schema.properties.status;
    expect(Object.keys(st.status).every((k) => k in schema.properties)).toBe(true);
    for (const s of Object.values(st.status.services) as any[]) expect(Object.keys(s).filter((k) => !(k in schema.properties.services.additionalProperties.properties))).toEqual([]);
    expect(Object.keys(st.status.conditions[0]).filter((k) => !(k in schema.properties.conditions.items.properties))).toEqual([]);
    counts.set(components.find((c) => c.subType === 'decode')!.name, { desired: 2, ready: 2 });
    expect((graphStatus(4, components, counts, 'llama-70b', 'x', 'now', 'm', 'nvidia.com/v1alpha1') as any).status.conditions[0].status).toBe('True');
  });

  test('the served model name written where the 0.9 planner reads it: the workers\' --served-model-name, once', () => {
    const patch = JSON.parse(servedModelPatch(dgd, '/run/model')!);
    const workers = Object.entries(dgd.spec.services).filter(([, s]: [string, any]) => s.componentType === 'worker').map(([n]) => n);
    expect(Object.keys(patch.spec.services).sort()).toEqual(workers.sort());
    for (const w of workers) expect(patch.spec.services[w].extraPodSpec.mainContainer.args).toEqual([...dgd.spec.services[w].extraPodSpec.mainContainer.args, '--served-model-name', '/run/model']);
    const applied = { spec: { services: Object.fromEntries(Object.entries(dgd.spec.services).map(([n, s]: [string, any]) => [n, patch.spec.services[n] ? { ...s, extraPodSpec: { mainContainer: patch.spec.services[n].extraPodSpec.mainContainer } } : s])) } };
    expect(servedModelPatch(applied, '/run/model')).toBeUndefined();
    expect(JSON.parse(servedModelPatch(applied, '/other')!).spec.services[workers[0]].extraPodSpec.mainContainer.args.filter((a: string) => a === '--served-model-name').length).toBe(1);
    expect(servedModelPatch(graphOf(example()), '/run/model')).toBeUndefined();
  });

  test('the profile\'s throughput keys for the 0.9 planner: isl / TTFT, and concurrency x tokens per second per stream', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sla-profile-'));
    try {
      writeRehearsalProfile(dir, { ttftMs: 300, itlMs: 30, isl: 1000, osl: 100, throughput: true });
      const prefill = JSON.parse(readFileSync(join(dir, 'prefill_raw_data.json'), 'utf8'));
      const decode = JSON.parse(readFileSync(join(dir, 'decode_raw_data.json'), 'utf8'));
      prefill.prefill_isl.forEach((isl: number, i: number) => expect(prefill.prefill_thpt_per_gpu[i]).toBeCloseTo((isl / prefill.prefill_ttft[i]) * 1000, 0));
      expect(decode.z_thpt_per_gpu.length).toBe(decode.z_itl.length);
      // at the ITL target and the rehearsal's context: about one replica's 1 request/s of 100 tokens
      const i = decode.z_itl.findIndex((itl: number, j: number) => Math.abs(itl - 30 * (0.3 + 0.9 * decode.x_kv_usage[j])) < 0.01 && decode.y_context_length[j] === 1050 && decode.x_kv_usage[j] === 0.8);
      expect(decode.z_thpt_per_gpu[i]).toBeCloseTo(((0.8 * decode.max_kv_tokens) / 1050) * (1000 / decode.z_itl[i]), 1);
      writeRehearsalProfile(dir, { ttftMs: 300, itlMs: 30, isl: 1000, osl: 100 });
      expect(Object.keys(JSON.parse(readFileSync(join(dir, 'decode_raw_data.json'), 'utf8')))).not.toContain('z_thpt_per_gpu');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('each release\'s row: 0.9 runs planner_sla from flags, ready by its metrics (its health stays 503), with a cool-down trickle; 1.6.1 as before', () => {
    expect(SLA_LOOPS['0.9.0']).toMatchObject({ apiVersion: 'nvidia.com/v1alpha1', planner: { module: 'dynamo.planner.planner_sla', settings: 'flags', readiness: 'metrics', startDelaySeconds: 30, profileThroughput: true, modelName: 'worker-args' } });
    expect(SLA_LOOPS['0.9.0'].planner.idleTrickle).toBeGreaterThan(0);
    expect(SLA_LOOPS['1.6.1']).toMatchObject({ apiVersion: 'nvidia.com/v1beta1', planner: { module: 'dynamo.planner', settings: 'config', readiness: 'health', profileThroughput: false, modelName: 'status' } });
    expect(SLA_LOOPS['1.6.1'].planner.idleTrickle).toBeUndefined();
    expect(SLA_LOOPS['0.9.0'].planner.env('/d', 'nats://127.0.0.1:4222')).toEqual({ DYN_STORE_KV: 'file', DYN_FILE_KV: '/d', NATS_SERVER: 'nats://127.0.0.1:4222' });
    expect(SLA_LOOPS['1.6.1'].planner.env('/d', undefined)).toEqual({ DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: '/d' });
    expect(() => slaLoopOf('0.8.1')).toThrow(/runs the planner of Dynamo 1\.6\.1, 0\.9\.0; the graph runs 0\.8\.1/);
  });
});

describe('refused before anything starts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sla-refused-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const options = (extra: Partial<SlaRehearseOptions> = {}): SlaRehearseOptions => ({
    crds: crds(), isl: 1000, osl: 100, slowdown: 1, maxIntervals: 4, startTimeout: 180, requestTimeout: 60, load: 'ramp', peersDir: join(dir, 'no-peers'), ...extra,
  });
  const sla = (objects: any[], extra: Partial<SlaRehearseOptions> = {}) => {
    let stderr = '';
    return rehearseSla([{ file: 'g.yaml', text: objects.map((o) => YAML.stringify(o)).join('---\n') }], options(extra), { stdout: () => undefined, stderr: (t) => (stderr += t) });
  };

  test('a graph without a planner, a 0.x graph, a request with no graph', async () => {
    const r = renderGraph(aggregatedGraphSpec('g', 'ns', { model: 'm', backend: Backend.vllm(), workers: {} }));
    await expect(sla([r.graph])).rejects.toThrow(new RehearsalError('g has no Planner: --sla rehearses a planner\'s control loop (add planner: { ttftMs, itlMs } to the deployment, or rehearse without --sla)'));
    const old = renderGraph(aggregatedGraphSpec('g', 'ns', { model: 'm', backend: Backend.vllm(), workers: {}, dynamoVersion: '0.9.0' }));
    await expect(sla([old.graph])).rejects.toThrow(new RehearsalError('g has no Planner: --sla rehearses a planner\'s control loop (add planner: { ttftMs, itlMs } to the deployment, or rehearse without --sla)'));
    await expect(sla([{ apiVersion: 'nvidia.com/v1beta1', kind: 'DynamoGraphDeploymentRequest', metadata: { name: 'r' }, spec: {} }])).rejects.toThrow(/generated in the cluster by the profiler/);
  });

  test('missing peers are named, with how to build them', async () => {
    await expect(sla(example())).rejects.toThrow(/an SLA rehearsal runs etcd, kube-apiserver, prometheus-operator, prometheus from .*no-peers\/bin; missing: etcd, kube-apiserver, prometheus-operator, prometheus\. Build them from the Go module proxy with `bash node_modules\/dynamo-constructs\/scripts\/build-peers\.sh sla`/);
  });

  test('missing CRDs are named, and a graph with no PodMonitor (before any peer is looked for)', async () => {
    const peers = join(dir, 'peers');
    mkdirSync(join(peers, 'bin'), { recursive: true });
    for (const b of ['etcd', 'kube-apiserver', 'prometheus-operator', 'prometheus']) writeFileSync(join(peers, 'bin', b), '#!/bin/sh\n', { mode: 0o755 });
    await expect(sla(example(), { peersDir: peers, crds: [] })).rejects.toThrow(/needs the CRDs of DynamoGraphDeployment, DynamoGraphDeploymentScalingAdapter, PodMonitor, PrometheusRule, Prometheus, Probe/);
    const noMonitors = example().filter((o) => o.kind !== 'PodMonitor');
    await expect(sla(noMonitors, { peersDir: peers })).rejects.toThrow(/^the files hold no PodMonitor: the planner would read no metrics/);
    // 0.9's planner reads v1alpha1: the 1.x graph CRD stores v1beta1 and converts through a webhook no rehearsal runs
    const operatorCrds = join(peers, 'crds', 'prometheus-operator');
    mkdirSync(operatorCrds, { recursive: true });
    const stub = (kind: string) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${kind.toLowerCase()}s.monitoring.coreos.com` }, spec: { group: 'monitoring.coreos.com', names: { kind }, versions: [{ name: 'v1', served: true, storage: true }] } });
    writeFileSync(join(operatorCrds, 'stubs.yaml'), ['PodMonitor', 'PrometheusRule', 'Prometheus', 'Probe'].map((k) => YAML.stringify(stub(k))).join('---\n'));
    await expect(sla(example09(), { peersDir: peers })).rejects.toThrow(/^Dynamo 0\.9\.0's planner reads nvidia\.com\/v1alpha1, which the CRD of DynamoGraphDeployment \(stores v1beta1, converts through the operator's webhook\) given does not serve as stored/);
  });
});

test('command line: --sla needs --crds; plain and SLA options do not mix', () => {
  const cli = (argv: string[]) => {
    let stderr = '';
    const status = run(['rehearse', ...argv], { stdout: () => undefined, stderr: (t) => (stderr += t), stdin: () => '' });
    return { status, stderr };
  };
  expect(cli(['--sla', 'x.yaml'])).toEqual({ status: 2, stderr: expect.stringContaining("--sla needs Dynamo's CRDs: --crds <file|dir>") });
  expect(cli(['--sla', '--requests', '3', 'x.yaml']).stderr).toContain('--requests is an option of a plain rehearsal; --sla sends its own load in its own network');
  expect(cli(['--load', 'steady', 'x.yaml']).stderr).toContain('--load is an option of --sla');
  expect(cli(['--sla', '--load', 'spiky', '--crds', 'c', 'x.yaml']).stderr).toContain('--load must be ramp or steady, got "spiky"');
  expect(cli(['--sla', '--rate', '-1', '--crds', 'c', 'x.yaml']).stderr).toContain('--rate must be a number from 0.01 to 1000, got "-1"');
  expect(cli(['--sla', '--slowdown', '0.5', '--crds', 'c', 'x.yaml']).stderr).toContain('--slowdown must be a number from 1 to 1000, got "0.5"');
  expect(cli(['--sla', '--aiperf', '/bin/aiperf', '--load-generator', 'http', '--crds', 'c', 'x.yaml']).stderr).toContain('--aiperf and --load-generator http contradict each other');
});
