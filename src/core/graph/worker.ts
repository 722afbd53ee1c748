import { Backend, KvEventsMode, WorkerRole } from '../engines/backend';
import {
  checkFiniteNumbers,
  checkInteger,
  checkKnownKeys,
  checkOneOf,
  checkQuantity,
  checkString,
  checkStringArray,
  INT32_MAX,
  isPlainObject,
  join,
  optionKeys,
} from '../base/checks';
import { GraphContext } from './context';
import { renderMockerWorker } from './mocker';
import { checkEnvMap, checkPodInfoFields, EnvMap, PodInfoField } from '../base/env';
import { Diagnostics, show } from '../base/errors';
import { CompilationCache, ComputeResources, KubeObject, PodPlacementOptions } from '../base/k8s';
import {
  checkCompilationCache,
  checkPodPlacement,
  checkResources,
  compilationCacheOf,
  DgdService,
  imagePullSecrets,
  modelCacheVolumeMounts,
  POD_PLACEMENT_KEYS,
  podPlacement,
  renderResources,
  RenderedWorker,
  serviceEnv,
  workerIdentity,
} from './service';
import { prune, toKubeName, yaml } from '../base/util';
import { DynamoRelease, kvCacheDtypeProblem } from '../releases/versions';

export { WorkerRole } from '../engines/backend';

/** A Kubernetes toleration, for GPU node taints. */
export interface Toleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  readonly tolerationSeconds?: number;
}

/**
 * A pool of identical GPU workers: prefill, decode or aggregated. In a rehearsal the mocker stands
 * in for the engine on GPU-free pods: like `nodeSelector` and `tolerations`, the placement options
 * and `compilationCache` are not rendered there.
 */
export interface WorkerOptions extends PodPlacementOptions {
  /**
   * Worker pods (engines). A planner, when present, changes this at run time.
   * @default 1
   */
  readonly replicas?: number;
  /**
   * Tensor parallel size of each engine.
   * @default 1
   */
  readonly tensorParallelSize?: number;
  /**
   * Pipeline parallel size of each engine.
   * @default - not passed (the engine's default, 1)
   */
  readonly pipelineParallelSize?: number;
  /**
   * GPUs per engine, across all its nodes.
   * @default - tensorParallelSize x pipelineParallelSize
   */
  readonly gpus?: number;
  /**
   * Nodes one engine spans (multinode); GPUs are split evenly across them.
   * @default - one node
   */
  readonly nodeCount?: number;
  /**
   * Sequences batched at once: vLLM `--max-num-seqs`, SGLang `--max-running-requests`,
   * TensorRT-LLM `max_batch_size`. Low (1-4) for prefill, high (256-1024) for decode (guide 2).
   * @default - the engine's default
   */
  readonly maxNumSeqs?: number;
  /**
   * Maximum context length in tokens: vLLM `--max-model-len`, SGLang `--context-length`,
   * TensorRT-LLM `max_seq_len`.
   * @default - the model's
   */
  readonly maxModelLen?: number;
  /**
   * KV cache data type, e.g. `fp8`; prefill and decode must agree.
   * @default - the engine's default (the model's dtype)
   */
  readonly kvCacheDtype?: string;
  /**
   * KV cache block size in tokens: vLLM `--block-size`, SGLang `--page-size`,
   * TensorRT-LLM `--kv-block-size`. A KV router announces the same size.
   * @default - the engine's default (SGLang: 16)
   */
  readonly blockSize?: number;
  /**
   * Size of the `/dev/shm` tmpfs, or `false` to disable it (1.x: the component's
   * `sharedMemorySize`, `'0'` when disabled; 0.8/0.9: `sharedMemory: { size }` or `{ disabled: true }`).
   * @default - '16Gi' for vLLM and SGLang, '80Gi' for TensorRT-LLM
   */
  readonly sharedMemory?: string | false;
  /**
   * Extra engine flags appended to the generated command line. Flags the library renders
   * from an option (e.g. `--tensor-parallel-size`) are rejected: set the option instead.
   * @default - none
   */
  readonly extraArgs?: readonly string[];
  /**
   * Environment of the workers; replaces generated variables of the same name.
   * @default - none
   */
  readonly env?: EnvMap;
  /**
   * CPU and memory per worker pod (GPUs come from `gpus`).
   * @default - the operator's defaults
   */
  readonly resources?: ComputeResources;
  /**
   * Name of the service in the graph (1.x: the component's `name` in `spec.components`;
   * 0.8/0.9: the key under `spec.services`).
   * @default - vLLM: `VllmPrefillWorker`, `VllmDecodeWorker`, `VllmWorker`; SGLang and TensorRT-LLM: `prefill`, `decode`, `worker`
   */
  readonly serviceName?: string;
  /**
   * Pod fields exposed as environment variables.
   * @default - the graph's `podInfoEnv`
   */
  readonly podInfoEnv?: readonly PodInfoField[];
  /**
   * Node labels the worker pods must match, e.g. `{ 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' }`.
   * @default - none
   */
  readonly nodeSelector?: Readonly<Record<string, string>>;
  /**
   * Tolerations, e.g. for a `nvidia.com/gpu` taint on GPU nodes.
   * @default - none
   */
  readonly tolerations?: readonly Toleration[];
  /**
   * TensorRT-LLM only: keys deep-merged over the generated engine config
   * (e.g. `{ kv_cache_config: { free_gpu_memory_fraction: 0.85 } }`).
   * @default - none
   */
  readonly engineConfig?: Readonly<Record<string, unknown>>;
  /**
   * A PVC-backed compilation cache (`components[].compilationCache`): the operator mounts the claim
   * where the backend keeps compiled kernels and graphs (e.g. vLLM's torch.compile cache), so a
   * restarted worker skips the compilation. Dynamo 1.x (1.6.1 renders it); the 0.8/0.9 CRD has no
   * such field on the component, and the option is refused there.
   * @default - none
   */
  readonly compilationCache?: CompilationCache;
}

