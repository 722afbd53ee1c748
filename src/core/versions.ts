import { Diagnostics, show } from './errors';

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

/** The Dynamo release the deployment guides were written for. */
export const DEFAULT_DYNAMO_VERSION = '0.9.0';

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

export interface DynamoRelease {
  /** Release line, `major.minor`. */
  readonly line: string;
  /** API version of DynamoGraphDeployment and DynamoGraphDeploymentRequest. */
  readonly apiVersion: string;
  /** Registry of the runtime images. */
  readonly registry: string;
  /**
   * CUDA major version of the plain `<backend>-runtime:<version>` tag, and the
   * tag suffix of each other CUDA major that was published.
   */
  readonly images: Readonly<Record<BackendName, { readonly plainCuda: number; readonly variants: Readonly<Record<number, string>> }>>;
  /** Exact image tags the release notes list as broken, with the reason. */
  readonly brokenImages: Readonly<Record<string, string>>;
  /** How vLLM workers are told their disaggregation role. */
  readonly vllmRoleFlags: { readonly prefill: readonly string[]; readonly decode: readonly string[] };
  /** The engines of the release's runtime images (`ai-dynamo[vllm|sglang|trtllm]` pins). */
  readonly engines: Readonly<Record<BackendName, EngineRelease>>;
  /** The dynamo-crds and dynamo-platform Helm charts of the release. */
  readonly platform: {
    readonly chartRepo: string;
    /** NATS config reloader image tag to install (the chart's own default is stale); undefined keeps the chart's. */
    readonly natsReloaderTag?: string;
  };
  /** The SLA planner: entry point, where it reads profiling results, its metrics port and defaults. */
  readonly planner: {
    readonly command: readonly string[];
    readonly workingDir: string;
    readonly profileResultsDir: string;
    /** Environment variable that sets the port of the planner's own metrics (0 = off). */
    readonly metricsPortEnv: string;
    readonly metricsPort: number;
    /** The planner's defaults, which apply when an option is not set. */
    readonly defaults: { readonly minEndpoint: number; readonly maxGpuBudget: number; readonly adjustmentIntervalSeconds: number };
    /** The load predictors the planner has, and how it takes their settings. */
    readonly loadPredictors: {
      readonly kinds: readonly LoadPredictorKind[];
      /** Whether it takes `--load-predictor-log1p`. */
      readonly log1p: boolean;
      /** Flag and DGDR `planner` key of Prophet's history window (0.8 has one window for every predictor). */
      readonly windowSize: { readonly flag: string; readonly key: string };
    };
  };
}

/** vLLM 0.12-0.14 and SGLang 0.5.6-0.5.8 take the same values. */
const VLLM_0_12_KV_DTYPES: readonly string[] = ['auto', 'bfloat16', 'fp8', 'fp8_ds_mla', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc'];
const VLLM_0_12_BLOCK_SIZES: readonly number[] = [1, 8, 16, 32, 64, 128, 256];
const SGLANG_0_5_6_KV_DTYPES: readonly string[] = ['auto', 'fp8_e5m2', 'fp8_e4m3', 'bf16', 'bfloat16', 'fp4_e2m1'];

const RELEASE_0_8_AND_0_9 = {
  apiVersion: 'nvidia.com/v1alpha1',
  registry: 'nvcr.io/nvidia/ai-dynamo',
  images: {
    vllm: { plainCuda: 12, variants: { 13: '-cuda13' } },
    sglang: { plainCuda: 12, variants: { 13: '-cuda13' } },
    // TensorRT-LLM runtime tags are CUDA 13 from 0.7.0 on; there is no CUDA 12 build.
    trtllm: { plainCuda: 13, variants: {} },
  },
  vllmRoleFlags: { prefill: ['--is-prefill-worker'], decode: ['--is-decode-worker'] },
  planner: {
    command: ['python3', '-m', 'planner_sla'],
    workingDir: '/workspace/components/src/dynamo/planner',
    profileResultsDir: '/workspace/profiling_results',
    metricsPortEnv: 'PLANNER_PROMETHEUS_PORT',
    metricsPort: 9085,
    defaults: { minEndpoint: 1, maxGpuBudget: 8, adjustmentIntervalSeconds: 180 },
  },
} as const;

// planner_argparse.py and load_predictor.py of each release (ai-dynamo wheels)
const PLANNER_0_8 = {
  ...RELEASE_0_8_AND_0_9.planner,
  loadPredictors: { kinds: ['constant', 'arima', 'prophet'], log1p: false, windowSize: { flag: '--load-prediction-window-size', key: 'loadPredictionWindowSize' } },
} as const;
const PLANNER_0_9 = {
  ...RELEASE_0_8_AND_0_9.planner,
  loadPredictors: { kinds: ['constant', 'arima', 'kalman', 'prophet'], log1p: true, windowSize: { flag: '--prophet-window-size', key: 'prophetWindowSize' } },
} as const;

export const RELEASES: Readonly<Record<string, DynamoRelease>> = {
  '0.8': {
    line: '0.8',
    ...RELEASE_0_8_AND_0_9,
    planner: PLANNER_0_8,
    platform: { chartRepo: 'https://helm.ngc.nvidia.com/nvidia/ai-dynamo' },
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
    ...RELEASE_0_8_AND_0_9,
    planner: PLANNER_0_9,
    // guide 1 step 5 installs the 0.9.0 platform with reloader 0.22.3
    platform: { chartRepo: 'https://helm.ngc.nvidia.com/nvidia/ai-dynamo', natsReloaderTag: '0.22.3' },
    engines: {
      vllm: { version: '0.14.1', kvCacheDtypes: VLLM_0_12_KV_DTYPES, blockSizes: VLLM_0_12_BLOCK_SIZES },
      sglang: { version: '0.5.8', kvCacheDtypes: SGLANG_0_5_6_KV_DTYPES },
      trtllm: { version: '1.3.0rc1' },
    },
    brokenImages: {},
  },
};

const VERSION = /^(\d+)\.(\d+)\.(\d+)(\.post\d+)?$/;

/** The Dynamo version options ask for, with the default applied. */
export function dynamoVersionOf(o: { readonly dynamoVersion?: string } | undefined): string {
  return o?.dynamoVersion ?? DEFAULT_DYNAMO_VERSION;
}

/** Looks up the release of `version`, recording an error on `d` if it is not supported. */
export function lookupRelease(d: Diagnostics, path: string, version: string): DynamoRelease | undefined {
  const m = typeof version === 'string' ? VERSION.exec(version) : null;
  const release = m ? RELEASES[`${m[1]}.${m[2]}`] : undefined;
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

const IMAGE_TAG = /:(\d+)\.(\d+)\.\d+(?:\.post\d+)?(?:-[A-Za-z0-9.]+)?$/;

/**
 * The release an image runs, read from its tag (`vllm-runtime:0.9.0-cuda13`),
 * or undefined for a tag that names no supported release.
 */
export function releaseOfImage(image: unknown): DynamoRelease | undefined {
  const m = typeof image === 'string' ? IMAGE_TAG.exec(image) : null;
  return m ? RELEASES[`${m[1]}.${m[2]}`] : undefined;
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

/** The release of `version`; throws if unsupported (validate first). */
export function releaseOf(version: string): DynamoRelease {
  const m = VERSION.exec(version);
  const release = m ? RELEASES[`${m[1]}.${m[2]}`] : undefined;
  if (!release) throw new Error(`unsupported Dynamo version ${version}`);
  return release;
}
