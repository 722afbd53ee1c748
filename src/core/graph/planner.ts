import { checkInteger, checkKnownKeys, checkNumber, checkString, checkUrl, join, optionKeys } from '../base/checks';
import { GraphContext } from './context';
import { checkEnvMap, checkPodInfoFields, EnvMap, PodInfoField } from '../base/env';
import { Diagnostics, show } from '../base/errors';
import { LoadPredictor } from './load-predictor';
import { checkPodPlacement, DgdService, imagePullSecrets, POD_PLACEMENT_KEYS, podPlacement, serviceEnv } from './service';
import { KubeObject, PodPlacementOptions } from '../base/k8s';
import { prune, toKubeName } from '../base/util';
import { DynamoRelease } from '../releases/versions';

/** Something that knows where Prometheus answers queries, such as a `PrometheusStack`. */
export interface IPrometheusEndpoint {
  /** Base URL of the Prometheus query API, e.g. `http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9090`. */
  readonly queryEndpoint: string;
}

/** The ConfigMap of profiling results the profiler writes and the planner reads. */
export const DEFAULT_PROFILE_RESULTS_CONFIG_MAP = 'planner-profile-data';
const PROFILE_RESULTS_VOLUME = 'planner-profile-data';
const PLANNER_CONFIG_VOLUME = 'planner-config';

/**
 * The SLA planner: scales prefill and decode workers to meet TTFT and ITL targets (guide 1).
 * In a graph on 1.x (1.6.1 included) it runs `python3 -m dynamo.planner --config` from the
 * release's `dynamo-planner` image, its settings a PlannerConfig document in a ConfigMap beside
 * the graph; on 0.8/0.9 `python3 -m planner_sla` from the graph's runtime image, with flags.
 * The placement options (`affinity`, `priorityClassName`, `topologySpreadConstraints`,
 * `topologyConstraint`) apply to a planner in a graph; a request (`SlaPlannedDeployment`) has no
 * pod of its own to place. A planner gets no `hfTokenSecret` on any release: it loads no model,
 * and Dynamo's own planner services (0.9 examples, the 1.x profiler's) carry no Secret.
 */
export interface PlannerOptions extends PodPlacementOptions {
  /**
   * Fewest engines the planner keeps per role.
   * @default - the planner's default (1)
   */
  readonly minEndpoint?: number;
  /**
   * Most GPUs the planner may use across prefill and decode.
   * @default - the planner's default (8)
   */
  readonly maxGpuBudget?: number;
  /**
   * Seconds between scaling decisions.
   * @default - the planner's default (180)
   */
  readonly adjustmentIntervalSeconds?: number;
  /**
   * How the next interval's load is forecast.
   * @default - the planner's default (ARIMA)
   */
  readonly loadPredictor?: LoadPredictor;
  /**
   * Time-to-first-token target in ms. Required for a planner in a graph; an
   * SLA-planned deployment takes it from `sla.ttftMs`.
   */
  readonly ttftMs?: number;
  /**
   * Inter-token latency target in ms. Required for a planner in a graph; an
   * SLA-planned deployment takes it from `sla.itlMs`.
   */
  readonly itlMs?: number;
  /**
   * Where the planner queries frontend metrics: a URL or a `PrometheusStack`.
   * @default - the `PROMETHEUS_ENDPOINT` the Dynamo platform injects (its `prometheusEndpoint` value)
   */
  readonly prometheusEndpoint?: string | IPrometheusEndpoint;
  /**
   * ConfigMap holding the profiling results (`prefill_raw_data.json`, `decode_raw_data.json`).
   * @default 'planner-profile-data'
   */
  readonly profileResultsConfigMap?: string;
  /**
   * Image of the planner in a graph.
   * @default - 1.x: the release's planner image, `nvcr.io/nvidia/ai-dynamo/dynamo-planner:1.6.1` on 1.6.1
   * (`dynamo-planner:<dynamoVersion>`), whatever the graph's image; 0.8/0.9: the graph's image
   */
  readonly image?: string;
  /**
   * Environment of the planner.
   * @default - none
   */
  readonly env?: EnvMap;
  /**
   * Pod fields exposed as environment variables.
   * @default - the graph's `podInfoEnv`
   */
  readonly podInfoEnv?: readonly PodInfoField[];
}

/** The options every planner takes, a request's included; a planner in a graph takes `POD_PLACEMENT_KEYS` besides. */
export const PLANNER_OPTION_KEYS = optionKeys<Omit<PlannerOptions, keyof PodPlacementOptions>>()(
  'minEndpoint',
  'maxGpuBudget',
  'adjustmentIntervalSeconds',
  'loadPredictor',
  'ttftMs',
  'itlMs',
  'prometheusEndpoint',
  'profileResultsConfigMap',
  'image',
  'env',
  'podInfoEnv',
);

