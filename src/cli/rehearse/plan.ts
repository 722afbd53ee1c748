import { DynamoRelease, flagValue, GraphModel, ServiceModel } from '../../core/internal';
import { Dropped, FRONTEND_OWNED, isComponentName, manifestVariable, MOCKER_OWNED, passedFlags } from './policy';

/**
 * What `dynamo-constructs rehearse` starts for a graph: its frontend with the manifest's own
 * flags, and each engine worker as Dynamo's mocker in the same role, as local processes that
 * find each other through files. Pure: the caller chooses ports and directories.
 */

export interface PlannedProcess {
  /** `<service>` or `<service>-<replica>`. */
  readonly name: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface RehearsalPlan {
  readonly frontend: PlannedProcess;
  readonly workers: readonly PlannedProcess[];
  /** Services not started, and why. */
  readonly skipped: readonly string[];
  /** What the manifest sets that the rehearsal leaves out (see rehearse-policy.ts). */
  readonly dropped: readonly Dropped[];
  /** The SLA the graph is planned for (its planner's targets), when it has one. */
  readonly sla?: { readonly ttftMs: number; readonly itlMs: number };
}

export interface PlanInputs {
  readonly release: DynamoRelease;
  readonly httpPort: number;
  /** One port per prefill worker process, for the mocker's disaggregation rendezvous. */
  readonly bootstrapPorts: () => number;
  /** The address every listener binds. @default '127.0.0.1' */
  readonly host?: string;
  /** Where file discovery keeps its records. */
  readonly discoveryDir: string;
  /**
   * The local directory the model's tokenizer and config are read from. A worker whose model is a
   * Hugging Face id keeps it (the directory is in a private hub cache under that id) except on 0.x,
   * which reads ids from the hub only; a model given as a path in the container is replaced by it.
   */
  readonly modelDir?: string;
  /** The URL of the NATS server, where the release needs one. */
  readonly natsUrl?: string;
  /** At most this many processes per worker pool. @default 4 */
  readonly maxReplicas?: number;
}

/** A problem that makes a graph impossible to rehearse, said in a sentence. */
export class RehearsalError extends Error {}

const ENGINE_BLOCK_SIZE: Record<string, { flags: string[]; default: number }> = {
  vllm: { flags: ['--block-size'], default: 16 },
  sglang: { flags: ['--page-size'], default: 16 },
  trtllm: { flags: ['--kv-block-size'], default: 32 },
};

/** A number of blocks, tokens or sequences as an engine flag gives it. */
const COUNT = /^[1-9][0-9]{0,8}$/;
/** A Hugging Face model id (`org/name` or `name`), which names a directory of the hub's cache. */
const HUB_ID = /^(?!.*\.\.)(?!.*--)[A-Za-z0-9][A-Za-z0-9._-]{0,95}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$/;
/** A served model name: printable, one line. */
const SERVED_NAME = /^[^\x00-\x1f\x7f]{1,256}$/;

/** Whether a model is a Hugging Face id (rather than a path in the container). */
export function isHubId(model: string): boolean {
  return HUB_ID.test(model);
}

/**
 * The literal environment of a service the rehearsal passes on; the rest goes to `dropped`
 * (values from Secrets or the downward API do not exist outside the cluster).
 */
function manifestEnv(s: ServiceModel, dropped: Dropped[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, entry] of s.env) {
    const value = entry.env.value;
    if (typeof value !== 'string') {
      dropped.push({ service: s.name, what: `env ${name}`, why: 'comes from a Secret, a ConfigMap or the pod, which a rehearsal does not have', inert: true });
      continue;
    }
    const verdict = manifestVariable(name, value);
    if (verdict.pass) env[name] = value;
    else dropped.push({ service: s.name, what: `env ${name}`, why: verdict.why, inert: verdict.inert });
  }
  return env;
}

/** An engine flag's count (block size, sequences, length) for the mocker, when it is a plain number. */
function countFlag(s: ServiceModel, dropped: Dropped[], ...flags: string[]): string | undefined {
  const found = flagValue(s.launch, ...flags);
  if (found === undefined || found.value === true) return undefined;
  if (COUNT.test(found.value)) return found.value;
  dropped.push({ service: s.name, what: `flag ${found.name}`, why: 'its value is not a whole number' });
  return undefined;
}

