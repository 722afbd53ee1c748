import type { BackendRenderer, WorkerCommand, WorkerLaunch } from './renderer';
import { EnvVar } from '../base/k8s';

/** The port of SGLang's disaggregation bootstrap server on prefill workers. */
export const SGLANG_BOOTSTRAP_PORT = 12345;
/** SGLang's own default page size is 1; Dynamo's examples run 16, the router's typical block. */
const DEFAULT_PAGE_SIZE = 16;

/** SGLang through `python3 -m dynamo.sglang`. */
export const SGLANG: BackendRenderer = {
  name: 'sglang',
  imageName: 'sglang-runtime',
  // Dynamo's own short service names: Grove limits graph + service name to 45 characters
  serviceNames: { prefill: 'prefill', decode: 'decode', aggregated: 'worker' },
  sharedMemory: '16Gi',
  defaultBlockSize: DEFAULT_PAGE_SIZE,
  usesEngineConfigFile: false,
  workingDir: '/workspace',
  ownedFlags: ['--disaggregation-mode', '--disaggregation-transfer-backend', '--disaggregation-bootstrap-port', '--kv-events-config'],
  engineKeysFromOptions: {},
  blockSizeProblem: () => undefined,
  extraArgsProblem: () => undefined,
  renderWorker(l: WorkerLaunch): WorkerCommand {
    const args = ['--model-path', l.model];
    if (l.servedModelName !== undefined) args.push('--served-model-name', l.servedModelName);
    args.push('--page-size', String(l.blockSize ?? DEFAULT_PAGE_SIZE));
    // SGLang's flag is --tp-size: `--tp` parses only as an argparse abbreviation of it, which
    // breaks the day SGLang adds another --tp... flag
    args.push('--tp-size', String(l.tensorParallelSize));
    if (l.pipelineParallelSize !== undefined) args.push('--pp-size', String(l.pipelineParallelSize));
    if (l.kvCacheDtype !== undefined) args.push('--kv-cache-dtype', l.kvCacheDtype);
    if (l.maxNumSeqs !== undefined) args.push('--max-running-requests', String(l.maxNumSeqs));
    if (l.maxModelLen !== undefined) args.push('--context-length', String(l.maxModelLen));
    if (l.trustRemoteCode) args.push('--trust-remote-code');
    // The frontend tokenizes; workers receive token ids.
    args.push('--skip-tokenizer-init');
    const env: EnvVar[] = [];
    if (l.role !== 'aggregated') {
      args.push(
        '--disaggregation-mode',
        l.role,
        '--disaggregation-transfer-backend',
        'nixl',
        '--disaggregation-bootstrap-port',
        String(SGLANG_BOOTSTRAP_PORT),
        // the bootstrap server must be reachable from the other pods
        '--host',
        '0.0.0.0',
      );
      if (l.nixlBackend === 'LIBFABRIC') env.push({ name: 'SGLANG_DISAGGREGATION_NIXL_BACKEND', value: 'LIBFABRIC' });
    }
    if (l.role !== 'decode' && l.kvEvents === 'publish') {
      args.push('--kv-events-config', JSON.stringify({ publisher: 'zmq', topic: 'kv-events', endpoint: 'tcp://*:5557' }));
    }
    return { command: ['python3', '-m', 'dynamo.sglang'], args, env };
  },
};