/** The Prometheus query URL of an endpoint option. */
export function prometheusUrl(endpoint: string | IPrometheusEndpoint): string {
  return typeof endpoint === 'string' ? endpoint : endpoint.queryEndpoint;
}

/** A Prometheus query endpoint: an http(s) URL, or an object with one (a `PrometheusStack`). */
export function checkPrometheusEndpoint(d: Diagnostics, path: string, endpoint: unknown): void {
  if (endpoint === undefined) return;
  const url = typeof endpoint === 'object' && endpoint !== null ? (endpoint as Partial<IPrometheusEndpoint>).queryEndpoint : endpoint;
  if (typeof url !== 'string') {
    d.error(path, `must be an http(s) URL or a PrometheusStack, got ${show(endpoint)}`, 'value-type');
    return;
  }
  checkUrl(d, path, url, ['http', 'https'], 'http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9090');
}

/** The options of a planner in a graph: the shared ones and where its pod is placed. */
const GRAPH_PLANNER_OPTION_KEYS: readonly string[] = [...PLANNER_OPTION_KEYS, ...POD_PLACEMENT_KEYS];

/** Checks the options every planner shares (`known`: the option names the caller takes). */
export function checkPlannerOptions(d: Diagnostics, path: string, o: PlannerOptions, release: DynamoRelease | undefined, known: readonly string[] = PLANNER_OPTION_KEYS): void {
  checkKnownKeys(d, path, o, known);
  checkInteger(d, join(path, 'minEndpoint'), o.minEndpoint, 1);
  checkInteger(d, join(path, 'maxGpuBudget'), o.maxGpuBudget, 1);
  checkInteger(d, join(path, 'adjustmentIntervalSeconds'), o.adjustmentIntervalSeconds, 1, 'a whole number of seconds > 0');
  if (o.loadPredictor !== undefined) {
    if (o.loadPredictor instanceof LoadPredictor) o.loadPredictor._validate(d, join(path, 'loadPredictor'), release);
    else d.error(join(path, 'loadPredictor'), `must be LoadPredictor.constant(), .arima(), .kalman() or .prophet(), got ${show(o.loadPredictor)}`, 'value-type');
  }
  checkNumber(d, join(path, 'ttftMs'), o.ttftMs, { min: 0, exclusiveMin: true });
  checkNumber(d, join(path, 'itlMs'), o.itlMs, { min: 0, exclusiveMin: true });
  checkPrometheusEndpoint(d, join(path, 'prometheusEndpoint'), o.prometheusEndpoint);
  checkString(d, join(path, 'profileResultsConfigMap'), o.profileResultsConfigMap);
  checkString(d, join(path, 'image'), o.image);
  checkEnvMap(d, join(path, 'env'), o.env);
  checkPodInfoFields(d, join(path, 'podInfoEnv'), o.podInfoEnv);
}

export { plannerBudgetProblem } from '../rules/planner';
export type { PlannedGraphGpus } from '../rules/planner';

/** Checks a planner that runs inside a graph (a DGD). */
export function checkGraphPlanner(d: Diagnostics, path: string, o: PlannerOptions, release: DynamoRelease | undefined): void {
  checkPlannerOptions(d, path, o, release, GRAPH_PLANNER_OPTION_KEYS);
  checkPodPlacement(d, path, o, release);
  if (o.ttftMs === undefined) d.error(join(path, 'ttftMs'), 'is required: the time-to-first-token target (ms) the planner scales for', 'required');
  if (o.itlMs === undefined) d.error(join(path, 'itlMs'), 'is required: the inter-token latency target (ms) the planner scales for', 'required');
}

/** GPUs per engine of the graph's prefill and decode workers, where they have GPUs. */
export interface EngineGpus {
  readonly prefill?: number;
  readonly decode?: number;
}

/**
 * The planner's command-line flags in a graph on 0.8/0.9; the 1.x planner reads `plannerConfig` from a
 * file instead. The 0.8/0.9 planner counts each engine as 1 GPU unless told (`--prefill-engine-num-gpu`,
 * `--decode-engine-num-gpu`), and sizes within its budget by that count: a graph of TP4 engines is told.
 * (1.x reads the GPUs per engine from the graph's status.)
 */
