import type * as commonTypes from '@grafana/grafana-foundation-sdk/common';
import type * as dashboardTypes from '@grafana/grafana-foundation-sdk/dashboard';
import type * as prometheusTypes from '@grafana/grafana-foundation-sdk/prometheus';
import type * as statTypes from '@grafana/grafana-foundation-sdk/stat';
import type * as stateTimelineTypes from '@grafana/grafana-foundation-sdk/statetimeline';
import type * as timeseriesTypes from '@grafana/grafana-foundation-sdk/timeseries';
import { checkDnsLabel, checkDnsSubdomain, checkKnownKeys, checkString, isPlainObject, optionKeys } from '../base/checks';
import { Diagnostics, show, validate } from '../base/errors';
import { checkLiteralSecrets } from '../rules/secrets';
import { checkSlaTargets, SlaTargets } from './sla-targets';
import { DEFAULT_DYNAMO_VERSION, lookupRelease, ReleaseMetrics, releaseOf } from '../releases/versions';

/** The label the Grafana sidecar loads dashboard ConfigMaps by. */
export const GRAFANA_DASHBOARD_LABEL = 'grafana_dashboard';
export const GRAFANA_DASHBOARD_LABEL_VALUE = '1';

/** A Grafana dashboard model (the JSON the grafana-foundation-sdk builds). */
export type Dashboard = dashboardTypes.Dashboard;

/** The SDK, loaded on first use so that importing the core stays light. */
interface Sdk {
  dashboard: typeof dashboardTypes;
  prometheus: typeof prometheusTypes;
  timeseries: typeof timeseriesTypes;
  stat: typeof statTypes;
  statetimeline: typeof stateTimelineTypes;
  common: typeof commonTypes;
}

let sdk: Sdk | undefined;
function loadSdk(): Sdk {
  sdk ??= {
    dashboard: require('@grafana/grafana-foundation-sdk/dashboard'),
    prometheus: require('@grafana/grafana-foundation-sdk/prometheus'),
    timeseries: require('@grafana/grafana-foundation-sdk/timeseries'),
    stat: require('@grafana/grafana-foundation-sdk/stat'),
    statetimeline: require('@grafana/grafana-foundation-sdk/statetimeline'),
    common: require('@grafana/grafana-foundation-sdk/common'),
  };
  return sdk;
}

export interface PlannerDashboardOptions {
  /** @default 'Dynamo SLA Planner' */
  readonly title?: string;
  /** @default 'dynamo-constructs-planner' */
  readonly uid?: string;
  /**
   * The SLA the planner targets; drawn as threshold lines on the TTFT and ITL panels.
   * @default - no threshold lines
   */
  readonly sla?: SlaTargets;
  /**
   * The Dynamo release whose planner the dashboard reads: each release line names
   * its planner metrics differently (`planner:*` in 0.8/0.9, `dynamo_planner_*` in 1.x).
   * @default DEFAULT_DYNAMO_VERSION
   */
  readonly dynamoVersion?: string;
}

export interface ServingDashboardOptions {
  /** The SLA targets, drawn as thresholds on the TTFT and ITL panels. */
  readonly sla: SlaTargets;
  /**
   * The Dynamo release whose metrics the dashboard reads (the workers' KV cache gauges
   * differ per release line; 0.9 publishes none, so its dashboard has no KV panels).
   * @default DEFAULT_DYNAMO_VERSION
   */
  readonly dynamoVersion?: string;
  /** @default 'Dynamo Serving' */
  readonly title?: string;
  /** @default 'dynamo-constructs-serving' */
  readonly uid?: string;
}

const PLANNER_KEYS = optionKeys<PlannerDashboardOptions>()('title', 'uid', 'sla', 'dynamoVersion');
const SERVING_KEYS = optionKeys<ServingDashboardOptions>()('title', 'uid', 'sla', 'dynamoVersion');

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
/** The Prometheus label the planner's and the frontend's metrics are filtered by. */
const NS = 'namespace="$namespace"';
const MODEL = `${NS}, model=~"$model"`;

