/**
 * What a rehearsal takes from a manifest it did not write. Its processes run Dynamo's code with
 * settings that shape the graph (model, router, block size, roles, KV events, sequence limits) and
 * nothing else: no variable that loads code, changes the interpreter, points at a file or
 * redirects traffic, and no flag that writes files, opens listeners or imports modules. Whatever
 * is left out is reported with its service; `--strict` refuses the manifest instead.
 */

/** Something the manifest sets that the rehearsal does not pass on. */
export interface Dropped {
  readonly service: string;
  /** `env NAME` or `flag --name`. */
  readonly what: string;
  readonly why: string;
  /**
   * Only the engine (or the pod) reads it: the mocker that stands in for the engine has no use
   * for it, so leaving it out is not a refusal (`--strict` accepts it).
   */
  readonly inert?: boolean;
}

/** A flag or variable value that is a plain word or number: no path, URL, JSON or shell. */
const PLAIN_VALUE = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$|^-[0-9][0-9.]{0,30}$/;
/** Log filters (`info,dynamo_runtime=debug`) and the like. */
const LOG_VALUE = /^[A-Za-z0-9_.,:=-]{1,256}$/;

/**
 * Variables from the manifest that reach the rehearsal's processes: the environment forms of the
 * frontend's router and migration settings and of logging. Names that end in a file, path,
 * config, URL, endpoint, host or port are never among them.
 */
const MANIFEST_ENV: readonly { readonly name: RegExp; readonly value: RegExp }[] = [
  { name: /^DYN_LOG(GING_JSONL|_USE_LOCAL_TZ)?$/, value: LOG_VALUE },
  { name: /^DYN_KV_CACHE_BLOCK_SIZE$/, value: PLAIN_VALUE },
  { name: /^DYN_ROUTER_[A-Z0-9_]+$/, value: PLAIN_VALUE },
  { name: /^DYN_ACTIVE_(DECODE_BLOCKS|PREFILL_TOKENS)_THRESHOLD(_FRAC)?$/, value: PLAIN_VALUE },
  { name: /^DYN_(MIGRATION_LIMIT|MIGRATION_MAX_SEQ_LEN|ENFORCE_DISAGG|OVERLAP_SCORE_WEIGHT)$/, value: PLAIN_VALUE },
];
const NEVER = /(_FILE|_PATH|_DIR|_CONFIG|_URL|_URI|_ENDPOINTS?|_HOST|_PORT|_ADDR(ESS)?|_SINKS?)$/;

/** Variables only the engine, its fabric or the pod reads: the mocker has no use for them. */
const ENGINE_ENV = /^(UCX|FI|NIXL|NCCL|CUDA|NVIDIA|VLLM|SGLANG|SGL|TRTLLM|TLLM|TORCH|PYTORCH|OMP|MKL|GLOO|NVSHMEM|MOONCAKE|LMCACHE|TRITON|POD|NODE)_/;
/** Variables that point into the pod (its volumes and ports, the cluster's discovery and NATS): the rehearsal sets its own. */
const POD_ENV = new Set([
  'HF_HOME',
  'HF_HUB_CACHE',
  'HF_HUB_OFFLINE',
  'TRANSFORMERS_OFFLINE',
  'HF_DATASETS_OFFLINE',
  'HF_HUB_ENABLE_HF_TRANSFER',
  'TOKENIZERS_PARALLELISM',
  'DYN_SYSTEM_PORT',
  'DYN_SYSTEM_ENABLED',
  'DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS',
  'DYN_HTTP_PORT',
  'DYN_NAMESPACE',
  'DYN_PARENT_DGD_K8S_NAME',
  'DYN_PARENT_DGD_K8S_NAMESPACE',
  'ETCD_ENDPOINTS',
  'NATS_SERVER',
  'DYN_DISCOVERY_BACKEND',
  'DYN_STORE_KV',
  'DYN_KV_STORE',
  'DYN_REQUEST_PLANE',
  'DYN_EVENT_PLANE',
]);

/** A literal variable of the manifest: passed on, or why not. */
export function manifestVariable(name: string, value: string): { pass: true } | { pass: false; why: string; inert?: boolean } {
  if (POD_ENV.has(name)) return { pass: false, why: 'points into the pod; the rehearsal sets its own', inert: true };
  if (ENGINE_ENV.test(name)) return { pass: false, why: 'read by the engine the mocker stands in for', inert: true };
  const rule = NEVER.test(name) ? undefined : MANIFEST_ENV.find((r) => r.name.test(name));
  if (!rule) return { pass: false, why: 'not a setting a rehearsal takes from a manifest (it could load code, read a file or redirect traffic)' };
  if (!rule.value.test(value)) return { pass: false, why: 'its value is not a plain word or number' };
  return { pass: true };
}

