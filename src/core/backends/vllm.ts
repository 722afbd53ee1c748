import type { BackendRenderer, WorkerCommand, WorkerLaunch } from '../backend';
import { DEFAULT_DYNAMO_VERSION, releaseOf } from '../versions';

const ROLE_FLAGS = ['--is-prefill-worker', '--is-decode-worker', '--disaggregation-mode'];

/** vLLM through `python3 -m dynamo.vllm`. */
export const VLLM: BackendRenderer = {
  name: 'vllm',
  imageName: 'vllm-runtime',
  // Dynamo's names for vLLM workers (also the SLA planner's fallback names)
  serviceNames: { prefill: 'VllmPrefillWorker', decode: 'VllmDecodeWorker', aggregated: 'VllmWorker' },
  sharedMemory: '16Gi',
  // vLLM's own default on GPUs
  defaultBlockSize: 16,
  usesEngineConfigFile: false,
  workingDir: '/workspace',
  ownedFlags: [...ROLE_FLAGS, '--kv-events-config'],
  engineKeysFromOptions: {},
  blockSizeProblem(size, release) {
    const engine = (release ?? releaseOf(DEFAULT_DYNAMO_VERSION)).engines.vllm;
    const sizes = engine.blockSizes ?? [];
    return sizes.includes(size) ? undefined : `vLLM ${engine.version} accepts block sizes ${sizes.join(', ')}`;
  },
  extraArgsProblem(extra) {
    // Dynamo 0.8/0.9 defaults to `--connector nixl`, and refuses a connector config next to it.
    if (extra.some((a) => a.split('=')[0] === '--kv-transfer-config') && !extra.some((a) => a.split('=')[0] === '--connector')) {
      return 'sets --kv-transfer-config without --connector none; dynamo.vllm refuses both a connector config and its default connector (nixl)';
    }
    return undefined;
  },
  renderWorker(l: WorkerLaunch): WorkerCommand {
    const args = ['--model', l.model];
    if (l.servedModelName !== undefined) args.push('--served-model-name', l.servedModelName);
    args.push('--tensor-parallel-size', String(l.tensorParallelSize));
    if (l.pipelineParallelSize !== undefined) args.push('--pipeline-parallel-size', String(l.pipelineParallelSize));
    if (l.kvCacheDtype !== undefined) args.push('--kv-cache-dtype', l.kvCacheDtype);
    if (l.maxNumSeqs !== undefined) args.push('--max-num-seqs', String(l.maxNumSeqs));
    if (l.blockSize !== undefined) args.push('--block-size', String(l.blockSize));
    if (l.maxModelLen !== undefined) args.push('--max-model-len', String(l.maxModelLen));
    if (l.trustRemoteCode) args.push('--trust-remote-code');
    if (l.role !== 'aggregated') args.push(...l.release.vllmRoleFlags[l.role]);
    if (l.role !== 'aggregated' && l.nixlBackend === 'LIBFABRIC') {
      // vLLM picks NIXL's backend only from the connector config; Dynamo's own
      // `--connector nixl` default must be switched off to pass one.
      args.push(
        '--connector',
        'none',
        '--kv-transfer-config',
        JSON.stringify({ kv_connector: 'NixlConnector', kv_role: 'kv_both', kv_connector_extra_config: { backends: ['LIBFABRIC'] } }),
      );
    }
    // Decode workers never publish KV events; aggregated and prefill workers do.
    if (l.role !== 'decode') {
      if (l.kvEvents === 'publish') {
        args.push('--kv-events-config', JSON.stringify({ enable_kv_cache_events: true, endpoint: 'tcp://*:5557' }));
      } else if (l.kvEvents === 'suppress') {
        args.push('--kv-events-config', JSON.stringify({ enable_kv_cache_events: false }));
      }
    }
    return { command: ['python3', '-m', 'dynamo.vllm'], args, env: [] };
  },
};