/** Builds panels with the conventions every dashboard here shares. */
class Panels {
  private refs = 0;

  constructor(private readonly s: Sdk) {}

  public query(expr: string, legend: string): prometheusTypes.DataqueryBuilder {
    const refId = String.fromCharCode(65 + this.refs++ % 26);
    return new this.s.prometheus.DataqueryBuilder().expr(expr).legendFormat(legend).refId(refId);
  }

  public timeseries(title: string, description: string, unit: string, queries: [string, string][], thresholdMs?: number): timeseriesTypes.PanelBuilder {
    this.refs = 0;
    const p = new this.s.timeseries.PanelBuilder()
      .title(title)
      .description(description)
      .datasource(DATASOURCE)
      .unit(unit)
      .legend(new this.s.common.VizLegendOptionsBuilder().showLegend(true).displayMode(this.s.common.LegendDisplayMode.List).placement(this.s.common.LegendPlacement.Bottom))
      .lineWidth(2)
      .fillOpacity(10);
    for (const [expr, legend] of queries) p.withTarget(this.query(expr, legend));
    if (thresholdMs !== undefined) {
      // targets are in ms; panels showing seconds draw the line in seconds
      const value = unit === 's' ? thresholdMs / 1000 : thresholdMs;
      p.thresholds(
        new this.s.dashboard.ThresholdsConfigBuilder().mode(this.s.dashboard.ThresholdsMode.Absolute).steps([
          { value: null as unknown as number, color: 'green' },
          { value, color: 'red' },
        ]),
      ).thresholdsStyle(new this.s.common.GraphThresholdsStyleConfigBuilder().mode(this.s.common.GraphThresholdsStyleMode.Line));
    }
    return p;
  }

  public stat(title: string, description: string, unit: string, expr: string, legend: string): statTypes.PanelBuilder {
    this.refs = 0;
    return new this.s.stat.PanelBuilder().title(title).description(description).datasource(DATASOURCE).unit(unit).withTarget(this.query(expr, legend));
  }

  public timeline(title: string, description: string, queries: [string, string][]): stateTimelineTypes.PanelBuilder {
    this.refs = 0;
    const p = new this.s.statetimeline.PanelBuilder().title(title).description(description).datasource(DATASOURCE);
    for (const [expr, legend] of queries) p.withTarget(this.query(expr, legend));
    return p;
  }
}

/**
 * The SDK's model as plain JSON: its query objects carry marker methods that a
 * manifest must not (and cannot) hold.
 */
function plain(dashboard: Dashboard): Dashboard {
  return JSON.parse(JSON.stringify(dashboard)) as Dashboard;
}

function base(s: Sdk, title: string, uid: string, tags: string[]): dashboardTypes.DashboardBuilder {
  return new s.dashboard.DashboardBuilder(title)
    .uid(uid)
    .tags(['dynamo', ...tags])
    .refresh('30s')
    .time({ from: 'now-3h', to: 'now' })
    .withVariable(new s.dashboard.DatasourceVariableBuilder('datasource').label('Data source').type('prometheus'))
    .withVariable(
      new s.dashboard.QueryVariableBuilder('namespace')
        .label('Namespace')
        .datasource(DATASOURCE)
        .refresh(s.dashboard.VariableRefresh.OnTimeRangeChanged),
    );
}

