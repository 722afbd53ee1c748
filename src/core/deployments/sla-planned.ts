import { checkAiConfiguratorSupport } from '../releases/aiconfigurator';
import { Backend, checkBackend } from '../engines/backend';
import {
  checkBoolean,
  checkDnsLabel,
  checkDnsSubdomain,
  checkFiniteNumbers,
  checkInteger,
  checkKnownKeys,
  checkModel,
  checkNumber,
  checkOneOf,
  checkString,
  checkNameRef,
  checkNameRefs,
  checkObject,
  checkStringMap,
  isPlainObject,
  join,
  optionKeys,
} from '../base/checks';
import { dedupe, Diagnostics, show, ValidationWarning } from '../base/errors';
import { findingsOnEveryRelease, IModelCache } from '../graph/graph';
import { ComputeResources, KubeObject, NameRef, nameOf } from '../base/k8s';
import { checkObservability, ObservabilityOptions, ObservedGraph, renderObservability } from '../observability/observability';
import { checkPlannerOptions, PLANNER_OPTION_KEYS, PlannerOptions, plannerConfig } from '../graph/planner';
import { checkRequestManifest, Finding, reportDraftFindings, reportFindings } from '../rules';
import { checkResources, renderResources } from '../graph/service';
import { DynamoRelease, dynamoVersionOf, lookupRelease, releaseOf } from '../releases/versions';
import { writeRequest } from '../model/request-formats';
import { ProfilingHardware, ProfilingWorkload, SlaRequestModel } from '../model/sla-request';

export type { ProfilingHardware, ProfilingWorkload } from '../model/sla-request';
import { at } from '../model/graph-model';
import { checkTolerations, Toleration } from '../graph/worker';

/**
 * The Secret the graph Dynamo's profiler generates reads `HF_TOKEN` from: a fixed name in 1.6.1's
 * templates and AISimulate generator, and in the 0.8/0.9 examples its configs derive from.
 */
export const GENERATED_HF_TOKEN_SECRET = 'hf-token-secret';

/** The service level a deployment is sized for. */
export interface Sla {
  /** Input sequence length in tokens. */
  readonly isl: number;
  /** Output sequence length in tokens. */
  readonly osl: number;
  /** Time-to-first-token target in milliseconds. */
  readonly ttftMs: number;
  /** Inter-token latency target in milliseconds. */
  readonly itlMs: number;
}

const SLA_KEYS = optionKeys<Sla>()('isl', 'osl', 'ttftMs', 'itlMs');

/**
 * Dynamo 0.9 only: offline profiling with AIConfigurator instead of trial deployments (seconds
 * instead of hours), written to the v1alpha1 request's `profilingConfig.config.sweep`. The 1.x
 * request (1.6.1 included) has no such field: it profiles with its built-in AISimulate model
 * (`searchStrategy: 'rapid'`, `hardware.gpuSku`).
 */
export interface AiConfiguratorOptions {
  /** 0.9: GPU system of the cluster: a100_sxm, b200_sxm, gb200_sxm, h100_sxm, h200_sxm or l40s. */
  readonly system: string;
  /** 0.9: backend version of the performance data, e.g. "0.12.0" for vLLM (guide 1 section 7). */
  readonly backendVersion: string;
  /**
   * 0.9: Hugging Face id AIConfigurator models.
   * @default - the model
   */
  readonly hfId?: string;
}

const AIC_KEYS = optionKeys<AiConfiguratorOptions>()('system', 'backendVersion', 'hfId');

/**
 * Metadata and image of the DynamoGraphDeployment the profiler generates. 1.x (1.6.1 included):
 * `name`, `labels` and `annotations` go to `overrides.dgd.metadata`, and `namespace` and
 * `workersImage` are errors. 0.8/0.9: every field, in `spec.deploymentOverrides`.
 */
export interface DeploymentOverrides {
  /**
   * Name of the generated graph.
   * @default - the request's name
   */
  readonly name?: string;
  /**
   * 0.8/0.9 only: namespace of the generated graph (the 1.x graph is created in the request's namespace).
   * @default - the request's namespace
   */
  readonly namespace?: string;
  /** Labels of the generated graph. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations of the generated graph. @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
  /**
   * 0.8/0.9 only: image of the generated graph's workers (and of online profiling trials). 1.x
   * derives the worker images from `profilerImage`.
   * @default - the backend's runtime image of `dynamoVersion` (0.8/0.9), so the graph runs the release that profiled it
   */
  readonly workersImage?: string;
}

