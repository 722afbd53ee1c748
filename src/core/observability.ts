import { checkBoolean, checkDnsLabel, checkKnownKeys, checkNumber, isPlainObject, optionKeys } from './checks';
import { Dashboard, Dashboards, renderDashboardConfigMap } from './dashboards';
import { Diagnostics, show } from './errors';
import { GraphSpec } from './graph';
import { KubeObject } from './k8s';
import type { PlannerOptions } from './planner';
import { checkSlaTargets, SlaTargets } from './sla-targets';
import { dynamoVersionOf } from './versions';

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
  return {
    graphName: spec.name,
    namespace: spec.namespace,
    frontendService: frontend?.name ?? 'Frontend',
    plannerService: planner?.name,
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
                `sum(rate(dynamo_frontend_requests_total{${frontend}, status!="success"}[5m])) / ` +
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

/** A component's metrics port, as the Dynamo operator names it. */
const MONITORED: readonly { component: 'frontend' | 'worker' | 'planner'; port: string }[] = [
  { component: 'frontend', port: 'http' },
  { component: 'worker', port: 'system' },
  { component: 'planner', port: 'metrics' },
];

/**
 * PodMonitors for Dynamo pods: per graph (pods labelled `app.kubernetes.io/part-of: <graph>`)
 * or, without a graph, for every Dynamo pod in the cluster (what the platform chart's own
 * monitors do).
 */
export function renderPodMonitors(
  scope: { graph?: ObservedGraph; namespace?: string },
  prometheus: IPrometheusRelease | undefined,
  interval = '30s',
): KubeObject[] {
  const g = scope.graph;
  const namespace = g?.namespace ?? scope.namespace;
  const components = MONITORED.filter((m) => m.component !== 'planner' || !g || g.plannerService !== undefined);
  return components.map((m) => ({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PodMonitor',
    metadata: {
      name: g ? `${g.graphName}-${m.component}` : `dynamo-${m.component}`,
      ...(namespace !== undefined ? { namespace } : {}),
      labels: { release: prometheus?.releaseName ?? 'prometheus' },
    },
    spec: {
      selector: {
        matchLabels: {
          ...(g ? { 'app.kubernetes.io/part-of': g.graphName } : {}),
          'nvidia.com/dynamo-component-type': m.component,
          'nvidia.com/metrics-enabled': 'true',
        },
      },
      ...(g ? {} : { namespaceSelector: { any: true } }),
      podMetricsEndpoints: [{ port: m.port, path: '/metrics', interval }],
    },
  }));
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
   * the platform chart's own monitors are off.
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