function checkDashboardOptions(d: Diagnostics, o: unknown, keys: readonly string[], slaRequired: boolean): void {
  if (!isPlainObject(o)) {
    if (o !== undefined || slaRequired) d.error('', `must be an object of dashboard options, got ${show(o)}`, 'value-type');
    return;
  }
  checkKnownKeys(d, '', o, keys);
  checkString(d, 'title', o.title);
  checkString(d, 'uid', o.uid);
  if (typeof o.uid === 'string' && !/^[A-Za-z0-9_-]{1,40}$/.test(o.uid)) {
    d.error('uid', `must be at most 40 letters, digits, '-' or '_' (Grafana's limit), got ${show(o.uid)}`, 'value-format');
  }
  if (o.sla !== undefined || slaRequired) checkSlaTargets(d, 'sla', o.sla);
  if (o.dynamoVersion !== undefined) lookupRelease(d, 'dynamoVersion', o.dynamoVersion as string);
}

function metricsOf(o: { readonly dynamoVersion?: string } | undefined): ReleaseMetrics {
  return releaseOf(o?.dynamoVersion ?? DEFAULT_DYNAMO_VERSION).metrics;
}

/** Dashboards as code, built with grafana-foundation-sdk; every query uses Dynamo's metric names. */
export class Dashboards {
  /**
   * The SLA planner (guide 1 step 12): prefill and decode worker counts,
   * cumulative GPU-hours, observed request rate, TTFT, ITL, ISL and OSL against
   * the planner's predictions, predicted replicas, a timeline of scaling decisions,
   * and the planner's own check of its model: correction factors (0.8/0.9) or the
   * latency it estimates at the chosen replicas (1.x); filtered by the `namespace`
   * variable. The metric names are those of `dynamoVersion`'s planner.
   */
  public static planner(options: PlannerDashboardOptions = {}): Dashboard {
    validate((d) => checkDashboardOptions(d, options, PLANNER_KEYS, false));
    const s = loadSdk();
    const p = new Panels(s);
    const m = (metric: string) => `${metric}{${NS}}`;
    const sla = options.sla;
    const names = metricsOf(options).planner;
    const b = base(s, options.title ?? 'Dynamo SLA Planner', options.uid ?? 'dynamo-constructs-planner', ['planner']);
    (b as unknown as { internal: Dashboard }).internal.templating!.list![1].query = `label_values(${names.prefillWorkers}, namespace)`;
    const latency = (observed: string, estimated: string | undefined): [string, string][] => [
      [m(observed), 'observed'],
      ...(estimated !== undefined ? ([[m(estimated), 'estimated at the chosen replicas']] as [string, string][]) : []),
    ];
    b
      .withRow(new s.dashboard.RowBuilder('Workers and cost'))
      .withPanel(
        p.timeseries('Worker counts', 'Prefill and decode workers the planner runs', 'short', [
          [m(names.prefillWorkers), 'prefill'],
          [m(names.decodeWorkers), 'decode'],
        ]),
      )
      .withPanel(p.stat('GPU-hours', 'Cumulative GPU-hours the planner has used', 'short', `max(${m(names.gpuHours)})`, 'GPU-hours'))
      .withPanel(
        p.timeline('Scaling decisions', 'Worker counts over time: each change is a scaling decision', [
          [m(names.prefillWorkers), 'prefill workers'],
          [m(names.decodeWorkers), 'decode workers'],
        ]),
      )
      .withRow(new s.dashboard.RowBuilder('Observed load and latency'))
      .withPanel(
        p.timeseries('Request rate: observed vs. predicted', 'Requests per second the planner observed, and what it predicted for the interval', 'reqps', [
          [m(names.observedRequestRate), 'observed'],
          [m(names.predictedRequestRate), 'predicted'],
        ]),
      )
      .withPanel(p.timeseries('TTFT', 'Time to first token the planner observed', 'ms', latency(names.observedTtftMs, names.estimatedLatency?.ttftMs), sla?.ttftMs))
      .withPanel(p.timeseries('ITL', 'Inter-token latency the planner observed', 'ms', latency(names.observedItlMs, names.estimatedLatency?.itlMs), sla?.itlMs))
      .withPanel(
        p.timeseries('Request duration (observed)', 'Mean request duration the planner observed', 's', [[m(names.observedRequestDurationSeconds), 'duration']]),
      )
      .withPanel(
        p.timeseries('ISL: observed vs. predicted', 'Input sequence length in tokens', 'short', [
          [m(names.observedIsl), 'observed'],
          [m(names.predictedIsl), 'predicted'],
        ]),
      )
      .withPanel(
        p.timeseries('OSL: observed vs. predicted', 'Output sequence length in tokens', 'short', [
          [m(names.observedOsl), 'observed'],
          [m(names.predictedOsl), 'predicted'],
        ]),
      )
      .withRow(new s.dashboard.RowBuilder(names.correctionFactors ? 'Predictions and corrections' : 'Predictions'))
      .withPanel(
        p.timeseries('Predicted replicas vs. running workers', 'Replicas the planner computed for the predicted load, against the workers running', 'short', [
          [m(names.predictedPrefillReplicas), 'predicted prefill'],
          [m(names.prefillWorkers), 'running prefill'],
          [m(names.predictedDecodeReplicas), 'predicted decode'],
          [m(names.decodeWorkers), 'running decode'],
        ]),
      );
    if (names.correctionFactors) {
      b.withPanel(
        p.timeseries('Correction factors', 'Observed over expected latency; 1 means the profile predicts the cluster well', 'short', [
          [m(names.correctionFactors.prefill), 'prefill (TTFT)'],
          [m(names.correctionFactors.decode), 'decode (ITL)'],
        ]),
      );
    }
    return plain(b.build());
  }