const OVERRIDE_KEYS = optionKeys<DeploymentOverrides>()('name', 'namespace', 'labels', 'annotations', 'workersImage');

const HARDWARE_KEYS = optionKeys<ProfilingHardware>()('minGpusPerEngine', 'maxGpusPerEngine', 'gpusPerNode', 'gpuSku', 'vramMb', 'totalGpus', 'interconnect', 'rdma');

const WORKLOAD_KEYS = optionKeys<ProfilingWorkload>()('concurrency', 'requestRate');

/** GPU types the Dynamo 1.6.1 request takes (`dgdr_v1beta1_types.py` GPUSKUType). */
export const GPU_SKUS: readonly string[] = [
  'vr_nvl72', 'gb200', 'gb200_sxm', 'gb10', 'b300_sxm', 'b200_sxm', 'h200_sxm', 'h100_sxm', 'h100_pcie',
  'a100_sxm', 'a100_pcie', 'a30', 'l40s', 'l40', 'l4', 'v100_sxm', 'v100_pcie', 't4', 'mi200', 'mi300',
];

/** 0.8/0.9: a reference to a ConfigMap key holding the base DynamoGraphDeployment the profiler starts from. */
export interface BaseConfigRef {
  /** The ConfigMap. */
  readonly name: NameRef;
  /**
   * Key of the base config.
   * @default 'disagg.yaml'
   */
  readonly key?: string;
}

/**
 * An SLA-planned deployment: a DynamoGraphDeploymentRequest (guide 1). On 1.x (1.6.1 included)
 * a `nvidia.com/v1beta1` request: `model`, `backend`, `image`, `hardware`, `workload` and `sla` at
 * the top, the planner's PlannerConfig under `features.planner`, overrides under `overrides`. On
 * 0.8/0.9 a `nvidia.com/v1alpha1` request: `profilingConfig` and `deploymentOverrides`. An option
 * of the other API is an error that names what replaces it.
 */
