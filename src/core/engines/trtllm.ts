import type { BackendRenderer, WorkerCommand, WorkerLaunch } from './renderer';
import { EnvVar } from '../base/k8s';
import { deepMerge } from '../base/util';

/** TensorRT-LLM's default tokens per KV cache block. */
const DEFAULT_TOKENS_PER_BLOCK = 32;

/** TensorRT-LLM through `python3 -m dynamo.trtllm`, with a generated engine config. */
export const TRTLLM: BackendRenderer = {
  name: 'trtllm',
  imageName: 'tensorrtllm-runtime',
  // Dynamo's own short service names: Grove limits graph + service name to 45 characters
  serviceNames: { prefill: 'prefill', decode: 'decode', aggregated: 'worker' },
  sharedMemory: '80Gi',
  defaultBlockSize: DEFAULT_TOKENS_PER_BLOCK,
  usesEngineConfigFile: true,
  workingDir: '/workspace',
  ownedFlags: ['--extra-engine-args', '--disaggregation-mode', '--publish-events-and-metrics', '--publish-kv-events', '--kv-block-size'],
  engineKeysFromOptions: {
    tensor_parallel_size: 'tensorParallelSize',
    pipeline_parallel_size: 'pipelineParallelSize',
    max_batch_size: 'maxNumSeqs',
    max_seq_len: 'maxModelLen',
    trust_remote_code: 'trustRemoteCode',
    'kv_cache_config.dtype': 'kvCacheDtype',
    'kv_cache_config.tokens_per_block': 'blockSize',
  },
  blockSizeProblem(size) {
    return size > 1 && (size & (size - 1)) === 0 ? undefined : 'TensorRT-LLM needs a power of two greater than 1 tokens per block';
  },
  extraArgsProblem: () => undefined,
  renderWorker(l: WorkerLaunch): WorkerCommand {
    const disaggregated = l.role !== 'aggregated';
    const kvCache = {
      ...(l.kvCacheDtype !== undefined ? { dtype: l.kvCacheDtype } : {}),
      // the engine's block size; `--kv-block-size` below only tells Dynamo's router
      ...(l.blockSize !== undefined ? { tokens_per_block: l.blockSize } : {}),
    };
    const generated: Record<string, unknown> = {
      backend: 'pytorch',
      tensor_parallel_size: l.tensorParallelSize,
      ...(l.pipelineParallelSize !== undefined ? { pipeline_parallel_size: l.pipelineParallelSize } : {}),
      ...(l.maxNumSeqs !== undefined ? { max_batch_size: l.maxNumSeqs } : {}),
      ...(l.maxModelLen !== undefined ? { max_seq_len: l.maxModelLen } : {}),
      ...(l.trustRemoteCode ? { trust_remote_code: true } : {}),
      // prefill runs without the overlap scheduler, as in Dynamo's disaggregated configs
      ...(l.role === 'prefill' ? { disable_overlap_scheduler: true } : {}),
      ...(Object.keys(kvCache).length > 0 ? { kv_cache_config: kvCache } : {}),
      ...(disaggregated ? { cache_transceiver_config: { backend: l.nixlBackend === 'LIBFABRIC' ? 'NIXL' : 'DEFAULT' } } : {}),
    };
    const engineConfig = deepMerge(generated, l.engineConfig as Record<string, unknown> | undefined);

    const args = ['--model-path', l.model];
    if (l.servedModelName !== undefined) args.push('--served-model-name', l.servedModelName);
    args.push('--extra-engine-args', l.engineConfigPath!);
    if (l.blockSize !== undefined) args.push('--kv-block-size', String(l.blockSize));
    if (disaggregated) args.push('--disaggregation-mode', l.role);
    if (l.role !== 'decode' && l.kvEvents === 'publish') args.push(l.release.trtllmKvEventsFlag);

    const env: EnvVar[] = [];
    if (disaggregated && l.nixlBackend === 'LIBFABRIC') env.push({ name: 'TRTLLM_NIXL_KVCACHE_BACKEND', value: 'LIBFABRIC' });
    if (l.nodeCount !== undefined) {
      // multinode engines start through mpirun, which refuses to run as root without these
      env.push({ name: 'OMPI_ALLOW_RUN_AS_ROOT', value: '1' }, { name: 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', value: '1' });
    }
    return { command: ['python3', '-m', 'dynamo.trtllm'], args, env, engineConfig };
  },
};
