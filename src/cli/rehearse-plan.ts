import { DynamoRelease, flagValue, GraphModel, ServiceModel } from '../core';

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
  /** The SLA the graph is planned for (its planner's targets), when it has one. */
  readonly sla?: { readonly ttftMs: number; readonly itlMs: number };
}

export interface PlanInputs {
  readonly release: DynamoRelease;
  readonly httpPort: number;
  /** One port per prefill worker process, for the mocker's disaggregation rendezvous. */
  readonly bootstrapPorts: () => number;
  /** Where file discovery keeps its records. */
  readonly discoveryDir: string;
  /** A local model directory that stands in for the model (tokenizer and config); undefined: the model's own. */
  readonly modelDir?: string;
  /** The URL of the NATS server, where the release needs one. */
  readonly natsUrl?: string;
  /** At most this many processes per worker pool. @default 4 */
  readonly maxReplicas?: number;
}

/** A problem that makes a graph impossible to rehearse, said in a sentence. */
export class RehearsalError extends Error {}

/** Frontend flags the rehearsal sets itself. */
const FRONTEND_OWNED = ['--http-port', '--http-host', '--store-kv', '--discovery-backend', '--request-plane', '--event-plane', '--namespace'];

const ENGINE_BLOCK_SIZE: Record<string, { flags: string[]; default: number }> = {
  vllm: { flags: ['--block-size'], default: 16 },
  sglang: { flags: ['--page-size'], default: 16 },
  trtllm: { flags: ['--kv-block-size'], default: 32 },
};

/** The flags of a launch, back as a list (values after their flag). */
function flagList(flags: ReadonlyMap<string, string | true>, drop: readonly string[]): string[] {
  const out: string[] = [];
  for (const [flag, value] of flags) {
    if (drop.includes(flag)) continue;
    out.push(flag);
    if (value !== true) out.push(value);
  }
  return out;
}

/** Variables that point into the pod (its volumes, its ports, the cluster's etcd and NATS): not brought along. */
const POD_ONLY = new Set(['HF_HOME', 'DYN_SYSTEM_PORT', 'DYN_HTTP_PORT', 'ETCD_ENDPOINTS', 'NATS_SERVER', 'DYN_DISCOVERY_BACKEND', 'DYN_STORE_KV', 'DYN_KV_STORE']);

/** Literal environment of a service (values from Secrets or the downward API do not exist locally). */
function literalEnv(s: ServiceModel): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, entry] of s.env) if (typeof entry.env.value === 'string' && !POD_ONLY.has(name)) env[name] = entry.env.value;
  return env;
}

/** The mocker flags for an engine worker, from the engine's own command line. */
function mockerArgs(s: ServiceModel, release: DynamoRelease, inputs: PlanInputs): string[] {
  if (s.engine === 'mocker') {
    // already a rehearsal manifest: its flags, with the model stood in for
    return flagList(s.launch.flags, ['--model-path', '--store-kv', '--discovery-backend', '--bootstrap-ports', ...(inputs.modelDir ? ['--model-name'] : [])]).concat(modelFlags(s, release, inputs));
  }
  const engine = s.engine!;
  // the block size the engine runs with, which the frontend's KV router announces
  const flag = flagValue(s.launch, ...ENGINE_BLOCK_SIZE[engine].flags)?.value;
  const fromConfig = (s.engineConfig?.kv_cache_config as { tokens_per_block?: unknown } | undefined)?.tokens_per_block;
  const size = typeof flag === 'string' ? flag : typeof fromConfig === 'number' ? String(fromConfig) : undefined;
  const maxSeqs = flagValue(s.launch, '--max-num-seqs', '--max-running-requests')?.value;
  const maxLen = flagValue(s.launch, '--max-model-len', '--context-length')?.value;
  const m = release.mocker;
  return [
    ...modelFlags(s, release, inputs),
    ...(m.engineTypeFlag ? [m.engineTypeFlag, engine] : []),
    '--block-size',
    String(size ?? ENGINE_BLOCK_SIZE[engine].default),
    ...(typeof maxSeqs === 'string' ? ['--max-num-seqs', maxSeqs] : []),
    ...(m.maxModelLen && typeof maxLen === 'string' ? ['--max-model-len', maxLen] : []),
    ...(s.role === 'prefill' || s.role === 'decode' ? m.roleFlags[s.role] : []),
  ];
}