export interface SlaPlannedDeploymentOptions {
  /** Hugging Face model id. */
  readonly model: string;
  /** The inference engine. */
  readonly backend: Backend;
  /**
   * Dynamo release of the platform: selects the request's API version (1.x `nvidia.com/v1beta1`,
   * 0.8/0.9 `nvidia.com/v1alpha1`), its images and, on 0.9, the AIConfigurator data.
   * @default '1.6.1' (DEFAULT_DYNAMO_VERSION)
   */
  readonly dynamoVersion?: string;
  /** The SLA to profile and plan for. */
  readonly sla: Sla;
  /**
   * Image of the profiling job. 1.x: `spec.image`, from which the profiler also derives the
   * images of the graph it generates (a tag that is not `X.Y.Z` adds `runtimeVersionOverride`);
   * 0.8/0.9: `profilingConfig.profilerImage`.
   * @default - 1.x: the release's planner image, `nvcr.io/nvidia/ai-dynamo/dynamo-planner:1.6.1` on 1.6.1
   * (`dynamo-planner:<dynamoVersion>`); 0.8/0.9: the backend's runtime image of `dynamoVersion`
   */
  readonly profilerImage?: string;
  /**
   * 0.9 only: profile offline with AIConfigurator (`profilingConfig.config.sweep`). An error on
   * 1.x, whose profiler models the hardware itself: use `searchStrategy: 'rapid'` and `hardware.gpuSku`.
   * @default - 0.8/0.9: online profiling with trial deployments (hours)
   */
  readonly aiConfigurator?: AiConfiguratorOptions;
  /**
   * The planner of the generated graph: `minEndpoint`, `maxGpuBudget`,
   * `adjustmentIntervalSeconds`, `loadPredictor`. TTFT and ITL come from `sla`. 1.x: a
   * PlannerConfig in `features.planner`, always written (its presence enables the planner);
   * 0.8/0.9: `profilingConfig.config.planner`.
   * @default - the planner's defaults
   */
  readonly planner?: PlannerOptions;
  /**
   * Create the graph as soon as profiling completes; otherwise the profiler's choice waits for
   * review (1.x: in `status.profilingResults.selectedConfig`; 0.x: `status.generatedDeployment`).
   * Always written: the 1.x CRD defaults it to true and the 0.x CRD to false, so a request that
   * leaves it out deploys GPUs on one release line and not on the other.
   * @default false (written as `autoApply: false`)
   */
  readonly autoApply?: boolean;
  /**
   * The Secret holding `HF_TOKEN` for gated models. The graph the profiler generates reads a
   * Secret of the fixed name `hf-token-secret` (1.6.1: in every component, from the profiler's
   * templates and its AISimulate generator; 0.8/0.9: in the workers, as Dynamo's examples), and
   * the request has no field to rename it, so this must name that Secret. 1.x also gives it to
   * the profiling Job (`overrides.profilingJob`), which reads the model's configuration.
   * @default - none (the generated graph still reads `hf-token-secret`: create it for a gated model)
   */
  readonly hfTokenSecret?: NameRef;
  /**
   * 1.x: Secrets to pull the profiler's image with, on the profiling Job
   * (`overrides.profilingJob`). The profiler writes no pull secrets into the graph it
   * generates; its components take them from `graphOverride`.
   * @default - none
   */
  readonly imagePullSecrets?: readonly NameRef[];
  /**
   * Metadata (and, on 0.8/0.9, namespace and image) of the generated graph; see `DeploymentOverrides`.
   * @default - 1.x: none; 0.8/0.9: `workersImage` only
   */
  readonly deploymentOverrides?: DeploymentOverrides;
  /**
   * Simulated engines (no GPUs) to exercise the planner. 1.x: the generated graph runs Dynamo's
   * mocker in place of the engines (`features.mocker.enabled`); 0.8/0.9: the operator also
   * creates a `<name>-mocker` graph beside the real one (`spec.deployMocker`).
   * @default false
   */
  readonly deployMocker?: boolean;
  /**
   * A rehearsal without GPUs, the same as `deployMocker: true`: on 1.x the generated graph runs
   * Dynamo's mocker engines in place of the engines (`features.mocker`); on 0.8/0.9 the request
   * also deploys a `<name>-mocker` graph from the same profile (`deployMocker`).
   * @default false
   */
  readonly rehearsal?: boolean;
  /**
   * 0.8/0.9 only: discover GPUs from the cluster's nodes (needs a cluster-scoped operator);
   * replaces `hardware`. An error on 1.x, which discovers what `hardware` leaves out.
   * @default false
   */
  readonly enableGpuDiscovery?: boolean;
  /**
   * The GPUs profiling searches over (0.8/0.9) or describes (1.x); see `ProfilingHardware`.
   * @default - 1.x: discovered from the nodes; 0.8/0.9: the profiler's choice
   */
  readonly hardware?: ProfilingHardware;
  /**
   * PVC holding model weights for profiling (1.x: `spec.modelCache`, `pvcName`
   * and `pvcMountPath`; 0.8/0.9: `profilingConfig.config.deployment.modelCache`).
   * @default - none
   */
  readonly modelCache?: IModelCache;
  /**
   * 0.8/0.9 only: PVC that keeps all profiling artifacts (`profilingConfig.outputPVC`). An error
   * on 1.x: mount a volume through `profilingJob`.
   * @default - an emptyDir, lost with the job
   */
  readonly outputPvc?: NameRef;
  /**
   * 0.8/0.9 only: ConfigMap with the base DynamoGraphDeployment to profile from
   * (`profilingConfig.configMapRef`). An error on 1.x: use `graphOverride`.
   * @default - the profiler's built-in config
   */
  readonly configMapRef?: BaseConfigRef;
  /**
   * CPU and memory of the profiling job (1.x: its `profiler` container in
   * `overrides.profilingJob`; 0.8/0.9: `profilingConfig.resources`).
   * @default - the operator's
   */
  readonly resources?: ComputeResources;
  /**
   * Tolerations of the profiling job (1.x: in `overrides.profilingJob`; 0.8/0.9: `profilingConfig.tolerations`).
   * @default - none
   */
  readonly tolerations?: readonly Toleration[];
  /** Labels of the request object. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations of the request object. @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
  /** 1.x: `rapid` (a fast sweep with the built-in AISimulate model) or `thorough`. @default 'rapid' (the operator's) */
  readonly searchStrategy?: 'rapid' | 'thorough';
  /** 1.x: the request rate or concurrency to size for. @default - neither */
  readonly workload?: ProfilingWorkload;
  /** 1.x: KV-cache-aware routing in the generated graph (`features.kvRouter`). @default false */
  readonly kvRouter?: boolean;
  /** 1.x: let the engines run the model repository's own code (`overrides.trustRemoteCode`). @default false */
  readonly trustRemoteCode?: boolean;
  /**
   * 1.x: a batch/v1 JobSpec fragment merged into the profiling Job (`overrides.profilingJob`);
   * `resources` and `tolerations` are merged into it.
   * @default - none
   */
  readonly profilingJob?: Readonly<Record<string, unknown>>;
  /**
   * 1.x: a v1beta1 DynamoGraphDeployment `spec` fragment merged into the generated graph
   * (`overrides.dgd`); it may only touch components the profiler generates (Frontend, Planner, prefill, decode).
   * @default - none
   */
  readonly graphOverride?: Readonly<Record<string, unknown>>;
  /**
   * Dashboards, SLA alerts and PodMonitors for the generated graph; thresholds come from `sla`.
   * @default - none
   */
  readonly observability?: ObservabilityOptions;
}

