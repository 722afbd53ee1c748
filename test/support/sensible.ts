/**
 * Generators of sensible deployments: options a platform engineer would write, kept inside every
 * cross-component rule of the library (one block size and one KV dtype per graph, GPUs >= TP x PP,
 * a KV router on the workers' block size, a planner budget that covers the graph). The fuzz tests
 * render them, and the conformance suite runs a seeded sample of them through Dynamo's own parsers.
 */
import * as fc from 'fast-check';
import { Backend, DEFAULT_DYNAMO_VERSION, RELEASES, EnvValue, Fabric, LoadPredictor, LoadPredictorKind, releaseOf, Router } from '../../src/core/internal';

export type BackendName = 'vllm' | 'sglang' | 'trtllm';
export const BACKENDS: Record<BackendName, typeof Backend.vllm> = { vllm: Backend.vllm, sglang: Backend.sglang, trtllm: Backend.trtllm };
export const POD_INFO = ['POD_UID', 'POD_NAME', 'POD_NAMESPACE', 'POD_IP'] as const;

/** An object's keys whose value is undefined are dropped (what a user leaving an option out writes). */
export function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Options objects with ordinary prototypes; keys not in `required` may be left out. */
export function record<T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }, required: (keyof T)[] = []) {
  return fc.record(model, { requiredKeys: required, noNullPrototype: true });
}
export function dictionary<T>(keys: fc.Arbitrary<string>, values: fc.Arbitrary<T>, maxKeys: number, minKeys = 0) {
  return fc.dictionary(keys, values, { minKeys, maxKeys, noNullPrototype: true });
}

/** Model ids of 32B+ parameters (a small model only adds an advisory warning). */
export const modelId = fc
  .tuple(fc.constantFrom('org', 'acme', 'meta-llama', 'Qwen'), fc.constantFrom('Model', 'Llama-3.3', 'Qwen3', 'Mega'), fc.constantFrom(32, 70, 72, 235, 405), fc.constantFrom('', '-Instruct', '-FP8'))
  .map(([org, family, size, suffix]) => `${org}/${family}-${size}B${suffix}`);

/** KV cache dtypes the engine of a release accepts (TensorRT-LLM's, for which the library has no list: two it documents). */
function kvDtypes(name: BackendName, dynamoVersion: string | undefined): readonly string[] {
  return releaseOf(dynamoVersion ?? DEFAULT_DYNAMO_VERSION).engines[name].kvCacheDtypes ?? ['auto', 'fp8'];
}

/** The settings every worker of a graph shares: engine, release, block size and KV dtype. */
interface Engine {
  readonly name: BackendName;
  readonly backend: Backend;
  readonly dynamoVersion?: string;
  readonly blockSize?: number;
  readonly kvCacheDtype?: string;
}

const sensibleEngine: fc.Arbitrary<Engine> = fc
  .record({
    name: fc.constantFrom<BackendName>('vllm', 'sglang', 'trtllm'),
    dynamoVersion: fc.constantFrom(undefined, ...Object.keys(RELEASES).map((line) => `${line}.0`), '0.8.1'),
    cuda: fc.constantFrom(undefined, 12, 13),
    // a size every engine accepts (vLLM: powers of two up to 128; TensorRT-LLM: powers of two > 1)
    blockSize: fc.constantFrom(undefined, 16, 32, 64),
    dtypeIndex: fc.option(fc.nat(), { nil: undefined }),
  })
  .map(({ name, dynamoVersion, cuda, blockSize, dtypeIndex }) => {
    // only images that exist: a CUDA the release publishes, and not vLLM 0.8.1-cuda13 (broken)
    const images = releaseOf(dynamoVersion ?? DEFAULT_DYNAMO_VERSION).images[name];
    const published = cuda === undefined || cuda === images.plainCuda || images.variants[cuda] !== undefined;
    const usable = !published ? undefined : name === 'vllm' && dynamoVersion === '0.8.1' && cuda === 13 ? 12 : cuda;
    const dtypes = kvDtypes(name, dynamoVersion);
    return {
      name,
      backend: BACKENDS[name](usable === undefined ? {} : { cuda: usable as 12 | 13 }),
      dynamoVersion,
      blockSize,
      kvCacheDtype: dtypeIndex === undefined ? undefined : dtypes[dtypeIndex % dtypes.length],
    };
  });

const sensibleEnv = dictionary(fc.constantFrom('LOG_LEVEL', 'DYN_LOG', 'NCCL_DEBUG'), fc.oneof(fc.constantFrom('debug', 'info', 'WARN'), fc.constant(EnvValue.fromConfigMap('cfg', 'level'))), 2, 1);
/** A request, and sometimes a limit no lower than it (`values` ascending). */
const sensibleQuantityRange = (values: string[]) =>
  fc.tuple(fc.nat(values.length - 1), fc.option(fc.nat(values.length - 1), { nil: undefined })).map(([r, l]) =>
    l === undefined ? { request: values[r] } : { request: values[Math.min(r, l)], limit: values[Math.max(r, l)] },
  );