  /**
   * Serving as users see it: frontend request rate, p50/p95/p99 TTFT and ITL
   * with the SLA targets drawn as thresholds, ISL/OSL, in-flight and queued
   * requests, errors, and per-worker KV cache usage and prefix hit rate where the
   * release publishes them (0.8 and 1.x).
   */
  public static serving(options: ServingDashboardOptions): Dashboard {
    validate((d) => checkDashboardOptions(d, options, SERVING_KEYS, true));
    const s = loadSdk();
    const p = new Panels(s);
    const rate = (metric: string, filter = MODEL) => `rate(${metric}{${filter}}[$__rate_interval])`;
    const quantile = (q: number, metric: string) => `histogram_quantile(${q}, sum by (le) (${rate(`${metric}_bucket`)}))`;
    const mean = (metric: string) => `sum(${rate(`${metric}_sum`)}) / sum(${rate(`${metric}_count`)})`;
    const kvCache = metricsOf(options).kvCache;
    const b = base(s, options.title ?? 'Dynamo Serving', options.uid ?? 'dynamo-constructs-serving', ['serving']);
    const internal = (b as unknown as { internal: Dashboard }).internal;
    internal.templating!.list![1].query = 'label_values(dynamo_frontend_requests_total, namespace)';
    b.withVariable(
      new s.dashboard.QueryVariableBuilder('model')
        .label('Model')
        .datasource(DATASOURCE)
        .query(`label_values(dynamo_frontend_requests_total{${NS}}, model)`)
        .refresh(s.dashboard.VariableRefresh.OnTimeRangeChanged)
        .includeAll(true)
        .allValue('.*'),
    );
    const latency = (metric: string): [string, string][] => [
      [quantile(0.5, metric), 'p50'],
      [quantile(0.95, metric), 'p95'],
      [quantile(0.99, metric), 'p99'],
    ];
    b
      .withRow(new s.dashboard.RowBuilder('Traffic and latency'))
      .withPanel(p.timeseries('Request rate', 'Requests per second at the frontend, by model', 'reqps', [[`sum by (model) (${rate('dynamo_frontend_requests_total')})`, '{{model}}']]))
      .withPanel(
        // errors are counted once there are some: `or ... * 0` draws a zero line while requests flow without any
        p.timeseries('Errors', 'Failed requests per second at the frontend, and errors per pod', 'reqps', [
          [`sum(${rate('dynamo_frontend_requests_total', `${MODEL}, status!="success"`)}) or (sum(${rate('dynamo_frontend_requests_total')}) * 0)`, 'frontend'],
          [`sum by (pod) (${rate('dynamo_component_errors_total', NS)}) or (sum by (pod) (up{${NS}}) * 0)`, '{{pod}}'],
        ]),
      )
      .withPanel(p.timeseries('Time to first token', `p50, p95 and p99 TTFT; the line is the SLA target (${options.sla.ttftMs} ms)`, 's', latency('dynamo_frontend_time_to_first_token_seconds'), options.sla.ttftMs))
      .withPanel(p.timeseries('Inter-token latency', `p50, p95 and p99 ITL; the line is the SLA target (${options.sla.itlMs} ms)`, 's', latency('dynamo_frontend_inter_token_latency_seconds'), options.sla.itlMs))
      .withPanel(
        p.timeseries('Sequence lengths', 'Mean input and output tokens per request', 'short', [
          [mean('dynamo_frontend_input_sequence_tokens'), 'ISL'],
          [mean('dynamo_frontend_output_sequence_tokens'), 'OSL'],
        ]),
      )
      .withPanel(
        p.timeseries('In-flight and queued requests', 'Requests being served and waiting at the frontend', 'short', [
          [`sum(dynamo_frontend_inflight_requests{${MODEL}})`, 'in flight'],
          [`sum(dynamo_frontend_queued_requests{${MODEL}})`, 'queued'],
        ]),
      );
    if (kvCache) {
      b.withRow(new s.dashboard.RowBuilder('Workers'))
        .withPanel(p.timeseries('KV cache usage', 'GPU KV cache usage per worker', 'percentunit', [[`max by (pod) (${kvCache.usage}{${NS}})`, '{{pod}}']]))
        .withPanel(p.timeseries('Prefix cache hit rate', 'Share of prompt tokens served from cached KV blocks, per worker', 'percentunit', [[`max by (pod) (${kvCache.prefixHitRate}{${NS}})`, '{{pod}}']]));
    }
    return plain(b.build());
  }
}