const SLA_PLANNED_KEYS = optionKeys<SlaPlannedDeploymentOptions>()(
  'model',
  'backend',
  'dynamoVersion',
  'sla',
  'profilerImage',
  'aiConfigurator',
  'planner',
  'autoApply',
  'hfTokenSecret',
  'imagePullSecrets',
  'deploymentOverrides',
  'deployMocker',
  'rehearsal',
  'enableGpuDiscovery',
  'hardware',
  'modelCache',
  'outputPvc',
  'configMapRef',
  'resources',
  'tolerations',
  'labels',
  'annotations',
  'observability',
  'searchStrategy',
  'workload',
  'kvRouter',
  'trustRemoteCode',
  'profilingJob',
  'graphOverride',
);

/**
 * Options of one request API only (the v1beta1 request is a redesign), with
 * what takes their place in the other: setting one for the other API is an error
 * that says so.
 */
const REQUEST_ONLY: Record<DynamoRelease['apiVersion'], Record<string, string>> = {
  // options of the 0.8/0.9 request, and their 1.x replacements
  'nvidia.com/v1alpha1': {
    'aiConfigurator': "searchStrategy: 'rapid' (1.x profiles with its built-in AISimulate model; hardware.gpuSku selects the system)",
    'enableGpuDiscovery': 'leaving hardware out (1.x discovers it from the nodes)',
    'configMapRef': 'graphOverride (1.x merges it into the generated graph)',
    'outputPvc': 'profilingJob (mount a volume in the profiling Job)',
    'deploymentOverrides.namespace': "nothing: the 1.x graph is created in the request's namespace",
    'deploymentOverrides.workersImage': 'profilerImage (1.x derives the worker images from it)',
    'hardware.minGpusPerEngine': 'hardware.totalGpus (the 1.x budget the profiler searches within)',
    'hardware.maxGpusPerEngine': 'hardware.totalGpus (the 1.x budget the profiler searches within)',
  },
  // options of the 1.x request, and what the 0.8/0.9 one has instead
  'nvidia.com/v1beta1': {
    'searchStrategy': 'aiConfigurator (offline) or online profiling',
    'workload': 'sla.isl and sla.osl only',
    'kvRouter': 'nothing in the request: patch the generated graph',
    'trustRemoteCode': 'nothing in the request: patch the generated graph',
    'profilingJob': 'resources, tolerations and outputPvc',
    'imagePullSecrets': 'nothing in the request: the 0.8/0.9 profiling Job has no pull secrets',
    'graphOverride': 'configMapRef (a base graph) and deploymentOverrides',
    'hardware.gpuSku': 'aiConfigurator.system',
    'hardware.vramMb': 'nothing: the 0.8/0.9 profiler measures it',
    'hardware.totalGpus': 'hardware.minGpusPerEngine and hardware.maxGpusPerEngine',
    'hardware.interconnect': 'nothing: the 0.8/0.9 profiler does not model it',
    'hardware.rdma': 'nothing: the 0.8/0.9 profiler does not model it',
  },
};

