import { SGLANG } from '../engines/sglang';
import { TRTLLM } from '../engines/trtllm';
import { VLLM } from '../engines/vllm';
import { isPlainObject } from '../base/checks';
import { argField, at, Located, ServiceModel } from '../model/graph-model';
import { flagValue } from '../model/launch';

/**
 * What a worker runs, read from its flags, its engine config and its
 * resources: parallelism, GPUs, KV cache layout, model. Each value carries
 * where it was found and the option that sets it.
 */

type Raw = string | number | true;

function flag(s: ServiceModel, option: string, ...names: string[]): Located<Raw> | undefined {
  const f = flagValue(s.launch, ...names);
  // found where it is written, abbreviated or not
  return f ? { value: f.value, field: argField(s.spelled.get(f.name) ?? f.name), option } : undefined;
}

function engineKey(s: ServiceModel, key: string, option: string): Located<Raw> | undefined {
  const v = at(s.engineConfig, key);
  if (typeof v === 'number' || typeof v === 'string') return { value: v, field: `engineConfig.${key}`, option };
  return undefined;
}

/*
 * The engines' spellings. SGLang's `--tp` is no flag of its own: where the engine version's
 * flag table is known it is resolved to `--tp-size` with every other abbreviation
 * (flag-abbreviations.ts); it stays listed for workers whose release names no table. `--pp`
 * is refused by every SGLang parser (it abbreviates several flags), so it is not read.
 */
const TP_FLAGS: Record<string, string[]> = {
  vllm: ['--tensor-parallel-size', '-tp'],
  sglang: ['--tp-size', '--tensor-parallel-size', '--tp'],
  trtllm: ['--tensor-parallel-size', '--tp-size'],
  mocker: [],
};
const PP_FLAGS: Record<string, string[]> = {
  vllm: ['--pipeline-parallel-size', '-pp'],
  sglang: ['--pp-size', '--pipeline-parallel-size'],
  trtllm: ['--pipeline-parallel-size', '--pp-size'],
  mocker: [],
};

export function tensorParallel(s: ServiceModel): Located<Raw> | undefined {
  return engineKey(s, 'tensor_parallel_size', 'tensorParallelSize') ?? flag(s, 'tensorParallelSize', ...(TP_FLAGS[s.engine ?? 'mocker'] ?? []));
}

export function pipelineParallel(s: ServiceModel): Located<Raw> | undefined {
  return engineKey(s, 'pipeline_parallel_size', 'pipelineParallelSize') ?? flag(s, 'pipelineParallelSize', ...(PP_FLAGS[s.engine ?? 'mocker'] ?? []));
}

/**
 * Data parallel ranks one engine runs, each on its own tensor x pipeline GPUs. vLLM: the
 * pod's local ranks when given (`perNode`: each node runs that many), none when the pod is
 * a single rank of a larger group (`--data-parallel-rank`), else all of them. SGLang: its
 * `--dp-size`, except with data-parallel attention, where the ranks split the tensor
 * parallel GPUs instead of adding to them.
 */
export function dataParallel(s: ServiceModel): (Located<Raw> & { readonly perNode?: true }) | undefined {
  if (s.engine === 'sglang') return s.launch.flags.has('--enable-dp-attention') ? undefined : flag(s, 'extraArgs', '--dp-size', '--data-parallel-size');
  if (s.engine !== 'vllm') return undefined;
  const local = flag(s, 'extraArgs', '--data-parallel-size-local', '-dpl');
  if (local) return { ...local, perNode: true };
  if (s.launch.flags.has('--data-parallel-rank') || s.launch.flags.has('-dpr')) return undefined;
  return flag(s, 'extraArgs', '--data-parallel-size', '-dp');
}

/**
 * Whether every parallel dimension that takes GPUs is read: no engine config file that
 * is not among the objects, no config file or dotted override that could set one, no
 * parallelism the rules do not model (vLLM's prefill context parallel ranks add GPUs).
 */
export function layoutKnown(s: ServiceModel): boolean {
  const flags = [...s.launch.flags.keys()];
  if (s.engine === 'trtllm' && !s.engineConfig && (s.launch.flags.has('--extra-engine-args') || flags.some((f) => f.startsWith('--trtllm.') || f === '--override-engine-args'))) return false;
  if (s.launch.flags.has('--config')) return false;
  if (s.engine === 'vllm' && flags.some((f) => f === '--prefill-context-parallel-size' || f === '-pcp')) return false;
  return true;
}

