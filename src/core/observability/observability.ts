import { checkBoolean, checkDnsLabel, checkInteger, checkKnownKeys, checkNumber, isPlainObject, optionKeys } from '../base/checks';
import { Dashboard, Dashboards, renderDashboardConfigMap } from './dashboards';
import { Diagnostics, show } from '../base/errors';
import { GraphSpec } from '../graph/graph';
import { KubeObject } from '../base/k8s';
import type { PlannerOptions } from '../graph/planner';
import { podLabelMetaLabel } from '../rules/monitoring';
import { checkSlaTargets, SlaTargets } from './sla-targets';
import { DEFAULT_DYNAMO_VERSION, DynamoRelease, dynamoVersionOf, lookupRelease, PodMonitorRelease, releaseOf, releaseOfVersion } from '../releases/versions';

/**
 * A graph as monitoring sees it: where its pods run and how they are named.
 * Grove names pods `<graph>-0-<service>-<hash>`, Deployments `<graph>-<service>-<hash>`.
 */
export interface ObservedGraph {
  readonly graphName: string;
  readonly namespace?: string;
  /** Service name of the frontend. */
  readonly frontendService: string;
  /** Service name of the planner, when the graph has one. */
  readonly plannerService?: string;
  /**
   * The planner's adjustment interval, the window of its `increase(...[W])` queries, when
   * set; a planner without one uses its release's default (180 s).
   */
  readonly plannerAdjustmentIntervalSeconds?: number;
  /** The SLA the graph is planned for (planner targets or an SLA request), when it has one. */
  readonly sla?: SlaTargets;
  /** The Dynamo release the graph runs, whose metric names dashboards query. */
  readonly dynamoVersion: string;
}

/** Something to monitor: a deployment construct, a graph or an SLA-planned deployment. */
export interface IObservable {
  /** @internal */
  _observedGraph(): ObservedGraph;
}

/** A Prometheus stack, as rules and monitors need it: the release label it selects by. */
export interface IPrometheusRelease {
  readonly releaseName: string;
  /** Namespace of Prometheus and Grafana. */
  readonly namespace: string;
}

/** SLA alert rules of one graph. */
export interface SlaAlertOptions {
  /**
   * The latency targets to alert on.
   * @default - the SLA the deployment is planned for (its planner's or its SLA request's)
   */
  readonly sla?: SlaTargets;
  /**
   * How long a breach lasts before the alert fires.
   * @default '5m'
   */
  readonly forDuration?: string;
  /**
   * Share of failed frontend requests that fires the error alert.
   * @default 0.05
   */
  readonly errorRateThreshold?: number;
  /**
   * Severity label of the alerts.
   * @default 'critical'
   */
  readonly severity?: 'critical' | 'warning' | 'info';
  /**
   * The Prometheus stack that evaluates the rules; its release label is added so the
   * stack's default rule selector picks them up.
   * @default - release label `prometheus` (guide 1's release)
   */
  readonly prometheus?: IPrometheusRelease;
}

const ALERT_KEYS = optionKeys<SlaAlertOptions>()('sla', 'forDuration', 'errorRateThreshold', 'severity', 'prometheus');
const DURATION = /^([0-9]+(ms|s|m|h|d|w|y))+$/;

/** The graph's observed shape from its spec: names and, with a planner, the SLA it scales for. */
export function observedGraphOf(spec: GraphSpec): ObservedGraph {
  const frontend = spec.components.find((c) => c.kind === 'frontend');
  const planner = spec.components.find((c) => c.kind === 'planner');
  const p = planner?.kind === 'planner' && isPlainObject(planner.options) ? (planner.options as PlannerOptions) : undefined;
  const interval = p?.adjustmentIntervalSeconds;
  return {
    graphName: spec.name,
    namespace: spec.namespace,
    frontendService: frontend?.name ?? 'Frontend',
    plannerService: planner?.name,
    // read before validation too (for the SLA): only a value the planner would take
    plannerAdjustmentIntervalSeconds: typeof interval === 'number' && Number.isInteger(interval) && interval > 0 ? interval : undefined,
    sla: typeof p?.ttftMs === 'number' && typeof p?.itlMs === 'number' ? { ttftMs: p.ttftMs, itlMs: p.itlMs } : undefined,
    dynamoVersion: dynamoVersionOf(spec.options),
  };
}

const escape = (s: string) => s.replace(/[.]/g, '\\\\.');