function checkRequestApi(d: Diagnostics, o: SlaPlannedDeploymentOptions, release: DynamoRelease): void {
  for (const [api, options] of Object.entries(REQUEST_ONLY)) {
    if (api === release.apiVersion) continue;
    for (const [path, instead] of Object.entries(options)) {
      if (at(o, path) === undefined) continue;
      d.error(path, `is not part of the Dynamo ${release.line}.x request (${release.apiVersion}); use ${instead}`, 'unsupported-on-release');
    }
  }
}

/** Planner options a request cannot carry, and why. */
const PLANNER_NOT_IN_REQUEST: Partial<Record<keyof PlannerOptions, string>> = {
  ttftMs: 'comes from sla.ttftMs, so the profiler and the planner target the same SLA',
  itlMs: 'comes from sla.itlMs, so the profiler and the planner target the same SLA',
  prometheusEndpoint: "is set on the Dynamo platform (its prometheusEndpoint value), which the generated planner reads",
  profileResultsConfigMap: 'is written by the profiler of this request',
  image: 'follows the request: 1.x derives the generated graph\'s images from profilerImage, 0.8/0.9 from deploymentOverrides.workersImage',
  env: 'is not part of a request; patch the generated graph instead',
  podInfoEnv: 'is not part of a request; patch the generated graph instead',
  affinity: 'is not part of a request: it has no planner pod to place; patch the generated graph instead',
  priorityClassName: 'is not part of a request: it has no planner pod to place; patch the generated graph instead',
  topologySpreadConstraints: 'is not part of a request: it has no planner pod to place; patch the generated graph instead',
  topologyConstraint: 'is not part of a request: it has no planner pod to place; patch the generated graph instead',
};

export function checkSla(d: Diagnostics, path: string, sla: unknown): sla is Sla {
  if (!isPlainObject(sla)) {
    if (sla === undefined) d.error(path, 'is required: { isl, osl, ttftMs, itlMs }', 'required');
    else d.error(path, `must be { isl, osl, ttftMs, itlMs }, got ${show(sla)}`, 'value-type');
    return false;
  }
  checkKnownKeys(d, path, sla, SLA_KEYS);
  for (const key of ['isl', 'osl'] as const) {
    if (sla[key] === undefined) d.error(join(path, key), 'is required: a whole number of tokens', 'required');
    else checkInteger(d, join(path, key), sla[key], 1, 'a whole number of tokens > 0');
  }
  for (const key of ['ttftMs', 'itlMs'] as const) {
    if (sla[key] === undefined) d.error(join(path, key), 'is required: a latency target in milliseconds', 'required');
    else checkNumber(d, join(path, key), sla[key], { min: 0, exclusiveMin: true });
  }
  return true;
}

