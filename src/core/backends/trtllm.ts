import type { BackendRenderer, WorkerCommand, WorkerLaunch } from '../backend';
import { EnvVar } from '../k8s';
import { deepMerge } from '../util';

/** TensorRT-LLM through `python3 -m dynamo.trtllm`, with a generated engine config. */
export const TRTLLM: BackendRenderer = {
  name: 'trtllm',
  imageName: 'tensorrtllm-runtime',
  servicePrefix: 'TRTLLM',
  sharedMemory: '80Gi',
  usesEngineConfigFile: true,
  workingDir: '/workspace',
  renderWorker(l: WorkerLaunch): WorkerCommand {
    const disaggregated = l.role !== 'aggregated';
    const generated: Record<string, unknown> = {
      backend: 'pytorch',
      tensor_parallel_size: l.tensorParallelSize,
      ...(l.pipelineParallelSize !== undefined ? { pipeline_parallel_size: l.pipelineParallelSize } : {}),
      ...(l.maxNumSeqs !== undefined ? { max_batch_size: l.maxNumSeqs } : {}),
      ...(l.maxModelLen !== undefined ? { max_seq_len: l.maxModelLen } : {}),
      ...(l.trustRemoteCode ? { trust_remote_code: true } : {}),
      // prefill runs without the overlap scheduler, as in Dynamo's disaggregated configs
      ...(l.role === 'prefill' ? { disable_overlap_scheduler: true } : {}),
      ...(l.kvCacheDtype !== undefined ? { kv_cache_config: { dtype: l.kvCacheDtype } } : {}),
      ...(disaggregated ? { cache_transceiver_config: { backend: l.nixlBackend === 'LIBFABRIC' ? 'NIXL' : 'DEFAULT' } } : {}),
    };
    const engineConfig = deepMerge(generated, l.engineConfig as Record<string, unknown> | undefined);

    const args = ['--model-path', l.model];
    if (l.servedModelName !== undefined) args.push('--served-model-name', l.servedModelName);
    args.push('--extra-engine-args', l.engineConfigPath!);
    if (l.blockSize !== undefined) args.push('--kv-block-size', String(l.blockSize));
    if (disaggregated) args.push('--disaggregation-mode', l.role);
    if (l.role !== 'decode' && l.kvEvents === 'publish') args.push('--publish-events-and-metrics');

    const env: EnvVar[] = [];
    if (disaggregated && l.nixlBackend === 'LIBFABRIC') env.push({ name: 'TRTLLM_NIXL_KVCACHE_BACKEND', value: 'LIBFABRIC' });
    return { command: ['python3', '-m', 'dynamo.trtllm'], args, env, engineConfig };
  },
};