/** Frontend flags that shape the graph (router, KV events, block size, migration), with their 0.x and 1.x spellings. */
const FRONTEND_FLAGS = new Set([
  '--router-mode',
  '--kv-cache-block-size',
  '--kv-overlap-score-weight',
  '--router-kv-overlap-score-weight',
  '--router-temperature',
  '--kv-events',
  '--no-kv-events',
  '--router-kv-events',
  '--no-router-kv-events',
  '--router-ttl',
  '--router-ttl-secs',
  '--router-max-tree-size',
  '--router-prune-target-ratio',
  '--active-decode-blocks-threshold',
  '--active-prefill-tokens-threshold',
  '--active-prefill-tokens-threshold-frac',
  '--busy-threshold',
  '--router-replica-sync',
  '--no-router-replica-sync',
  '--router-reset-states',
  '--track-active-blocks',
  '--no-track-active-blocks',
  '--router-track-active-blocks',
  '--no-router-track-active-blocks',
  '--track-output-blocks',
  '--no-track-output-blocks',
  '--router-track-output-blocks',
  '--no-router-track-output-blocks',
  '--assume-kv-reuse',
  '--no-assume-kv-reuse',
  '--router-assume-kv-reuse',
  '--no-router-assume-kv-reuse',
  '--router-track-prefill-tokens',
  '--no-router-track-prefill-tokens',
  '--router-prefill-load-scale',
  '--router-kv-overlap-score-credit',
  '--router-kv-overlap-score-credit-decay',
  '--router-decode-active-request-weight',
  '--router-host-cache-hit-weight',
  '--router-disk-cache-hit-weight',
  '--router-queue-threshold',
  '--router-queue-policy',
  '--router-event-threads',
  '--router-min-initial-workers',
  '--router-approximate-cache-policy',
  '--load-aware',
  '--no-load-aware',
  '--enforce-disagg',
  '--no-enforce-disagg',
  '--migration-limit',
  '--migration-max-seq-len',
]);

/** Frontend flags the rehearsal sets itself (listeners and discovery). */
export const FRONTEND_OWNED = new Set(['--http-port', '--http-host', '--store-kv', '--discovery-backend', '--request-plane', '--event-plane', '--namespace']);

/** Mocker flags that shape a worker: model name, engine, role, block size, sequence limits and the simulated timing. */
const MOCKER_FLAGS = new Set([
  '--model-name',
  '--engine-type',
  '--block-size',
  '--max-model-len',
  '--max-num-seqs',
  '--max-num-batched-tokens',
  '--num-gpu-blocks-override',
  '--enable-prefix-caching',
  '--no-enable-prefix-caching',
  '--enable-chunked-prefill',
  '--no-enable-chunked-prefill',
  '--preemption-mode',
  '--speedup-ratio',
  '--decode-speedup-ratio',
  '--data-parallel-size',
  '--startup-time',
  '--watermark',
  '--disaggregation-mode',
  '--is-prefill-worker',
  '--is-decode-worker',
  '--kv-cache-dtype',
  '--kv-bytes-per-token',
  '--kv-transfer-bandwidth',
  '--kv-transfer-timing-mode',
  '--sglang-schedule-policy',
  '--sglang-page-size',
  '--sglang-max-prefill-tokens',
  '--sglang-chunked-prefill-size',
  '--sglang-clip-max-new-tokens',
  '--sglang-schedule-conservativeness',
  '--trtllm-capacity-scheduler-policy',
]);

/** Mocker flags the rehearsal sets itself (model files, discovery, rendezvous ports). */
export const MOCKER_OWNED = new Set(['--model-path', '--store-kv', '--discovery-backend', '--request-plane', '--event-plane', '--bootstrap-ports', '--endpoint']);

/** The flags of one process that a rehearsal passes on, as a list; what it leaves out goes to `dropped`. */
export function passedFlags(
  service: string,
  flags: ReadonlyMap<string, string | true>,
  allowed: 'frontend' | 'mocker',
  drop: ReadonlySet<string>,
  dropped: Dropped[],
): string[] {
  const allow = allowed === 'frontend' ? FRONTEND_FLAGS : MOCKER_FLAGS;
  const out: string[] = [];
  for (const [flag, value] of flags) {
    if (drop.has(flag)) continue;
    if (!allow.has(flag)) {
      dropped.push({ service, what: `flag ${flag}`, why: `not a flag a rehearsal takes from a manifest (it could write files, open listeners or load code)` });
      continue;
    }
    if (value !== true && !PLAIN_VALUE.test(value)) {
      dropped.push({ service, what: `flag ${flag}`, why: 'its value is not a plain word or number' });
      continue;
    }
    out.push(flag, ...(value === true ? [] : [value]));
  }
  return out;
}

/** What a component may be called: the v1beta1 CRD's pattern for `spec.components[].name`, which also makes it a safe file name. */
const COMPONENT_NAME = /^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$/;

/** Whether a service name can name the rehearsal's processes and their log files. */
export function isComponentName(name: string): boolean {
  return name.length <= 63 && COMPONENT_NAME.test(name);
}