/** Checks every option of an SLA-planned deployment; returns the release when supported. */
export function checkSlaPlanned(d: Diagnostics, name: string, namespace: string | undefined, o: SlaPlannedDeploymentOptions): DynamoRelease | undefined {
  if (!isPlainObject(o)) {
    if (o === undefined) d.error('(options)', 'are required: { model, backend, sla, ... }', 'required');
    else d.error('(options)', `must be an object of SlaPlannedDeployment options, got ${show(o)}`, 'value-type');
    return undefined;
  }
  checkKnownKeys(d, '', o, SLA_PLANNED_KEYS);
  checkDnsSubdomain(d, 'name', name, '; pass `name` to choose the request name');
  if (namespace !== undefined) checkDnsLabel(d, 'namespace', namespace);
  checkModel(d, 'model', o.model);
  const backendOk = checkBackend(d, 'backend', o.backend);
  const version = dynamoVersionOf(o);
  const release = lookupRelease(d, 'dynamoVersion', version);
  if (backendOk) o.backend._validate(d, 'backend', release, version);
  if (release) checkRequestApi(d, o, release);
  checkSla(d, 'sla', o.sla);
  checkString(d, 'profilerImage', o.profilerImage);

  if (o.aiConfigurator !== undefined) {
    if (!isPlainObject(o.aiConfigurator)) {
      d.error('aiConfigurator', `must be { system, backendVersion, hfId? }, got ${show(o.aiConfigurator)}`, 'value-type');
    } else {
      checkKnownKeys(d, 'aiConfigurator', o.aiConfigurator, AIC_KEYS);
      checkModel(d, 'aiConfigurator.hfId', o.aiConfigurator.hfId, { required: false, idOnly: true });
      if (backendOk && release && release.apiVersion === 'nvidia.com/v1alpha1') {
        checkAiConfiguratorSupport(d, 'aiConfigurator', release.line, o.backend.name, o.aiConfigurator.system, o.aiConfigurator.backendVersion);
      }
    }
  }

  if (o.planner !== undefined) {
    if (!isPlainObject(o.planner)) {
      d.error('planner', `must be an object of planner options, got ${show(o.planner)}`, 'value-type');
    } else {
      // every planner option is known here, so that those a request cannot carry say why
      checkPlannerOptions(d, 'planner', o.planner, release, [...PLANNER_OPTION_KEYS, ...Object.keys(PLANNER_NOT_IN_REQUEST)]);
      for (const [key, why] of Object.entries(PLANNER_NOT_IN_REQUEST)) {
        if ((o.planner as Record<string, unknown>)[key] !== undefined) d.error(join('planner', key), `cannot be set on an SLA-planned deployment: it ${why}`, 'option-conflict');
      }
    }
  }

  checkBoolean(d, 'autoApply', o.autoApply);
  checkNameRef(d, 'hfTokenSecret', o.hfTokenSecret);
  const hfToken = typeof o.hfTokenSecret === 'string' ? o.hfTokenSecret : typeof o.hfTokenSecret === 'object' && o.hfTokenSecret !== null ? (o.hfTokenSecret as { name?: unknown }).name : undefined;
  if (typeof hfToken === 'string' && hfToken !== GENERATED_HF_TOKEN_SECRET) {
    d.error(
      'hfTokenSecret',
      `is ${show(hfToken)}, but the graph Dynamo's profiler generates reads the Secret ${show(GENERATED_HF_TOKEN_SECRET)} and the request cannot rename it; name the Secret ${show(GENERATED_HF_TOKEN_SECRET)}`,
      'value-format',
    );
  }
  checkNameRefs(d, 'imagePullSecrets', o.imagePullSecrets);
  checkBoolean(d, 'deployMocker', o.deployMocker);
  checkBoolean(d, 'rehearsal', o.rehearsal);
  if (o.rehearsal !== undefined && o.deployMocker !== undefined && o.rehearsal !== o.deployMocker) {
    d.error('rehearsal', `is ${o.rehearsal}, but deployMocker is ${o.deployMocker}; a rehearsal is a mocker deployment: set one of them`, 'option-conflict');
  }
  checkBoolean(d, 'enableGpuDiscovery', o.enableGpuDiscovery);

  const ov = o.deploymentOverrides;
  if (ov !== undefined) {
    if (!isPlainObject(ov)) {
      d.error('deploymentOverrides', `must be an object, got ${show(ov)}`, 'value-type');
    } else {
      checkKnownKeys(d, 'deploymentOverrides', ov, OVERRIDE_KEYS);
      checkDnsLabel(d, 'deploymentOverrides.name', ov.name);
      checkDnsLabel(d, 'deploymentOverrides.namespace', ov.namespace);
      checkStringMap(d, 'deploymentOverrides.labels', ov.labels);
      checkStringMap(d, 'deploymentOverrides.annotations', ov.annotations);
      checkString(d, 'deploymentOverrides.workersImage', ov.workersImage);
    }
  }

  const hw = checkObject(d, 'hardware', o.hardware, 'an object { gpuSku?, totalGpus?, gpusPerNode?, ... }') ? (o.hardware as ProfilingHardware) : undefined;
  if (hw !== undefined) {
    checkKnownKeys(d, 'hardware', hw, HARDWARE_KEYS);
    const minOk = checkInteger(d, 'hardware.minGpusPerEngine', hw.minGpusPerEngine, 1);
    const maxOk = checkInteger(d, 'hardware.maxGpusPerEngine', hw.maxGpusPerEngine, 1);
    checkInteger(d, 'hardware.gpusPerNode', hw.gpusPerNode, 1);
    checkOneOf(d, 'hardware.gpuSku', hw.gpuSku, GPU_SKUS);
    checkNumber(d, 'hardware.vramMb', hw.vramMb, { min: 0, exclusiveMin: true });
    checkInteger(d, 'hardware.totalGpus', hw.totalGpus, 1);
    checkString(d, 'hardware.interconnect', hw.interconnect);
    checkBoolean(d, 'hardware.rdma', hw.rdma);
    if (minOk && maxOk && hw.minGpusPerEngine !== undefined && hw.maxGpusPerEngine !== undefined && hw.minGpusPerEngine > hw.maxGpusPerEngine) {
      d.error('hardware.maxGpusPerEngine', `is ${hw.maxGpusPerEngine}, below minGpusPerEngine ${hw.minGpusPerEngine}`, 'value-range');
    }
    if (o.enableGpuDiscovery) {
      d.error('hardware', 'is replaced by what enableGpuDiscovery finds on the nodes; set one of them', 'option-conflict');
    }
  }

  if (o.modelCache !== undefined && (typeof o.modelCache?.claimName !== 'string' || typeof o.modelCache?.mountPath !== 'string')) {
    d.error('modelCache', `must be a ModelCache (a claim name and a mount path), got ${show(o.modelCache)}`, 'value-type');
  }
  checkNameRef(d, 'outputPvc', o.outputPvc);
  if (o.configMapRef !== undefined) {
    if (!isPlainObject(o.configMapRef)) d.error('configMapRef', `must be { name, key? }, got ${show(o.configMapRef)}`, 'value-type');
    else {
      checkKnownKeys(d, 'configMapRef', o.configMapRef, ['name', 'key']);
      if (o.configMapRef.name === undefined) d.error('configMapRef.name', 'is required: the ConfigMap holding the base config', 'required');
      checkNameRef(d, 'configMapRef.name', o.configMapRef.name);
      checkString(d, 'configMapRef.key', o.configMapRef.key);
    }
  }
  checkResources(d, 'resources', o.resources);
  checkTolerations(d, 'tolerations', o.tolerations);
  checkOneOf(d, 'searchStrategy', o.searchStrategy, ['rapid', 'thorough']);
  if (checkObject(d, 'workload', o.workload, 'an object { concurrency?, requestRate? }')) {
    const w = o.workload as ProfilingWorkload;
    checkKnownKeys(d, 'workload', w, WORKLOAD_KEYS);
    checkNumber(d, 'workload.concurrency', w.concurrency, { min: 0, exclusiveMin: true });
    checkNumber(d, 'workload.requestRate', w.requestRate, { min: 0, exclusiveMin: true });
    if (w.concurrency !== undefined && w.requestRate !== undefined) {
      d.error('workload.requestRate', 'is set, and so is concurrency; the profiler sizes for one of them', 'option-conflict');
    }
  }
  checkBoolean(d, 'kvRouter', o.kvRouter);
  checkBoolean(d, 'trustRemoteCode', o.trustRemoteCode);
  if (checkObject(d, 'profilingJob', o.profilingJob, 'a batch/v1 JobSpec fragment')) checkFiniteNumbers(d, 'profilingJob', o.profilingJob);
  if (checkObject(d, 'graphOverride', o.graphOverride, 'a DynamoGraphDeployment spec fragment')) checkFiniteNumbers(d, 'graphOverride', o.graphOverride);
  checkStringMap(d, 'labels', o.labels);
  checkStringMap(d, 'annotations', o.annotations);
  if (isPlainObject(o.sla)) checkObservability(d, 'observability', o.observability, { ttftMs: o.sla.ttftMs, itlMs: o.sla.itlMs });

  return release;
}