const WORKER_KEYS = optionKeys<WorkerOptions>()(
  'replicas',
  'tensorParallelSize',
  'pipelineParallelSize',
  'gpus',
  'nodeCount',
  'maxNumSeqs',
  'maxModelLen',
  'kvCacheDtype',
  'blockSize',
  'sharedMemory',
  'extraArgs',
  'env',
  'resources',
  'serviceName',
  'podInfoEnv',
  'nodeSelector',
  'tolerations',
  'engineConfig',
  'compilationCache',
  ...POD_PLACEMENT_KEYS,
);

/** Where a TensorRT-LLM worker's engine config ConfigMap is mounted. */
export const ENGINE_CONFIG_DIR = '/etc/dynamo/engine';
export const ENGINE_CONFIG_FILE = 'engine.yaml';
const ENGINE_CONFIG_VOLUME = 'engine-config';

/** The default service name of a worker of `role`. */
export function defaultWorkerServiceName(backend: Backend, role: WorkerRole): string {
  return backend._renderer.serviceNames[role];
}

/** Parallelism and GPU counts of a worker, after defaults. */
export interface WorkerShape {
  readonly tensorParallelSize: number;
  readonly pipelineParallelSize?: number;
  /** GPUs per engine, across its nodes. */
  readonly gpus: number;
  readonly nodeCount?: number;
  /** GPUs per worker pod (one node). */
  readonly gpusPerPod: number;
}

export function workerShape(o: WorkerOptions): WorkerShape {
  const tensorParallelSize = o.tensorParallelSize ?? 1;
  const gpus = o.gpus ?? tensorParallelSize * (o.pipelineParallelSize ?? 1);
  return {
    tensorParallelSize,
    pipelineParallelSize: o.pipelineParallelSize,
    gpus,
    nodeCount: o.nodeCount,
    gpusPerPod: o.nodeCount ? gpus / o.nodeCount : gpus,
  };
}

/** Flags the library renders itself; `extraArgs` may not repeat them. */
const RENDERED_FLAG = /^--[a-z0-9-]+/;

