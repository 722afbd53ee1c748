import { isPlainObject } from '../base/checks';
import { Findings } from './findings';
import { argField, GraphModel, Place, ServiceModel, workers } from '../model/graph-model';
import { flagValue } from '../model/launch';
import { PLANNER_DEFAULTS, plannerSetting } from './planner';

/**
 * The PodMonitors given with a graph, read against its pods: whether they feed its planner
 * (a window of at least two scrapes, the `dynamo_namespace` label a 1.x planner filters on)
 * and whether they scrape every pool of workers.
 */

type Obj = Readonly<Record<string, unknown>>;

/** The Prometheus target label a pod label becomes under Kubernetes service discovery. */
export function podLabelMetaLabel(podLabel: string): string {
  return `__meta_kubernetes_pod_label_${podLabel.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

/** A pod label as far as the manifest tells: its value, set with a value the manifest does not hold, absent, or unknown. */
type Label = { readonly value: string } | 'set' | 'absent' | 'unknown';

/** Whether a selector selects a pod: undefined when the manifest does not tell. */
type Verdict = boolean | undefined;

/**
 * The labels the Dynamo operator (and Grove, which names its pod sets after the graph) gives a
 * service's pods. A selector on another key matches a label the manifest may not show (a pod
 * template's own labels), so it decides nothing.
 */
const OPERATOR_LABELS = new Set([
  'nvidia.com/dynamo-component-type',
  'nvidia.com/metrics-enabled',
  'nvidia.com/dynamo-graph-deployment-name',
  'nvidia.com/dynamo-component',
  'nvidia.com/dynamo-namespace',
  'app.kubernetes.io/part-of',
]);

const NAMESPACE_LABEL = 'nvidia.com/dynamo-namespace';
const NAMESPACE_TARGET = 'dynamo_namespace';
/** What Prometheus scrapes at when neither the monitor nor the Prometheus resource sets an interval. */
const PROMETHEUS_DEFAULT_INTERVAL = 30;
const FRONTEND_PORT = 8000;

function obj(value: unknown): Obj {
  return isPlainObject(value) ? value : {};
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

interface Monitor {
  readonly name: string;
  readonly namespace?: string;
  readonly spec: Obj;
}

/** The PodMonitors among the objects (each once: the index holds an object under two keys), read once per index. */
const MONITORS = new WeakMap<ReadonlyMap<string, Obj>, readonly Monitor[]>();

function podMonitors(objects: ReadonlyMap<string, Obj>): readonly Monitor[] {
  let found = MONITORS.get(objects);
  if (!found) {
    const seen = new Set<Obj>();
    const out: Monitor[] = [];
    for (const o of objects.values()) {
      if (seen.has(o) || o.kind !== 'PodMonitor' || typeof o.apiVersion !== 'string' || !o.apiVersion.startsWith('monitoring.coreos.com/')) continue;
      seen.add(o);
      const { name, namespace } = obj(o.metadata);
      out.push({ name: String(name), namespace: typeof namespace === 'string' ? namespace : undefined, spec: obj(o.spec) });
    }
    found = out;
    MONITORS.set(objects, found);
  }
  return found;
}

/**
 * The component type the operator labels a service's pods with: the v1beta1 type (`prefill`,
 * `decode`); on 0.x the v1alpha1 componentType (`worker`). A v1alpha1 prefill or decode worker
 * run by a 1.x operator may carry either, as its pods were first created.
 */
function componentTypeLabel(s: ServiceModel, g: GraphModel): Label {
  const type = s.spec.componentType;
  if (typeof type !== 'string' || type === '') return 'absent';
  const sub = s.spec.subComponentType;
  if (type !== 'worker' || (sub !== 'prefill' && sub !== 'decode')) return { value: type };
  if (g.apiVersion === 'nvidia.com/v1beta1') return { value: sub };
  const release = s.release ?? g.release;
  return release?.line.startsWith('0.') ? { value: type } : 'set';
}

/** A label of the service's pods; `type` stands in for their component type. */
function podLabel(s: ServiceModel, g: GraphModel, key: string, type?: string): Label {
  const own = obj(s.spec.labels)[key];
  if (typeof own === 'string') return { value: own };
  if (!OPERATOR_LABELS.has(key)) return 'unknown';
  switch (key) {
    case 'nvidia.com/dynamo-component-type':
      return type !== undefined ? { value: type } : componentTypeLabel(s, g);
    case 'nvidia.com/metrics-enabled':
      return obj(s.spec.annotations)['nvidia.com/enable-metrics'] === 'false' ? 'absent' : { value: 'true' };
    case 'nvidia.com/dynamo-graph-deployment-name':
      return g.name === '' ? 'set' : { value: g.name };
    case 'nvidia.com/dynamo-component':
      return { value: s.name };
    // Grove labels its pods with the graph's name; Deployment-backed pods (no Grove) have no such label
    case 'app.kubernetes.io/part-of':
      return 'unknown';
    default:
      return 'set';
  }
}

function all(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes(false)) return false;
  return verdicts.includes(undefined) ? undefined : true;
}

function requirement(label: Label, operator: unknown, values: readonly unknown[]): Verdict {
  const value = typeof label === 'object' ? label.value : undefined;
  switch (operator) {
    case 'In':
      return value !== undefined ? values.includes(value) : label === 'absent' ? false : undefined;
    case 'NotIn':
      return value !== undefined ? !values.includes(value) : label === 'absent' ? true : undefined;
    case 'Exists':
      return value !== undefined || label === 'set' ? true : label === 'absent' ? false : undefined;
    case 'DoesNotExist':
      return value !== undefined || label === 'set' ? false : label === 'absent' ? true : undefined;
    default:
      return undefined;
  }
}

/**
 * Whether a monitor's label selector selects the service's pods (an empty selector selects every
 * pod), or would if they were of component type `type`.
 */
function selects(m: Monitor, s: ServiceModel, g: GraphModel, type?: string): Verdict {
  const selector = m.spec.selector;
  if (selector !== undefined && !isPlainObject(selector)) return undefined;
  const { matchLabels, matchExpressions } = obj(selector);
  const verdicts: Verdict[] = [];
  for (const [key, value] of Object.entries(obj(matchLabels))) verdicts.push(requirement(podLabel(s, g, key, type), 'In', [value]));
  for (const e of list(matchExpressions)) {
    verdicts.push(typeof e.key === 'string' ? requirement(podLabel(s, g, e.key, type), e.operator, Array.isArray(e.values) ? e.values : []) : undefined);
  }
  return all(verdicts);
}

/** Whether a monitor looks in the graph's namespace: its `namespaceSelector`, else its own namespace. */
function looksIn(m: Monitor, namespace: string | undefined): Verdict {
  const selector = obj(m.spec.namespaceSelector);
  if (selector.any === true) return true;
  const names = Array.isArray(selector.matchNames) ? selector.matchNames : [];
  if (names.length > 0) return namespace === undefined ? undefined : names.includes(namespace);
  // an object without a namespace goes to whatever namespace is current
  if (m.namespace === undefined || namespace === undefined) return m.namespace === namespace ? true : undefined;
  return m.namespace === namespace;
}

/** A Prometheus duration in seconds (`5s`, `1m30s`, `500ms`), or undefined. */
function seconds(duration: string): number | undefined {
  if (!/^([0-9]+(ms|s|m|h|d|w|y))+$/.test(duration)) return undefined;
  const unit: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };
  let total = 0;
  for (const [, n, u] of duration.matchAll(/([0-9]+)(ms|s|m|h|d|w|y)/g)) total += Number(n) * unit[u];
  return Number.isFinite(total) ? total : undefined;
}

/** An endpoint of a monitor that scrapes the frontend's HTTP port, with where it sits. */
interface FrontendEndpoint {
  readonly monitor: Monitor;
  readonly index: number;
  readonly endpoint: Obj;
}

function frontendPort(s: ServiceModel): number {
  const flag = flagValue(s.launch, '--http-port')?.value;
  const port = typeof flag === 'string' ? Number(flag) : NaN;
  return Number.isInteger(port) ? port : FRONTEND_PORT;
}

/** Whether an endpoint scrapes the frontend's `http` port (by name or number; none given: every port). */
function scrapesFrontend(endpoint: Obj, port: number): boolean {
  if (endpoint.port !== undefined) return endpoint.port === 'http';
  const target = endpoint.portNumber ?? endpoint.targetPort;
  return target === undefined || target === 'http' || target === port;
}

/** The endpoints that certainly scrape the frontend's pods. */
function frontendEndpoints(g: GraphModel, frontend: ServiceModel, monitors: readonly Monitor[]): FrontendEndpoint[] {
  const port = frontendPort(frontend);
  return monitors
    .filter((m) => looksIn(m, g.namespace) === true && selects(m, frontend, g) === true)
    .flatMap((monitor) => list(monitor.spec.podMetricsEndpoints).map((endpoint, index) => ({ monitor, index, endpoint })))
    .filter((e) => scrapesFrontend(e.endpoint, port));
}

/** Whether an endpoint gives every series a `dynamo_namespace` label (a replace relabeling that targets it). */
function addsNamespaceLabel(endpoint: Obj): boolean {
  return list(endpoint.relabelings).some((r) => r.targetLabel === NAMESPACE_TARGET && (r.action === undefined || String(r.action).toLowerCase() === 'replace'));
}

const endpointField = (e: FrontendEndpoint) => `PodMonitor/${e.monitor.name}.spec.podMetricsEndpoints[${e.index}]`;

/** The planner's window (its throughput adjustment interval) and where it is set; undefined where the objects do not hold it. */
function plannerWindow(planner: ServiceModel): { seconds: number; place: Place; defaulted: boolean } | undefined {
  const set = plannerSetting(planner, 'adjustmentIntervalSeconds');
  if (set) {
    const n = typeof set.value === 'number' ? set.value : typeof set.value === 'string' && !set.value.includes('$') && set.value.trim() !== '' ? Number(set.value) : NaN;
    // a value out of range is the planner rules' to report
    return Number.isInteger(n) && n > 0 ? { seconds: n, place: set, defaulted: false } : undefined;
  }
  const config = flagValue(planner.launch, '--config')?.value;
  if (planner.plannerConfig) return { seconds: PLANNER_DEFAULTS.adjustmentIntervalSeconds, place: { field: `${planner.plannerConfig.field}.throughput_adjustment_interval_seconds`, option: 'adjustmentIntervalSeconds' }, defaulted: true };
  // a config file the objects do not hold keeps the interval out of sight
  if (typeof config === 'string') return undefined;
  // a 1.x planner takes its settings in a --config document only
  const flag = planner.release?.planner.config ? '--config' : '--adjustment-interval';
  return { seconds: PLANNER_DEFAULTS.adjustmentIntervalSeconds, place: { field: argField(flag), option: 'adjustmentIntervalSeconds' }, defaulted: true };
}

/** The planner's window against the scrape interval of each monitor of the frontend, and the label it filters on. */
function plannerFeedRules(g: GraphModel, f: Findings, monitors: readonly Monitor[]): void {
  const planner = g.services.find((s) => s.kind === 'planner');
  const frontend = g.services.find((s) => s.kind === 'frontend');
  if (!planner || !frontend) return;
  const feeding = frontendEndpoints(g, frontend, monitors);
  if (feeding.length === 0) return;

  const window = plannerWindow(planner);
  for (const e of window ? feeding : []) {
    const interval = typeof e.endpoint.interval === 'string' ? seconds(e.endpoint.interval) : e.endpoint.interval === undefined ? PROMETHEUS_DEFAULT_INTERVAL : undefined;
    if (interval === undefined || window!.seconds >= 2 * interval) continue;
    const w = window!.seconds;
    const half = Math.floor(w / 2);
    const intervalText = e.endpoint.interval === undefined ? `${interval} s default scrape interval (no interval set)` : `${interval} s scrape interval`;
    f.report(
      'planner-scrape-window',
      planner,
      window!.place,
      `is ${w} s${window!.defaulted ? " (the planner's default)" : ''}, under twice the ${intervalText} of ${endpointField(e)}, which scrapes ${frontend.name}: ` +
        `the planner's increase(...[${w}s]) windows then hold fewer than two samples and are often empty, so it skips its decisions. ` +
        (half >= 1 ? `Scrape the frontend every ${half} s or less (interval: "${half}s"), or raise the adjustment interval to at least ${2 * interval} s` : `Raise the adjustment interval to at least ${2 * interval} s`),
    );
  }

  const release = planner.release ?? g.release;
  if (!release || release.line.startsWith('0.') || feeding.some((e) => addsNamespaceLabel(e.endpoint))) return;
  for (const e of feeding) {
    f.report(
      'planner-namespace-label',
      undefined,
      { field: `${endpointField(e)}.relabelings` },
      `scrapes ${frontend.name} without adding a ${NAMESPACE_TARGET} label: the Dynamo ${release.line}.x planner keeps only series whose ${NAMESPACE_TARGET} equals its DYN_NAMESPACE, ` +
        `and the frontend exports none, so the planner sees no traffic and never scales. Add honorLabels: true and the relabeling ` +
        `{ action: replace, sourceLabels: [${podLabelMetaLabel(NAMESPACE_LABEL)}], targetLabel: ${NAMESPACE_TARGET} }, as Dynamo's platform chart does`,
    );
  }
}