/** The graph an SLA request generates, as monitoring sees it (profiler naming: Frontend, Planner). */
export function slaPlannedObservedGraph(name: string, namespace: string | undefined, o: SlaPlannedDeploymentOptions): ObservedGraph {
  return {
    graphName: o.deploymentOverrides?.name ?? name,
    namespace: o.deploymentOverrides?.namespace ?? namespace,
    frontendService: 'Frontend',
    plannerService: 'Planner',
    sla: { ttftMs: o.sla.ttftMs, itlMs: o.sla.itlMs },
    dynamoVersion: dynamoVersionOf(o),
    // the monitors' interval follows the planner's window
    plannerAdjustmentIntervalSeconds: Number.isInteger(o.planner?.adjustmentIntervalSeconds) && o.planner!.adjustmentIntervalSeconds! > 0 ? o.planner!.adjustmentIntervalSeconds : undefined,
  };
}

/** Validates an SLA-planned deployment and renders its DynamoGraphDeploymentRequest. */
export function renderSlaPlanned(
  name: string,
  namespace: string | undefined,
  o: SlaPlannedDeploymentOptions,
): { object: KubeObject; observability: KubeObject[]; warnings: readonly ValidationWarning[] } {
  const d = new Diagnostics();
  const release = checkSlaPlanned(d, name, namespace, o);
  // the rules `dynamo-constructs lint` runs, on the rendered request, reported at the options
  const locate = (f: Finding) => f.option ?? f.field;
  if (d.errors.length > 0) {
    // with an unsupported release, what every supported release finds alike
    const draft = (version: string) => checkRequestManifest(buildRequest(name, namespace, { ...o, dynamoVersion: version }));
    reportDraftFindings(d, () => (release ? draft(dynamoVersionOf(o)) : findingsOnEveryRelease((_r, version) => draft(version), locate)), locate, []);
    d.throwIfErrors();
  }
  const object = buildRequest(name, namespace, o);
  reportFindings(d, checkRequestManifest(object), locate);
  d.throwIfErrors();
  const observability = o.observability ? renderObservability(slaPlannedObservedGraph(name, namespace, o), o.observability) : [];
  return { object, observability, warnings: dedupe(d.warnings) };
}