/** PromQL label matchers for the pods of one service of a graph, or for its workers. */
export function podMatchers(g: ObservedGraph, which: 'frontend' | 'workers'): string {
  const graph = escape(g.graphName);
  const ns = g.namespace !== undefined ? `namespace="${g.namespace}", ` : '';
  const frontend = escape(g.frontendService.toLowerCase());
  if (which === 'frontend') return `${ns}pod=~"${graph}-(0-)?${frontend}-.*"`;
  const others = [frontend, ...(g.plannerService ? [escape(g.plannerService.toLowerCase())] : [])].join('|');
  return `${ns}pod=~"${graph}-.*", pod!~"${graph}-(0-)?(${others})-.*"`;
}

export function checkSlaAlertOptions(d: Diagnostics, path: string, o: SlaAlertOptions, derived: SlaTargets | undefined): void {
  const at = (key: string) => (path === '' ? key : `${path}.${key}`);
  checkKnownKeys(d, path, o, ALERT_KEYS);
  if (o.sla === undefined && derived === undefined) {
    d.error(at('sla'), 'is required: { ttftMs, itlMs }, since the deployment has no planner or SLA request to take it from', 'required');
  } else if (o.sla !== undefined && checkSlaTargets(d, at('sla'), o.sla) && derived !== undefined && (o.sla.ttftMs !== derived.ttftMs || o.sla.itlMs !== derived.itlMs)) {
    d.error(
      at('sla'),
      `is ${o.sla.ttftMs} ms TTFT / ${o.sla.itlMs} ms ITL, but the deployment is planned for ${derived.ttftMs} / ${derived.itlMs}; leave sla out so alerts follow the planned SLA`,
      'sla-drift',
    );
  }
  if (o.forDuration !== undefined && (typeof o.forDuration !== 'string' || !DURATION.test(o.forDuration))) {
    d.error(at('forDuration'), `must be a Prometheus duration such as "5m", got ${show(o.forDuration)}`, 'value-format');
  }
  checkNumber(d, at('errorRateThreshold'), o.errorRateThreshold, { min: 0, max: 1, exclusiveMin: true });
  if (o.severity !== undefined && !['critical', 'warning', 'info'].includes(o.severity)) {
    d.error(at('severity'), `must be "critical", "warning" or "info", got ${show(o.severity)}`, 'value-range');
  }
  if (o.prometheus !== undefined && (typeof (o.prometheus as IPrometheusRelease)?.releaseName !== 'string')) {
    d.error(at('prometheus'), `must be a PrometheusStack, got ${show(o.prometheus)}`, 'value-type');
  }
}

const ms = (v: number) => `${v} ms`;

/** Name, namespace and labels of a graph's SLA PrometheusRule (known before the graph is complete). */
export function slaAlertsMetadata(g: Pick<ObservedGraph, 'graphName' | 'namespace'>, o: Pick<SlaAlertOptions, 'prometheus'>) {
  return {
    name: `${g.graphName}-sla`,
    ...(g.namespace !== undefined ? { namespace: g.namespace } : {}),
    labels: { release: o.prometheus?.releaseName ?? 'prometheus' },
  };
}

/** The PrometheusRule of a graph's SLA: p95 TTFT and ITL above target, frontend errors, no workers. */
export function renderSlaAlerts(g: ObservedGraph, o: SlaAlertOptions): KubeObject {
  const sla = (o.sla ?? g.sla)!;
  const forDuration = o.forDuration ?? '5m';
  const severity = o.severity ?? 'critical';
  const threshold = o.errorRateThreshold ?? 0.05;
  const frontend = podMatchers(g, 'frontend');
  const labels = { severity, dynamo_graph: g.graphName };
  const p95 = (metric: string) => `histogram_quantile(0.95, sum by (le) (rate(${metric}_bucket{${frontend}}[5m])))`;
  const where = `${g.graphName}${g.namespace ? ` in ${g.namespace}` : ''}`;
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: slaAlertsMetadata(g, o),
    spec: {
      groups: [
        {
          name: `${g.graphName}-sla`,
          rules: [
            {
              alert: 'DynamoTTFTAboveSLA',
              expr: `${p95('dynamo_frontend_time_to_first_token_seconds')} > ${sla.ttftMs / 1000}`,
              for: forDuration,
              labels,
              annotations: {
                summary: `p95 time to first token of ${where} is above its ${ms(sla.ttftMs)} SLA`,
                description: `p95 TTFT has been {{ $value | humanizeDuration }} for ${forDuration}, above the ${ms(sla.ttftMs)} target. Check prefill capacity, queueing and KV transfer.`,
                sla_target: ms(sla.ttftMs),
              },
            },
            {
              alert: 'DynamoITLAboveSLA',
              expr: `${p95('dynamo_frontend_inter_token_latency_seconds')} > ${sla.itlMs / 1000}`,
              for: forDuration,
              labels,
              annotations: {
                summary: `p95 inter-token latency of ${where} is above its ${ms(sla.itlMs)} SLA`,
                description: `p95 ITL has been {{ $value | humanizeDuration }} for ${forDuration}, above the ${ms(sla.itlMs)} target. Check decode capacity and batch sizes.`,
                sla_target: ms(sla.itlMs),
              },
            },
            {
              alert: 'DynamoFrontendErrors',
              expr:
                // no failed request yet is a share of 0, not an empty expression
                `(sum(rate(dynamo_frontend_requests_total{${frontend}, status!="success"}[5m])) or vector(0)) / ` +
                `sum(rate(dynamo_frontend_requests_total{${frontend}}[5m])) > ${threshold}`,
              for: forDuration,
              labels,
              annotations: {
                summary: `more than ${threshold * 100}% of requests to ${where} fail`,
                description: `{{ $value | humanizePercentage }} of frontend requests failed over ${forDuration}.`,
                sla_target: `${threshold * 100}% errors`,
              },
            },
            {
              alert: 'DynamoNoWorkers',
              expr: `(sum(up{${podMatchers(g, 'workers')}}) or vector(0)) == 0`,
              for: forDuration,
              labels,
              annotations: {
                summary: `no worker of ${where} is serving`,
                description: `No worker pod of ${g.graphName} has answered a metrics scrape for ${forDuration}: requests cannot be served. Check the worker pods and their events.`,
                sla_target: 'at least one worker',
              },
            },
          ],
        },
      ],
    },
  };
}