const WORKER_TYPES = ['worker', 'prefill', 'decode'];

/**
 * A monitor meant for the graph's workers (one that selects its worker pods of some worker
 * component type) must not miss a pool: 1.x prefill and decode pods are not of type worker.
 */
function workerTypeRules(g: GraphModel, f: Findings, monitors: readonly Monitor[]): void {
  const pools = workers(g);
  const typeOf = (w: ServiceModel) => componentTypeLabel(w, g);
  const inScope = monitors.filter((m) => looksIn(m, g.namespace) !== false);
  const missed = pools.filter((w) => typeof typeOf(w) === 'object' && inScope.every((m) => selects(m, w, g) === false));
  if (missed.length === 0) return;
  for (const m of inScope.filter((x) => looksIn(x, g.namespace) === true)) {
    const types = WORKER_TYPES.filter((t) => pools.some((w) => selects(m, w, g, t) === true));
    if (types.length === 0) continue;
    for (const w of missed) {
      f.report(
        'podmonitor-worker-types',
        undefined,
        { field: `PodMonitor/${m.name}.spec.selector` },
        `selects the worker pods of ${g.name} of component type ${types.join(', ')}, but not those of ${w.name} (nvidia.com/dynamo-component-type: ${(typeOf(w) as { value: string }).value}), ` +
          `and no other monitor does: they are never scraped, and their metrics are missing from dashboards and alerts. ` +
          `Select the component types worker, prefill and decode (a matchExpressions key with operator In), as Dynamo's 1.x platform chart does`,
      );
    }
    return;
  }
}

/** PodMonitors given with the graph, against its pods and its planner. */
export function monitoringRules(g: GraphModel, f: Findings): void {
  const monitors = podMonitors(g.objects);
  if (monitors.length === 0) return;
  plannerFeedRules(g, f, monitors);
  workerTypeRules(g, f, monitors);
}