/** The mocker flags for an engine worker, from the engine's own command line. */
function mockerArgs(s: ServiceModel, release: DynamoRelease, inputs: PlanInputs, dropped: Dropped[]): string[] {
  if (s.engine === 'mocker') {
    // already a rehearsal manifest: its own flags, those the rehearsal takes, with the model stood in for
    const own = new Set([...MOCKER_OWNED, '--model-name']);
    return passedFlags(s.name, s.launch.flags, 'mocker', own, dropped).concat(modelFlags(s, release, inputs, dropped));
  }
  const engine = s.engine!;
  // the block size the engine runs with, which the frontend's KV router announces
  const flag = countFlag(s, dropped, ...ENGINE_BLOCK_SIZE[engine].flags);
  const fromConfig = (s.engineConfig?.kv_cache_config as { tokens_per_block?: unknown } | undefined)?.tokens_per_block;
  const size = flag ?? (typeof fromConfig === 'number' && COUNT.test(String(fromConfig)) ? String(fromConfig) : undefined);
  const maxSeqs = countFlag(s, dropped, '--max-num-seqs', '--max-running-requests');
  const maxLen = countFlag(s, dropped, '--max-model-len', '--context-length');
  const m = release.mocker;
  return [
    ...modelFlags(s, release, inputs, dropped),
    ...(m.engineTypeFlag ? [m.engineTypeFlag, engine] : []),
    '--block-size',
    size ?? String(ENGINE_BLOCK_SIZE[engine].default),
    ...(maxSeqs !== undefined ? ['--max-num-seqs', maxSeqs] : []),
    ...(m.maxModelLen && maxLen !== undefined ? ['--max-model-len', maxLen] : []),
    ...(s.role === 'prefill' || s.role === 'decode' ? m.roleFlags[s.role] : []),
  ];
}

/**
 * `--model-path` (and `--model-name`) of a worker. Its files come from the rehearsal's model
 * directory: a Hugging Face id stays (1.x finds it in the private hub cache), a path in the
 * container (which names nothing on this machine) becomes the directory, as on 0.x, which reads
 * ids from the hub only (its frontend too, for any served name that looks like one).
 */
function modelFlags(s: ServiceModel, release: DynamoRelease, inputs: PlanInputs, dropped: Dropped[]): string[] {
  const model = flagValue(s.launch, '--model', '--model-path')?.value;
  if (typeof model !== 'string') throw new RehearsalError(`${s.name} runs no model (no --model or --model-path in its command line)`);
  const servedFlag = flagValue(s.launch, '--served-model-name', '--model-name');
  let served = typeof servedFlag?.value === 'string' ? servedFlag.value : undefined;
  if (served !== undefined && !SERVED_NAME.test(served)) {
    dropped.push({ service: s.name, what: `flag ${servedFlag!.name}`, why: 'its value is not one printable line' });
    served = undefined;
  }
  if (inputs.modelDir && release.line.startsWith('0.')) return ['--model-path', inputs.modelDir];
  if (isHubId(model)) return ['--model-path', model, ...(served !== undefined ? ['--model-name', served] : [])];
  if (!inputs.modelDir) throw new RehearsalError(`${s.name} runs the model at a path in its container (${JSON.stringify(model)}), which a rehearsal does not read; give its tokenizer and config with --tokenizer DIR`);
  return ['--model-path', inputs.modelDir, '--model-name', served ?? (SERVED_NAME.test(model) ? model : 'model')];
}

