import type { BackendRenderer, WorkerCommand, WorkerLaunch } from './renderer';
import { DEFAULT_DYNAMO_VERSION, releaseOf } from '../releases/versions';

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
    // (a vLLM whose parser takes any block size leaves the choice to its attention backend)
    if (!engine.blockSizes || engine.blockSizes.includes(size)) return undefined;
    return `vLLM ${engine.version} accepts block sizes ${engine.blockSizes.join(', ')}`;
  },
  extraArgsProblem(extra, release) {
    const flags = extra.map((a) => a.split('=')[0]);
    if (release.vllm.kvTransferRoles) {
      // 1.x raises on --connector (and DYN_CONNECTOR): the connector is --kv-transfer-config alone
      if (flags.includes('--connector')) return `sets --connector, which dynamo.vllm of Dynamo ${release.line}.x refuses; pass the connector in --kv-transfer-config`;
      return undefined;
    }
    // Dynamo 0.8/0.9 defaults to `--connector nixl`, and refuses a connector config next to it.
    if (flags.includes('--kv-transfer-config') && !flags.includes('--connector')) {
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
    const v = l.release.vllm;
    if (l.role !== 'aggregated') {
      args.push(...v.roleFlags[l.role]);
      // vLLM picks NIXL's backend only from the connector config
      const libfabric = l.nixlBackend === 'LIBFABRIC' ? { kv_connector_extra_config: { backends: ['LIBFABRIC'] } } : {};
      if (v.kvTransferRoles) {
        // 1.x: every disaggregated worker names its connector and its side of the transfer
        args.push('--kv-transfer-config', JSON.stringify({ kv_connector: 'NixlConnector', kv_role: v.kvTransferRoles[l.role], ...libfabric }));
      } else if (l.nixlBackend === 'LIBFABRIC') {
        // 0.8/0.9: Dynamo's own `--connector nixl` default must be switched off to pass a config
        args.push('--connector', 'none', '--kv-transfer-config', JSON.stringify({ kv_connector: 'NixlConnector', kv_role: 'kv_both', ...libfabric }));
      }
    }
    // Decode workers never publish KV events; aggregated and prefill workers do.
    if (l.role !== 'decode') {
      if (l.kvEvents === 'publish') {
        args.push('--kv-events-config', JSON.stringify(v.kvEventsConfig));
      } else if (l.kvEvents === 'suppress' && v.kvEvents === 'default-on') {
        args.push('--kv-events-config', JSON.stringify({ enable_kv_cache_events: false }));
      }
    }
    return { command: ['python3', '-m', 'dynamo.vllm'], args, env: [] };
  },
};