/** The planner window a graph's monitors must fit: its adjustment interval, or the release default. */
export function plannerWindowSeconds(g: ObservedGraph): number | undefined {
  if (g.plannerService === undefined) return undefined;
  const release = releaseOfVersion(g.dynamoVersion) ?? releaseOf(DEFAULT_DYNAMO_VERSION);
  return g.plannerAdjustmentIntervalSeconds ?? release.planner.defaults.adjustmentIntervalSeconds;
}

/**
 * Seconds between scrapes of a graph's pods: the release line's (what Dynamo's platform chart
 * uses), and with a planner at most half its adjustment interval (whole seconds, at least 1),
 * so that every window of the planner's `increase(...[W])` holds two samples or more.
 */
export function podMonitorIntervalSeconds(release: DynamoRelease, graph?: ObservedGraph): number {
  const line = release.monitoring.scrapeIntervalSeconds;
  const window = graph && plannerWindowSeconds(graph);
  return window === undefined ? line : Math.max(1, Math.min(line, Math.floor(window / 2)));
}

/** Options of the PodMonitors of one graph. */
export interface PodMonitorOptions {
  /**
   * Seconds between scrapes. A graph with a planner needs at most half the planner's
   * adjustment interval: its `increase(...[W])` over fewer than two samples is often empty.
   * @default - the release line's (5 on 1.x, 30 on 0.x, as Dynamo's platform chart), and for
   * a graph with a planner at most half its adjustment interval (whole seconds, at least 1)
   */
  readonly scrapeIntervalSeconds?: number;
}

const POD_MONITOR_KEYS = optionKeys<PodMonitorOptions>()('scrapeIntervalSeconds');

/** Checks a graph's PodMonitor options: the interval a whole number of seconds that fits the planner's window. */
export function checkPodMonitorOptions(d: Diagnostics, path: string, o: PodMonitorOptions, graph: ObservedGraph | undefined): void {
  const at = (key: string) => (path === '' ? key : `${path}.${key}`);
  checkKnownKeys(d, path, o, POD_MONITOR_KEYS);
  // the release decides what the monitors look like
  if (graph) lookupRelease(d, at('deployment.dynamoVersion'), graph.dynamoVersion);
  const interval = o.scrapeIntervalSeconds;
  if (!checkInteger(d, at('scrapeIntervalSeconds'), interval, 1, 'a whole number of seconds >= 1') || interval === undefined) return;
  const window = graph && plannerWindowSeconds(graph);
  if (window === undefined || window >= 2 * interval) return;
  const source = graph!.plannerAdjustmentIntervalSeconds === undefined ? " (the planner's default)" : '';
  const allowed = Math.floor(window / 2);
  d.error(
    at('scrapeIntervalSeconds'),
    `is ${interval}, but the planner's adjustment interval is ${window} s${source}: its increase(...[${window}s]) queries need at least two scrapes in each window, ` +
      (allowed >= 1
        ? `so scrapeIntervalSeconds may be at most ${allowed}; lower it, or raise the planner's adjustmentIntervalSeconds to at least ${2 * interval}`
        : `which no whole-second interval gives; raise the planner's adjustmentIntervalSeconds to at least ${2 * interval}`),
    'option-conflict',
  );
}