function buildRequest(name: string, namespace: string | undefined, o: SlaPlannedDeploymentOptions): KubeObject {
  return writeRequest(slaRequestModel(name, namespace, o));
}

/** The request's model: every value resolved for its release, for the writer of its API version. */
function slaRequestModel(name: string, namespace: string | undefined, o: SlaPlannedDeploymentOptions): SlaRequestModel {
  const version = dynamoVersionOf(o);
  const release = releaseOf(version);
  const ov = o.deploymentOverrides;
  const aic = o.aiConfigurator;
  return {
    name,
    namespace,
    labels: o.labels,
    annotations: o.annotations,
    release,
    version,
    model: o.model,
    backend: o.backend.name,
    sla: o.sla,
    workload: o.workload,
    hardware: o.hardware,
    modelCache: o.modelCache ? { claimName: o.modelCache.claimName, mountPath: o.modelCache.mountPath } : undefined,
    aiConfigurator: aic ? { system: aic.system, backendVersion: aic.backendVersion, hfId: aic.hfId ?? o.model } : undefined,
    profilerImage: o.profilerImage,
    runtimeImage: o.backend._image(release, version),
    planner: {
      given: o.planner !== undefined,
      minEndpoint: o.planner?.minEndpoint,
      maxGpuBudget: o.planner?.maxGpuBudget,
      adjustmentIntervalSeconds: o.planner?.adjustmentIntervalSeconds,
      predictorKeys: o.planner?.loadPredictor?._configKeys(release),
      config: plannerConfig(o.planner ?? {}, release, { backend: o.backend.name }),
    },
    profiling: {
      resources: renderResources(o.resources),
      tolerations: o.tolerations,
      imagePullSecrets: o.imagePullSecrets?.map(nameOf),
      hfTokenSecret: o.hfTokenSecret !== undefined ? nameOf(o.hfTokenSecret) : undefined,
      job: o.profilingJob,
      configMapRef: o.configMapRef ? { name: nameOf(o.configMapRef.name), key: o.configMapRef.key } : undefined,
      outputPvc: o.outputPvc !== undefined ? nameOf(o.outputPvc) : undefined,
      searchStrategy: o.searchStrategy,
      enableGpuDiscovery: o.enableGpuDiscovery,
    },
    autoApply: o.autoApply ?? false,
    // a rehearsal's generated graph runs the mocker
    mocker: o.deployMocker ?? (o.rehearsal === true ? true : undefined),
    kvRouter: o.kvRouter,
    trustRemoteCode: o.trustRemoteCode,
    generated: { name: ov?.name, namespace: ov?.namespace, labels: ov?.labels, annotations: ov?.annotations, workersImage: ov?.workersImage, spec: o.graphOverride },
  };
}