const sensibleResources = record({ cpu: sensibleQuantityRange(['4', '8']), memory: sensibleQuantityRange(['32Gi', '64Gi']) }, ['cpu']);
const sensiblePodInfo = fc.subarray([...POD_INFO]);
const sensibleTolerations = fc.constant([{ key: 'nvidia.com/gpu', operator: 'Exists' as const, effect: 'NoSchedule' as const }]);

/** One worker pool of `engine`; a planned pool leaves replicas to the planner. */
function sensibleWorker(engine: Engine, planned: boolean) {
  return record({
    replicas: planned ? fc.constant(undefined) : fc.integer({ min: 0, max: 4 }),
    tensorParallelSize: fc.constantFrom(1, 2, 4, 8),
    pipelineParallelSize: fc.integer({ min: 1, max: 2 }),
    spareGpus: fc.constant(0),
    maxNumSeqs: fc.integer({ min: 1, max: 1024 }),
    maxModelLen: fc.constantFrom(4096, 8192, 131072),
    sharedMemory: fc.constantFrom<string | false>('16Gi', '32Gi', false),
    env: sensibleEnv,
    resources: sensibleResources,
    podInfoEnv: sensiblePodInfo,
    nodeSelector: fc.constant({ 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' }),
    tolerations: sensibleTolerations,
    freeGpuMemoryFraction: fc.integer({ min: 50, max: 95 }).map((n) => n / 100),
  }).map(({ spareGpus, freeGpuMemoryFraction, ...w }) =>
    compact({
      ...w,
      // unset, or exactly TP x PP: more GPUs would sit idle (parallelism-gpus)
      gpus: spareGpus === undefined ? undefined : (w.tensorParallelSize ?? 1) * (w.pipelineParallelSize ?? 1) + spareGpus,
      blockSize: engine.blockSize,
      kvCacheDtype: engine.kvCacheDtype,
      engineConfig: engine.name === 'trtllm' && freeGpuMemoryFraction !== undefined ? { kv_cache_config: { free_gpu_memory_fraction: freeGpuMemoryFraction } } : undefined,
    }),
  );
}

/** GPUs one engine of a pool uses. */
export function engineGpus(w: { gpus?: number; tensorParallelSize?: number; pipelineParallelSize?: number }): number {
  return w.gpus ?? (w.tensorParallelSize ?? 1) * (w.pipelineParallelSize ?? 1);
}

/** Round-robin, random, or a KV router announcing the workers' block size (or none). */
function sensibleRouter(engine: Engine): fc.Arbitrary<Router> {
  const treeFlags = releaseOf(engine.dynamoVersion ?? DEFAULT_DYNAMO_VERSION).router.flags;
  const kv = record({
    overlapScoreWeight: fc.integer({ min: 0, max: 200 }).map((n) => n / 100),
    temperature: fc.integer({ min: 0, max: 100 }).map((n) => n / 100),
    kvEvents: fc.boolean(),
    announceBlockSize: fc.boolean(),
    activeDecodeBlocksThreshold: fc.integer({ min: 0, max: 100 }).map((n) => n / 100),
    activePrefillTokensThreshold: fc.integer({ min: 1, max: 100000 }),
    replicaSync: fc.boolean(),
    ttlSeconds: fc.integer({ min: 1, max: 600 }),
    maxTreeSize: fc.integer({ min: 1024, max: 1 << 20 }),
    pruneTargetRatio: fc.integer({ min: 1, max: 100 }).map((n) => n / 100),
  }).map(({ announceBlockSize, ttlSeconds, maxTreeSize, pruneTargetRatio, ...o }) =>
    Router.kv(
      compact({
        ...o,
        blockSize: announceBlockSize ? engine.blockSize : undefined,
        // the prediction parameters apply only without KV events, and 1.x has no tree size knobs
        ...(o.kvEvents === false ? compact({ ttlSeconds, maxTreeSize: treeFlags.maxTreeSize ? maxTreeSize : undefined, pruneTargetRatio: treeFlags.pruneTargetRatio ? pruneTargetRatio : undefined }) : {}),
      }),
    ),
  );
  return fc.oneof(fc.constantFrom(Router.roundRobin(), Router.random()), kv);
}

function sensibleFrontend(engine: Engine) {
  return record({ replicas: fc.integer({ min: 1, max: 3 }), router: sensibleRouter(engine), env: sensibleEnv, podInfoEnv: sensiblePodInfo, resources: sensibleResources });
}

/** RDMA or EFA (never `ipcLock`, which may go away). */
const sensibleFabric: fc.Arbitrary<Fabric> = fc.oneof(
  record({
    resourceName: fc.constantFrom('rdma/hca_shared_devices', 'rdma/ib'),
    deviceCount: fc.integer({ min: 1, max: 8 }),
    ucxTls: fc.constant('rc,cuda_copy'),
    env: fc.constant({ UCX_IB_GID_INDEX: '3' }),
  }).map((o) => Fabric.rdma(o)),
  record({ deviceCount: fc.integer({ min: 1, max: 32 }), shmTransfer: fc.boolean() }).map((o) => Fabric.efa(o)),
);

/** Graph-wide options of `engine` (everything but the components). */
function sensibleGraph(engine: Engine, fabric: fc.Arbitrary<Fabric | undefined>) {
  return record(
    {
      model: modelId,
      fabric,
      servedModelName: fc.constantFrom('llm', 'chat'),
      imagePullPolicy: fc.constantFrom('Always' as const, 'IfNotPresent' as const),
      imagePullSecrets: fc.constant(['ngc', { name: 'mirror' }]),
      hfTokenSecret: fc.constantFrom('hf-token', { name: 'hf-token' }),
      modelCache: fc.constant({ claimName: 'model-cache', mountPath: '/opt/models' }),
      env: sensibleEnv,
      trustRemoteCode: fc.boolean(),
      podInfoEnv: sensiblePodInfo,
      labels: fc.constant({ team: 'ml' }),
      annotations: fc.constant({ 'example.com/owner': 'llm' }),
    },
    ['model', 'fabric'],
  ).map((g) => compact({ ...g, backend: engine.backend, dynamoVersion: engine.dynamoVersion }));
}

/** A load predictor the planner of `engine`'s release has, with settings it takes. */
function sensibleLoadPredictor(engine: Engine): fc.Arbitrary<LoadPredictor> {
  const { kinds, log1p } = releaseOf(engine.dynamoVersion ?? DEFAULT_DYNAMO_VERSION).planner.loadPredictors;
  const all: Record<LoadPredictorKind, fc.Arbitrary<LoadPredictor>> = {
    constant: fc.constant(LoadPredictor.constant()),
    arima: (log1p ? fc.boolean() : fc.constant(false)).map((l) => LoadPredictor.arima(l ? { log1p: true } : {})),
    kalman: fc.constant(LoadPredictor.kalman({ qLevel: 0.1, qTrend: 0.01, r: 1.0, minPoints: 5 })),
    prophet: fc.constant(LoadPredictor.prophet({ windowSize: 1000 })),
  };
  return fc.oneof(...kinds.map((k) => all[k]));
}

/** A planner's options but its budget, which depends on the workers. */
const sensiblePlanner = (engine: Engine) => record(
  {
    ttftMs: fc.integer({ min: 50, max: 2000 }),
    itlMs: fc.integer({ min: 5, max: 100 }),
    budgetSlack: fc.integer({ min: 0, max: 16 }),
    adjustmentIntervalSeconds: fc.integer({ min: 10, max: 600 }),
    loadPredictor: sensibleLoadPredictor(engine),
    prometheusEndpoint: fc.constant('http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9090'),
  },
  ['ttftMs', 'itlMs', 'budgetSlack'],
);

/** With a planner (half the time) the workers leave replicas out and the budget covers both engines. */
export const sensibleDisaggregated = fc.tuple(sensibleEngine, fc.boolean()).chain(([engine, planned]) =>
  fc
    .record({
      graph: sensibleGraph(engine, sensibleFabric),
      frontend: sensibleFrontend(engine),
      prefill: sensibleWorker(engine, planned),
      decode: sensibleWorker(engine, planned),
      planner: sensiblePlanner(engine),
    })
    .map(({ graph, frontend, prefill, decode, planner: { budgetSlack, ...planner } }) =>
      compact({
        ...graph,
        frontend,
        prefill,
        decode,
        // planned workers start at one replica each: minEndpoint 1 x (prefill + decode GPUs) is all they use
        planner: planned ? { ...planner, minEndpoint: 1, maxGpuBudget: engineGpus(prefill) + engineGpus(decode) + budgetSlack } : undefined,
      }),
    ),
);

/** Aggregated workers need no fabric: any, or none. */
export const sensibleAggregated = sensibleEngine.chain((engine) =>
  fc
    .record({
      graph: sensibleGraph(engine, fc.oneof(sensibleFabric, fc.constantFrom(Fabric.tcp(), undefined))),
      frontend: sensibleFrontend(engine),
      workers: sensibleWorker(engine, false),
    })
    .map(({ graph, frontend, workers }) => ({ ...graph, frontend, workers })),
);