/** What PodMonitors scrape: one graph's pods, or every Dynamo pod of a release in the cluster. */
export interface PodMonitorScope {
  /** One graph's pods (labelled `nvidia.com/dynamo-graph-deployment-name: <graph>` by the operator), in the graph's namespace. */
  readonly graph?: ObservedGraph;
  /** Without a graph: the namespace of the monitors. */
  readonly namespace?: string;
  /** Without a graph: the Dynamo release whose pods to scrape. @default - the current release */
  readonly dynamoVersion?: string;
  /** Without a graph: select pods in these namespaces only. @default - every namespace */
  readonly podNamespaces?: readonly string[];
}

/**
 * The selector of one monitor: the component types as the chart selects them (a label for
 * one type, an `In` expression for several), within the graph when there is one.
 */
function selectorOf(m: PodMonitorRelease, graph: ObservedGraph | undefined): Record<string, unknown> {
  // the operator labels every pod of a graph with its name, with Grove or Deployments alike
  const partOf = graph ? { 'nvidia.com/dynamo-graph-deployment-name': graph.graphName } : {};
  if (m.componentTypes.length === 1) {
    return { matchLabels: { ...partOf, 'nvidia.com/dynamo-component-type': m.componentTypes[0], 'nvidia.com/metrics-enabled': 'true' } };
  }
  return {
    ...(graph ? { matchLabels: partOf } : {}),
    matchExpressions: [
      { key: 'nvidia.com/dynamo-component-type', operator: 'In', values: [...m.componentTypes] },
      { key: 'nvidia.com/metrics-enabled', operator: 'In', values: ['true'] },
    ],
  };
}

/**
 * PodMonitors for Dynamo pods, as Dynamo's platform chart writes them for the release line
 * (component types, ports, relabelings, `honorLabels`): per graph (pods labelled
 * `nvidia.com/dynamo-graph-deployment-name: <graph>`, the planner's monitor only when it has one) or,
 * without a graph, for every Dynamo pod in the cluster. The chart's extra worker endpoints
 * are left out: `system-0`/`system-1` exist only on pods that pack two engines for GPU memory
 * failover, and `http` on workers only with a frontend sidecar (GAIE/EPP); the library runs
 * neither, and no dashboard or alert reads them.
 */
export function renderPodMonitors(scope: PodMonitorScope, prometheus: IPrometheusRelease | undefined, options: PodMonitorOptions = {}): KubeObject[] {
  const g = scope.graph;
  const release = releaseOf(g?.dynamoVersion ?? dynamoVersionOf({ dynamoVersion: scope.dynamoVersion }));
  const namespace = g?.namespace ?? scope.namespace;
  const interval = `${options.scrapeIntervalSeconds ?? podMonitorIntervalSeconds(release, g)}s`;
  const monitors = release.monitoring.podMonitors.filter((m) => m.component !== 'planner' || !g || g.plannerService !== undefined);
  return monitors.map((m) => {
    const relabelings = Object.entries(m.podLabelsAsTargetLabels ?? {}).map(([label, target]) => ({ action: 'replace', sourceLabels: [podLabelMetaLabel(label)], targetLabel: target }));
    return {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PodMonitor',
      metadata: {
        name: g ? `${g.graphName}-${m.component}` : `dynamo-${m.component}`,
        ...(namespace !== undefined ? { namespace } : {}),
        labels: { release: prometheus?.releaseName ?? 'prometheus' },
      },
      spec: {
        selector: selectorOf(m, g),
        ...(g ? {} : { namespaceSelector: scope.podNamespaces ? { matchNames: [...scope.podNamespaces] } : { any: true } }),
        podMetricsEndpoints: [
          {
            port: m.port,
            path: '/metrics',
            interval,
            ...(m.honorLabels ? { honorLabels: true } : {}),
            ...(relabelings.length > 0 ? { relabelings } : {}),
          },
        ],
      },
    };
  });
}

/**
 * The monitors of a `PodMonitors` construct (either shell): its deployment and options
 * checked, every problem at once, then rendered.
 */