/** The SLA of a graph's planner: 0.x flags, or the keys of its inline or mounted 1.x config. */
function plannerSla(g: GraphModel): RehearsalPlan['sla'] {
  const planner = g.services.find((s) => s.kind === 'planner');
  if (!planner) return undefined;
  const read = (flag: string, keys: string[]) => {
    const f = flagValue(planner.launch, flag)?.value;
    if (typeof f === 'string') return Number(f);
    for (const k of keys) {
      const v = planner.plannerConfig?.values[k];
      if (typeof v === 'number') return v;
    }
    return undefined;
  };
  const ttftMs = read('--ttft', ['ttft_ms', 'ttft']);
  const itlMs = read('--itl', ['itl_ms', 'itl']);
  return ttftMs !== undefined && itlMs !== undefined && Number.isFinite(ttftMs) && Number.isFinite(itlMs) ? { ttftMs, itlMs } : undefined;
}

export function planRehearsal(g: GraphModel, inputs: PlanInputs): RehearsalPlan {
  const release = inputs.release;
  const host = inputs.host ?? '127.0.0.1';
  for (const s of g.services) {
    if (!isComponentName(s.name)) {
      throw new RehearsalError(`a service is named ${JSON.stringify(s.name)}, which the DynamoGraphDeployment CRD does not allow (letters, digits and '-', at most 63 characters); a rehearsal names its processes and their logs after services`);
    }
  }
  const frontends = g.services.filter((s) => s.kind === 'frontend');
  if (frontends.length !== 1) throw new RehearsalError(`the graph has ${frontends.length} frontends; a rehearsal needs exactly one`);
  const workers = g.services.filter((s) => s.kind === 'worker');
  if (workers.length === 0) throw new RehearsalError('the graph has no worker to rehearse');
  const dropped: Dropped[] = [];
  const base: Record<string, string> = {
    DYN_FILE_KV: inputs.discoveryDir,
    // every listener on the rehearsal's address, every release's variable for it
    DYN_TCP_RPC_HOST: host,
    DYN_HTTP_RPC_HOST: host,
    DYN_EVENT_PLANE_HOST: host,
    DYN_SYSTEM_HOST: host,
    DYN_TCP_RESPONSE_STREAM_HOST: host,
    ...(inputs.natsUrl ? { NATS_SERVER: inputs.natsUrl } : {}),
  };
  const f = frontends[0];
  const frontend: PlannedProcess = {
    name: f.name,
    args: [...passedFlags(f.name, f.launch.flags, 'frontend', FRONTEND_OWNED, dropped), '--http-host', host, '--http-port', String(inputs.httpPort), ...release.localRun.fileDiscovery],
    env: { ...manifestEnv(f, dropped), ...base },
  };
  const skipped = g.services.filter((s) => s.kind === 'planner' || s.kind === 'other').map((s) =>
    s.kind === 'planner' ? `${s.name}: the planner scales Kubernetes objects; a local rehearsal has none` : `${s.name}: runs ${s.launch.module ?? s.launch.program ?? 'nothing the rehearsal knows'}, not an engine`,
  );
  const max = inputs.maxReplicas ?? 4;
  const planned: PlannedProcess[] = [];
  for (const w of workers) {
    if (!w.engine) throw new RehearsalError(`${w.name} runs no engine the rehearsal knows (vLLM, SGLang, TensorRT-LLM or the mocker)`);
    const replicas = typeof w.spec.replicas === 'number' && Number.isSafeInteger(w.spec.replicas) ? w.spec.replicas : 1;
    const count = Math.max(1, Math.min(replicas, max));
    if (replicas > max) skipped.push(`${w.name}: ${replicas - max} of its ${replicas} replicas (a rehearsal starts at most ${max} per pool)`);
    const args = mockerArgs(w, release, inputs, dropped);
    const env = { ...manifestEnv(w, dropped), ...base };
    for (let i = 0; i < count; i++) {
      const bootstrap = w.role === 'prefill' ? ['--bootstrap-ports', String(inputs.bootstrapPorts())] : [];
      planned.push({ name: count > 1 ? `${w.name}-${i}` : w.name, args: [...args, ...bootstrap, ...release.localRun.fileDiscovery], env });
    }
  }
  const names = [frontend, ...planned].map((p) => p.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new RehearsalError(`two of the rehearsal's processes would be named ${twice}; rename the service whose name ends in a replica number`);
  return { frontend, workers: planned, skipped, dropped, sla: plannerSla(g) };
}