/** Every PromQL expression of a dashboard, in panel order. */
export function dashboardQueries(dashboard: Dashboard): string[] {
  return (dashboard.panels ?? []).flatMap((panel) => ((panel as { targets?: { expr?: string }[] }).targets ?? []).map((t) => t.expr).filter((e): e is string => typeof e === 'string'));
}

/**
 * Validates the props of a `GrafanaDashboard` and renders its ConfigMap;
 * throws `DynamoValidationError` listing every problem.
 */
export function grafanaDashboardConfigMap(name: string, namespace: string, dashboard: unknown): ReturnType<typeof renderDashboardConfigMap> {
  validate((d) => {
    checkDnsSubdomain(d, 'name', name, '; pass `name` to choose the ConfigMap name');
    checkDnsLabel(d, 'namespace', namespace);
    if (typeof dashboard !== 'object' || dashboard === null || typeof (dashboard as { title?: unknown }).title !== 'string') {
      d.error('dashboard', 'is required: a dashboard model, e.g. Dashboards.serving({ sla }) or a DashboardBuilder(...).build()', 'required');
    } else {
      // the dashboard is written into a ConfigMap: a datasource URL or a link must not carry credentials
      checkLiteralSecrets(d, 'dashboard', dashboard, 'config');
    }
  });
  return renderDashboardConfigMap(name, namespace, dashboard as Dashboard);
}

/** A ConfigMap the Grafana sidecar loads the dashboard from (label `grafana_dashboard: "1"`). */
export function renderDashboardConfigMap(name: string, namespace: string, dashboard: Dashboard) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { [GRAFANA_DASHBOARD_LABEL]: GRAFANA_DASHBOARD_LABEL_VALUE } },
    data: { [`${name}.json`]: `${JSON.stringify(dashboard, null, 2)}\n` },
  };
}