export function renderDeploymentPodMonitors(deployment: IObservable | undefined, prometheus: IPrometheusRelease | undefined, options: PodMonitorOptions): KubeObject[] {
  const d = new Diagnostics();
  if (typeof (deployment as Partial<IObservable> | undefined)?._observedGraph !== 'function') {
    d.error('deployment', 'is required: a DisaggregatedDeployment, AggregatedDeployment, DynamoGraph or SlaPlannedDeployment', 'required');
    d.throwIfErrors();
  }
  const graph = deployment!._observedGraph();
  checkPodMonitorOptions(d, '', options, graph);
  d.throwIfErrors();
  return renderPodMonitors({ graph }, prometheus, options);
}

/** Dashboards, alerts and monitors for one deployment, in one option. */
export interface ObservabilityOptions extends SlaAlertOptions {
  /**
   * A serving dashboard with the SLA drawn as thresholds (and a planner dashboard when
   * the deployment is planned), as ConfigMaps for the Grafana sidecar.
   * @default true
   */
  readonly dashboards?: boolean;
  /**
   * SLA alert rules (a PrometheusRule).
   * @default true
   */
  readonly alerts?: boolean;
  /**
   * PodMonitors for this graph's frontend, workers and planner, for clusters where
   * the platform chart's own monitors are off. They are written as the chart of the
   * graph's release line writes its own, and scrape every 5 s on 1.x (30 s on 0.x), or
   * with a planner at most every half of its adjustment interval (whole seconds, at
   * least 1): each window of its `increase(...[W])` queries then holds two samples.
   * @default false
   */
  readonly podMonitors?: boolean;
  /**
   * Namespace Grafana loads dashboards from.
   * @default - the Prometheus stack's namespace, else 'monitoring'
   */
  readonly grafanaNamespace?: string;
}

const OBSERVABILITY_KEYS = optionKeys<ObservabilityOptions>()(
  'sla',
  'forDuration',
  'errorRateThreshold',
  'severity',
  'prometheus',
  'dashboards',
  'alerts',
  'podMonitors',
  'grafanaNamespace',
);

export function checkObservability(d: Diagnostics, path: string, o: unknown, derived: SlaTargets | undefined): void {
  if (o === undefined) return;
  if (!isPlainObject(o)) {
    d.error(path, `must be an object of observability options, got ${show(o)}`, 'value-type');
    return;
  }
  const opts = o as ObservabilityOptions;
  checkKnownKeys(d, path, o, OBSERVABILITY_KEYS);
  for (const key of ['dashboards', 'alerts', 'podMonitors'] as const) checkBoolean(d, `${path}.${key}`, opts[key]);
  checkDnsLabel(d, `${path}.grafanaNamespace`, opts.grafanaNamespace);
  const needsSla = opts.dashboards !== false || opts.alerts !== false;
  if (needsSla || opts.sla !== undefined) {
    const { dashboards: _d, alerts: _a, podMonitors: _p, grafanaNamespace: _g, ...alertOptions } = opts;
    checkSlaAlertOptions(d, path, alertOptions, derived);
  }
}

/** A short stable hash, for dashboard uids that must fit Grafana's 40 characters. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0').slice(0, 6);
}

/** The dashboards of one graph. */
export function graphDashboards(g: ObservedGraph, sla: SlaTargets): { name: string; dashboard: Dashboard }[] {
  const id = `${g.graphName.slice(0, 20)}-${hash(`${g.namespace ?? ''}/${g.graphName}`)}`;
  const out = [
    {
      name: `${g.graphName}-serving-dashboard`,
      dashboard: Dashboards.serving({ sla, dynamoVersion: g.dynamoVersion, title: `Dynamo serving: ${g.graphName}`, uid: `dynamo-${id}-serving` }),
    },
  ];
  if (g.plannerService !== undefined) {
    out.push({
      name: `${g.graphName}-planner-dashboard`,
      dashboard: Dashboards.planner({ sla, dynamoVersion: g.dynamoVersion, title: `Dynamo planner: ${g.graphName}`, uid: `dynamo-${id}-planner` }),
    });
  }
  return out;
}

/** Everything `observability` adds for a graph (validate first). */
export function renderObservability(g: ObservedGraph, o: ObservabilityOptions): KubeObject[] {
  const objects: KubeObject[] = [];
  const sla = o.sla ?? g.sla;
  if (o.dashboards !== false && sla) {
    const namespace = o.grafanaNamespace ?? o.prometheus?.namespace ?? 'monitoring';
    for (const { name, dashboard } of graphDashboards(g, sla)) objects.push(renderDashboardConfigMap(name, namespace, dashboard));
  }
  if (o.alerts !== false && sla) objects.push(renderSlaAlerts(g, { ...o, sla }));
  if (o.podMonitors) objects.push(...renderPodMonitors({ graph: g }, o.prometheus));
  return objects;
}