export function plannerFlags(ctx: GraphContext, o: PlannerOptions, gpus: EngineGpus = {}): string[] {
  const p = ctx.release.planner;
  const flags = [
    '--environment=kubernetes',
    `--backend=${ctx.backend.name}`,
    `--profile-results-dir=${p.profileResultsDir}`,
  ];
  if (o.adjustmentIntervalSeconds !== undefined) flags.push(`--adjustment-interval=${o.adjustmentIntervalSeconds}`);
  if (o.maxGpuBudget !== undefined) flags.push(`--max-gpu-budget=${o.maxGpuBudget}`);
  if (o.minEndpoint !== undefined) flags.push(`--min-endpoint=${o.minEndpoint}`);
  if (gpus.prefill !== undefined) flags.push(`--prefill-engine-num-gpu=${gpus.prefill}`);
  if (gpus.decode !== undefined) flags.push(`--decode-engine-num-gpu=${gpus.decode}`);
  flags.push(`--ttft=${o.ttftMs}`, `--itl=${o.itlMs}`);
  if (o.loadPredictor) flags.push(...o.loadPredictor._flags(ctx.release));
  if (o.prometheusEndpoint !== undefined) flags.push(`--metric-pulling-prometheus-endpoint=${prometheusUrl(o.prometheusEndpoint)}`);
  return flags;
}

/**
 * The planner's settings as a Dynamo 1.x PlannerConfig document (snake_case,
 * `dynamo/planner/config/planner_config.py`): SLA-driven scaling of a
 * disaggregated graph, with what the options set. `fixed` are the keys the
 * caller decides (a graph's backend and profiling results, a request's nothing).
 */
export function plannerConfig(o: PlannerOptions, release: DynamoRelease, fixed: Record<string, unknown> = {}): Record<string, unknown> {
  return prune({
    ...fixed,
    optimization_target: 'sla',
    ttft_ms: o.ttftMs,
    itl_ms: o.itlMs,
    throughput_adjustment_interval_seconds: o.adjustmentIntervalSeconds,
    max_gpu_budget: o.maxGpuBudget,
    min_endpoint: o.minEndpoint,
    ...o.loadPredictor?._configKeys(release, 'snake_case'),
    metric_pulling_prometheus_endpoint: o.prometheusEndpoint !== undefined ? prometheusUrl(o.prometheusEndpoint) : undefined,
  });
}

/** The ConfigMap holding a 1.x planner's PlannerConfig (`<graph>-<service>-config`). */
export function plannerConfigMapName(graphName: string, serviceName: string): string {
  return toKubeName(graphName, serviceName, 'config');
}

/** The planner service of a graph, and (Dynamo 1.x) the ConfigMap of its PlannerConfig. */
export function renderPlanner(ctx: GraphContext, serviceName: string, o: PlannerOptions, gpus: EngineGpus = {}): { service: DgdService; configMap?: KubeObject } {
  const p = ctx.release.planner;
  const config = p.config;
  const configMapName = config ? plannerConfigMapName(ctx.name, serviceName) : undefined;
  const configMap: KubeObject | undefined = config
    ? {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: prune({ name: configMapName!, namespace: ctx.namespace }),
      data: {
        [config.file]: JSON.stringify(
          plannerConfig(o, ctx.release, { environment: 'kubernetes', backend: ctx.backend.name, mode: 'disagg', profile_results_dir: p.profileResultsDir }),
          null,
          2,
        ),
      },
    }
    : undefined;
  const service = prune<DgdService>({
    componentType: 'planner',
    replicas: 1,
    // the planner loads no model: no cache mount, no HF_HOME
    envFromSecret: ctx.release.hfTokenSecret.planner ? ctx.hfTokenSecret : undefined,
    envs: serviceEnv(ctx, o.podInfoEnv, [{ name: p.metricsPortEnv, value: String(p.metricsPort) }], o.env, false),
    topologyConstraint: o.topologyConstraint,
    extraPodSpec: {
      imagePullSecrets: imagePullSecrets(ctx),
      ...podPlacement(ctx, o),
      volumes: [
        { name: PROFILE_RESULTS_VOLUME, configMap: { name: o.profileResultsConfigMap ?? DEFAULT_PROFILE_RESULTS_CONFIG_MAP } },
        ...(config ? [{ name: PLANNER_CONFIG_VOLUME, configMap: { name: configMapName } }] : []),
      ],
      mainContainer: {
        image: o.image ?? plannerImage(ctx),
        imagePullPolicy: ctx.imagePullPolicy,
        workingDir: p.workingDir,
        command: [...p.command],
        args: config ? ['--config', `${config.dir}/${config.file}`] : plannerFlags(ctx, o, gpus),
        ports: [{ name: 'metrics', containerPort: p.metricsPort, protocol: 'TCP' }],
        volumeMounts: [
          { name: PROFILE_RESULTS_VOLUME, mountPath: p.profileResultsDir, readOnly: true },
          ...(config ? [{ name: PLANNER_CONFIG_VOLUME, mountPath: config.dir, readOnly: true }] : []),
        ],
      },
    },
  });
  return { service, configMap };
}

/** The planner's image: the release's planner image, or (0.8/0.9) the graph's runtime image. */
function plannerImage(ctx: GraphContext): string {
  const image = ctx.release.planner.image;
  return image !== undefined ? `${ctx.release.registry}/${image}:${ctx.dynamoVersion}` : ctx.image;
}