export function checkWorker(d: Diagnostics, path: string, o: WorkerOptions, backend: Backend | undefined, release: DynamoRelease | undefined): void {
  checkKnownKeys(d, path, o, WORKER_KEYS);
  checkInteger(d, join(path, 'replicas'), o.replicas, 0);
  const tpOk = checkInteger(d, join(path, 'tensorParallelSize'), o.tensorParallelSize, 1);
  const ppOk = checkInteger(d, join(path, 'pipelineParallelSize'), o.pipelineParallelSize, 1);
  const gpusOk = checkInteger(d, join(path, 'gpus'), o.gpus, 1);
  const nodesOk = checkInteger(d, join(path, 'nodeCount'), o.nodeCount, 2, 'an integer >= 2 (one node needs no nodeCount)');
  const ranks = tpOk && ppOk ? (o.tensorParallelSize ?? 1) * (o.pipelineParallelSize ?? 1) : 0;
  if (o.gpus === undefined && ranks > INT32_MAX) {
    // the GPUs follow from the parallelism, and land in the pod's GPU request
    d.error(
      join(path, 'tensorParallelSize'),
      `is ${show(o.tensorParallelSize)} and pipelineParallelSize ${show(o.pipelineParallelSize)}, which need ${ranks} GPUs per engine: more than ${INT32_MAX} (the largest 32-bit integer, the type Kubernetes counts devices in)`,
      'value-range',
    );
  }
  if (tpOk && ppOk && gpusOk && nodesOk && o.nodeCount !== undefined) {
    const gpus = workerShape(o).gpus;
    if (gpus % o.nodeCount !== 0) {
      // GPUs are split evenly across the nodes (`resources.limits.gpu` is per pod)
      d.error(join(path, 'nodeCount'), `is ${o.nodeCount}, which does not divide the worker's ${gpus} GPUs evenly; each node runs the same number of GPUs`, 'multinode-gpus');
    }
  }
  checkInteger(d, join(path, 'maxNumSeqs'), o.maxNumSeqs, 1);
  checkInteger(d, join(path, 'maxModelLen'), o.maxModelLen, 1);
  if (checkString(d, join(path, 'kvCacheDtype'), o.kvCacheDtype) && o.kvCacheDtype !== undefined && backend && release) {
    const problem = kvCacheDtypeProblem(release, backend.name, o.kvCacheDtype);
    if (problem) d.error(join(path, 'kvCacheDtype'), `is ${show(o.kvCacheDtype)}; ${problem}`, 'value-range');
  }
  if (checkInteger(d, join(path, 'blockSize'), o.blockSize, 1) && o.blockSize !== undefined && backend) {
    const problem = backend._renderer.blockSizeProblem(o.blockSize, release);
    if (problem) d.error(join(path, 'blockSize'), `is ${o.blockSize}; ${problem}`, 'value-range');
  }
  if (o.sharedMemory !== false) checkQuantity(d, join(path, 'sharedMemory'), o.sharedMemory);
  if (checkStringArray(d, join(path, 'extraArgs'), o.extraArgs) && o.extraArgs) {
    o.extraArgs.forEach((a, i) => {
      if (a.trim() === '') d.error(join(join(path, 'extraArgs'), i), 'is an empty argument', 'value-format');
    });
    const problem = backend && release ? backend._renderer.extraArgsProblem(o.extraArgs, release) : undefined;
    if (problem) d.error(join(path, 'extraArgs'), problem, 'option-conflict');
    if (backend) checkOwnedFlags(d, path, backend._renderer.ownedFlags, o.extraArgs);
  }
  checkEnvMap(d, join(path, 'env'), o.env);
  checkResources(d, join(path, 'resources'), o.resources);
  checkPodInfoFields(d, join(path, 'podInfoEnv'), o.podInfoEnv);
  if (o.nodeSelector !== undefined) {
    if (!isPlainObject(o.nodeSelector) || Object.values(o.nodeSelector).some((v) => typeof v !== 'string')) {
      d.error(join(path, 'nodeSelector'), `must be an object of label: value strings, got ${show(o.nodeSelector)}`, 'value-type');
    }
  }
  checkTolerations(d, join(path, 'tolerations'), o.tolerations);
  checkPodPlacement(d, path, o, release);
  checkCompilationCache(d, join(path, 'compilationCache'), o.compilationCache, release);
  if (o.engineConfig !== undefined) {
    checkFiniteNumbers(d, join(path, 'engineConfig'), o.engineConfig);
    if (!isPlainObject(o.engineConfig)) {
      d.error(join(path, 'engineConfig'), `must be an object of engine config keys, got ${show(o.engineConfig)}`, 'value-type');
    } else if (backend && !backend._renderer.usesEngineConfigFile) {
      d.error(
        join(path, 'engineConfig'),
        `applies only to Backend.trtllm(); a ${backend.name} worker takes engine flags in extraArgs`,
        'option-conflict',
      );
    } else if (backend) {
      for (const [key, option] of Object.entries(backend._renderer.engineKeysFromOptions)) {
        if (hasPath(o.engineConfig, key)) {
          d.error(join(join(path, 'engineConfig'), key), `is rendered from the ${option} option, which sizes GPUs and checks it against the other workers; set ${option} instead`, 'option-conflict');
        }
      }
    }
  }
}