/** GPUs of one worker pod: `resources.limits.gpu` (the operator's default is 1). */
export function podGpus(s: ServiceModel): Located<Raw> {
  const resources = s.spec.resources;
  for (const kind of ['limits', 'requests']) {
    const v = at(resources, `${kind}.gpu`);
    if (typeof v === 'string' || typeof v === 'number') return { value: v, field: `resources.${kind}.gpu`, option: 'gpus' };
  }
  const main = at(s.container, 'resources.limits');
  if (isPlainObject(main) && (typeof main['nvidia.com/gpu'] === 'string' || typeof main['nvidia.com/gpu'] === 'number')) {
    return { value: main['nvidia.com/gpu'], field: 'extraPodSpec.mainContainer.resources.limits[nvidia.com/gpu]', option: 'gpus' };
  }
  return { value: 1, field: 'resources.limits.gpu', option: 'gpus', defaulted: true };
}

/** Nodes one engine spans (`multinode.nodeCount`; 1 without multinode). */
export function nodeCount(s: ServiceModel): Located<Raw> {
  const multinode = s.spec.multinode;
  if (!isPlainObject(multinode)) return { value: 1, field: 'multinode.nodeCount', option: 'nodeCount', defaulted: true };
  const n = multinode.nodeCount;
  return typeof n === 'number' || typeof n === 'string'
    ? { value: n, field: 'multinode.nodeCount', option: 'nodeCount' }
    : { value: 2, field: 'multinode.nodeCount', option: 'nodeCount', defaulted: true };
}

/** A positive whole number, or undefined. */
export function count(v: Located<Raw> | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v.value === 'number' ? v.value : typeof v.value === 'string' && /^\s*\d+\s*$/.test(v.value) ? Number(v.value) : NaN;
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}

/** GPUs one engine uses across its nodes, when they can be read. */
export function engineGpus(s: ServiceModel): number | undefined {
  const gpus = count(podGpus(s));
  const nodes = count(nodeCount(s));
  return gpus !== undefined && nodes !== undefined ? gpus * nodes : undefined;
}

/** Worker pods (engines) configured; the operator starts one when unset. */
export function replicasOf(s: ServiceModel): number {
  const r = s.spec.replicas;
  return typeof r === 'number' && Number.isInteger(r) && r >= 0 ? r : 1;
}

const SGLANG_OWN_DEFAULT_PAGE_SIZE = 1;

/**
 * The KV block size the engine runs with, explicit or the engine's default;
 * undefined when it cannot be known (a TensorRT-LLM engine config that is not
 * among the objects).
 */
export function blockSize(s: ServiceModel): Located<Raw> | undefined {
  switch (s.engine) {
    case 'vllm':
      return flag(s, 'blockSize', '--block-size') ?? { value: VLLM.defaultBlockSize!, field: argField('--block-size'), option: 'blockSize', defaulted: true };
    case 'sglang':
      return flag(s, 'blockSize', '--page-size') ?? { value: SGLANG_OWN_DEFAULT_PAGE_SIZE, field: argField('--page-size'), option: 'blockSize', defaulted: true };
    case 'trtllm':
      if (s.engineConfig) {
        return engineKey(s, 'kv_cache_config.tokens_per_block', 'blockSize') ?? {
          value: TRTLLM.defaultBlockSize!,
          field: 'engineConfig.kv_cache_config.tokens_per_block',
          option: 'blockSize',
          defaulted: true,
        };
      }
      return flag(s, 'blockSize', '--kv-block-size');
    default:
      return undefined;
  }
}

/** TensorRT-LLM: the block size the worker announces to the router (`--kv-block-size`). */
export function announcedBlockSize(s: ServiceModel): Located<Raw> | undefined {
  return s.engine === 'trtllm' ? flag(s, 'blockSize', '--kv-block-size') : undefined;
}

/** The KV cache dtype; `auto` (the model's dtype) when unset. Undefined when it cannot be known. */
export function kvCacheDtype(s: ServiceModel): Located<Raw> | undefined {
  if (s.engine === 'vllm' || s.engine === 'sglang') {
    return flag(s, 'kvCacheDtype', '--kv-cache-dtype') ?? { value: 'auto', field: argField('--kv-cache-dtype'), option: 'kvCacheDtype', defaulted: true };
  }
  if (s.engine === 'trtllm' && s.engineConfig) {
    return engineKey(s, 'kv_cache_config.dtype', 'kvCacheDtype') ?? { value: 'auto', field: 'engineConfig.kv_cache_config.dtype', option: 'kvCacheDtype', defaulted: true };
  }
  return undefined;
}

/** The Hugging Face model a worker serves. */
export function modelOf(s: ServiceModel): Located<string> | undefined {
  const f = flag(s, 'graph:model', '--model', '--model-path', '--model-name');
  return f && typeof f.value === 'string' ? { ...f, value: f.value } : undefined;
}

/** The block size rules of the engine, for a size read from a manifest. */
export function blockSizeProblem(s: ServiceModel, size: number): string | undefined {
  if (s.engine === 'vllm') return VLLM.blockSizeProblem(size, s.release);
  if (s.engine === 'trtllm') return TRTLLM.blockSizeProblem(size, s.release);
  if (s.engine === 'sglang') return SGLANG.blockSizeProblem(size, s.release);
  return undefined;
}