/** `--model-path` (and `--model-name`) of a worker: the model's own, or the local stand-in. */
function modelFlags(s: ServiceModel, release: DynamoRelease, inputs: PlanInputs): string[] {
  const model = flagValue(s.launch, '--model', '--model-path')?.value;
  if (typeof model !== 'string') throw new RehearsalError(`${s.name} runs no model (no --model or --model-path in its command line)`);
  const served = flagValue(s.launch, '--served-model-name', '--model-name')?.value;
  // 0.x reads a model id from the hub only (its frontend too, for any served name that looks like one),
  // so the stand-in goes in by its path and is served under it
  if (inputs.modelDir && release.line.startsWith('0.')) return ['--model-path', inputs.modelDir];
  return ['--model-path', model, ...(typeof served === 'string' ? ['--model-name', served] : [])];
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
  const frontends = g.services.filter((s) => s.kind === 'frontend');
  if (frontends.length !== 1) throw new RehearsalError(`the graph has ${frontends.length} frontends; a rehearsal needs exactly one`);
  const workers = g.services.filter((s) => s.kind === 'worker');
  if (workers.length === 0) throw new RehearsalError('the graph has no worker to rehearse');
  const base: Record<string, string> = {
    DYN_FILE_KV: inputs.discoveryDir,
    // every listener on loopback
    DYN_TCP_RPC_HOST: '127.0.0.1',
    DYN_HTTP_RPC_HOST: '127.0.0.1',
    DYN_EVENT_PLANE_HOST: '127.0.0.1',
    DYN_SYSTEM_HOST: '127.0.0.1',
    ...(inputs.natsUrl ? { NATS_SERVER: inputs.natsUrl } : {}),
  };
  const f = frontends[0];
  const frontend: PlannedProcess = {
    name: f.name,
    args: [...flagList(f.launch.flags, FRONTEND_OWNED), '--http-host', '127.0.0.1', '--http-port', String(inputs.httpPort), ...release.localRun.fileDiscovery],
    env: { ...literalEnv(f), ...base },
  };
  const skipped = g.services.filter((s) => s.kind === 'planner' || s.kind === 'other').map((s) =>
    s.kind === 'planner' ? `${s.name}: the planner scales Kubernetes objects; a local rehearsal has none` : `${s.name}: runs ${s.launch.module ?? s.launch.program ?? 'nothing the rehearsal knows'}, not an engine`,
  );
  const max = inputs.maxReplicas ?? 4;
  const planned: PlannedProcess[] = [];
  for (const w of workers) {
    if (!w.engine) throw new RehearsalError(`${w.name} runs no engine the rehearsal knows (vLLM, SGLang, TensorRT-LLM or the mocker)`);
    const replicas = typeof w.spec.replicas === 'number' ? w.spec.replicas : 1;
    const count = Math.max(1, Math.min(replicas, max));
    if (replicas > max) skipped.push(`${w.name}: ${replicas - max} of its ${replicas} replicas (a rehearsal starts at most ${max} per pool)`);
    const args = mockerArgs(w, release, inputs);
    for (let i = 0; i < count; i++) {
      const bootstrap = w.role === 'prefill' ? ['--bootstrap-ports', String(inputs.bootstrapPorts())] : [];
      planned.push({ name: count > 1 ? `${w.name}-${i}` : w.name, args: [...args, ...bootstrap, ...release.localRun.fileDiscovery], env: { ...literalEnv(w), ...base } });
    }
  }
  return { frontend, workers: planned, skipped, sla: plannerSla(g) };
}