function hasPath(obj: Readonly<Record<string, unknown>>, dotted: string): boolean {
  let at: unknown = obj;
  for (const part of dotted.split('.')) {
    if (!isPlainObject(at) || !(part in at)) return false;
    at = at[part];
  }
  return true;
}

/** Kubernetes stores `tolerationSeconds` as int64; JSON keeps whole numbers exact up to 2^53 - 1. */
const TOLERATION_SECONDS = { max: Number.MAX_SAFE_INTEGER, why: 'Kubernetes stores it as int64, and JSON keeps whole numbers exact only up to here' };

export function checkTolerations(d: Diagnostics, path: string, tolerations: unknown): void {
  if (tolerations === undefined) return;
  if (!Array.isArray(tolerations)) {
    d.error(path, `must be a list of tolerations, got ${show(tolerations)}`, 'value-type');
    return;
  }
  tolerations.forEach((t: Toleration, i) => {
    const p = join(path, i);
    if (!isPlainObject(t)) {
      d.error(p, `must be a toleration object, got ${show(t)}`, 'value-type');
      return;
    }
    checkKnownKeys(d, p, t, ['key', 'operator', 'value', 'effect', 'tolerationSeconds']);
    checkString(d, join(p, 'key'), t.key);
    if (t.value !== undefined && typeof t.value !== 'string') d.error(join(p, 'value'), `must be a string, got ${show(t.value)}`, 'value-type');
    checkOneOf(d, join(p, 'operator'), t.operator, ['Exists', 'Equal']);
    checkOneOf(d, join(p, 'effect'), t.effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
    checkInteger(d, join(p, 'tolerationSeconds'), t.tolerationSeconds, 0, undefined, TOLERATION_SECONDS);
    if (t.operator === 'Exists' && t.value !== undefined) d.error(join(p, 'value'), 'must be empty when operator is Exists', 'option-conflict');
  });
}


function checkOwnedFlags(d: Diagnostics, path: string, owned: Iterable<string>, extra: readonly string[]): void {
  const flags = new Set(owned);
  extra.forEach((a, i) => {
    const flag = a.split('=')[0];
    if (flags.has(flag)) {
      d.error(join(join(path, 'extraArgs'), i), `sets ${flag}, which the library renders from the graph and worker options; set the option instead`, 'option-conflict');
    }
  });
}

/**
 * Rejects extra flags that repeat a flag the library rendered for this worker.
 * (Flags the backend owns on every worker are rejected by `checkWorker`.)
 */
export function checkExtraArgs(d: Diagnostics, path: string, backend: Backend, rendered: readonly string[], extra: readonly string[] | undefined): void {
  if (!extra) return;
  const owned = new Set(backend._renderer.ownedFlags);
  checkOwnedFlags(d, path, rendered.filter((a) => RENDERED_FLAG.test(a)).map((a) => a.split('=')[0]).filter((f) => !owned.has(f)), extra);
}

export type { RenderedWorker } from './service';

export function engineConfigMapName(graphName: string, serviceName: string): string {
  return toKubeName(graphName, serviceName, 'engine');
}

export function renderWorker(ctx: GraphContext, serviceName: string, role: WorkerRole, o: WorkerOptions, kvEvents: KvEventsMode): RenderedWorker {
  if (ctx.rehearsal) return renderMockerWorker(ctx, role, o);
  const r = ctx.backend._renderer;
  const shape = workerShape(o);
  const fabric = ctx.fabric._contribution(shape.gpusPerPod);
  const cmd = r.renderWorker({
    role,
    model: ctx.model,
    servedModelName: ctx.servedModelName,
    trustRemoteCode: ctx.trustRemoteCode,
    tensorParallelSize: shape.tensorParallelSize,
    pipelineParallelSize: shape.pipelineParallelSize,
    maxNumSeqs: o.maxNumSeqs,
    kvCacheDtype: o.kvCacheDtype,
    blockSize: o.blockSize,
    maxModelLen: o.maxModelLen,
    kvEvents,
    nixlBackend: fabric.nixlBackend,
    engineConfigPath: r.usesEngineConfigFile ? `${ENGINE_CONFIG_DIR}/${ENGINE_CONFIG_FILE}` : undefined,
    engineConfig: o.engineConfig,
    nodeCount: shape.nodeCount,
    release: ctx.release,
  });
  const resources = renderResources(o.resources);
  const devices = Object.keys(fabric.devices).length > 0 ? fabric.devices : undefined;
  const configMapName = cmd.engineConfig ? engineConfigMapName(ctx.name, serviceName) : undefined;

  const service = prune<DgdService>({
    ...workerIdentity(ctx, role, o.replicas),
    resources: { requests: resources.requests, limits: { gpu: String(shape.gpusPerPod), ...resources.limits } },
    sharedMemory: o.sharedMemory === false ? { disabled: true } : { size: o.sharedMemory ?? r.sharedMemory },
    multinode: shape.nodeCount !== undefined ? { nodeCount: shape.nodeCount } : undefined,
    volumeMounts: modelCacheVolumeMounts(ctx),
    envs: serviceEnv(ctx, o.podInfoEnv, [...fabric.env, ...cmd.env], o.env),
    topologyConstraint: o.topologyConstraint,
    compilationCache: compilationCacheOf(o.compilationCache),
    extraPodSpec: {
      imagePullSecrets: imagePullSecrets(ctx),
      nodeSelector: o.nodeSelector,
      tolerations: o.tolerations,
      ...podPlacement(ctx, o),
      volumes: configMapName ? [{ name: ENGINE_CONFIG_VOLUME, configMap: { name: configMapName } }] : undefined,
      mainContainer: {
        image: ctx.workerImage,
        workingDir: r.workingDir,
        imagePullPolicy: ctx.imagePullPolicy,
        securityContext: fabric.capabilities.length > 0 ? { capabilities: { add: fabric.capabilities } } : undefined,
        resources: devices ? { limits: devices, requests: devices } : undefined,
        command: cmd.command,
        args: [...cmd.args, ...(o.extraArgs ?? [])],
        volumeMounts: configMapName ? [{ name: ENGINE_CONFIG_VOLUME, mountPath: ENGINE_CONFIG_DIR, readOnly: true }] : undefined,
      },
    },
  });

  const configMap: KubeObject | undefined = configMapName
    ? prune({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: configMapName, namespace: ctx.namespace },
      data: { [ENGINE_CONFIG_FILE]: yaml().stringify(cmd.engineConfig, { sortMapEntries: false }) },
    })
    : undefined;
  return { service, configMap, generatedArgs: cmd.args };
}
