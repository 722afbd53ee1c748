import { checkInteger, checkNumber, checkPort } from '../base/checks';
import { Diagnostics } from '../base/errors';
import { FRONTEND_HTTP_PORT } from '../model/dgd';
import { Findings } from './findings';
import { argField, GraphModel, Located, ServiceModel } from '../model/graph-model';
import { flagValue } from '../model/launch';

/** The numeric KV router parameters. @internal */
export type KvRouterNumber =
  | 'overlapScoreWeight'
  | 'temperature'
  | 'blockSize'
  | 'activeDecodeBlocksThreshold'
  | 'activePrefillTokensThreshold'
  | 'ttlSeconds'
  | 'maxTreeSize'
  | 'pruneTargetRatio';

/**
 * The range of each numeric router parameter, for the options and for the flags lint reads
 * (guide 3's tables). Weights, the temperature and the TTL are finite and at most
 * `INT32_MAX` (`checkNumber`'s bound: a larger TTL overflows the router's durations); block
 * sizes, thresholds and tree sizes are 32-bit integers (Dynamo reads the block size as u32).
 * @internal
 */
export const KV_ROUTER_RANGES: Readonly<Record<KvRouterNumber, (d: Diagnostics, path: string, value: unknown) => boolean>> = {
  overlapScoreWeight: (d, path, v) => checkNumber(d, path, v, { min: 0 }),
  temperature: (d, path, v) => checkNumber(d, path, v, { min: 0 }),
  blockSize: (d, path, v) => checkInteger(d, path, v, 1),
  activeDecodeBlocksThreshold: (d, path, v) => checkNumber(d, path, v, { min: 0, max: 1 }),
  activePrefillTokensThreshold: (d, path, v) => checkInteger(d, path, v, 1),
  ttlSeconds: (d, path, v) => checkNumber(d, path, v, { min: 0, exclusiveMin: true }),
  maxTreeSize: (d, path, v) => checkInteger(d, path, v, 1),
  pruneTargetRatio: (d, path, v) => checkNumber(d, path, v, { min: 0, max: 1, exclusiveMin: true }),
};

/**
 * Frontend settings, each a flag with environment variable alternatives, in every
 * spelling a supported release reads (0.8/0.9 first, then 1.x: reference section d,
 * reference-1x section 4a). What one release does not read is the upgrade rules' business.
 */
const SETTINGS = {
  mode: { flags: ['--router-mode'], env: ['DYN_ROUTER_MODE'], option: 'router' },
  blockSize: { flags: ['--kv-cache-block-size'], env: ['DYN_KV_CACHE_BLOCK_SIZE'], option: 'router.blockSize' },
  temperature: { flags: ['--router-temperature'], env: ['DYN_ROUTER_TEMPERATURE'], option: 'router.temperature' },
  overlapScoreWeight: {
    flags: ['--kv-overlap-score-weight', '--router-kv-overlap-score-weight', '--router-prefill-load-scale'],
    env: ['DYN_KV_OVERLAP_SCORE_WEIGHT', 'DYN_ROUTER_KV_OVERLAP_SCORE_WEIGHT', 'DYN_OVERLAP_SCORE_WEIGHT'],
    option: 'router.overlapScoreWeight',
  },
  ttlSeconds: { flags: ['--router-ttl', '--router-ttl-secs'], env: ['DYN_ROUTER_TTL', 'DYN_ROUTER_TTL_SECS'], option: 'router.ttlSeconds' },
  maxTreeSize: { flags: ['--router-max-tree-size'], env: ['DYN_ROUTER_MAX_TREE_SIZE'], option: 'router.maxTreeSize' },
  pruneTargetRatio: { flags: ['--router-prune-target-ratio'], env: ['DYN_ROUTER_PRUNE_TARGET_RATIO'], option: 'router.pruneTargetRatio' },
  activeDecodeBlocksThreshold: { flags: ['--active-decode-blocks-threshold'], env: ['DYN_ACTIVE_DECODE_BLOCKS_THRESHOLD'], option: 'router.activeDecodeBlocksThreshold' },
  activePrefillTokensThreshold: { flags: ['--active-prefill-tokens-threshold'], env: ['DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD'], option: 'router.activePrefillTokensThreshold' },
  replicaSync: { flags: ['--router-replica-sync'], env: ['DYN_ROUTER_REPLICA_SYNC'], option: 'router.replicaSync' },
  httpPort: { flags: ['--http-port'], env: ['DYN_HTTP_PORT'], option: 'httpPort' },
} as const;

/** The router's KV events switch: the flags that turn them off and the variables that can. */
const NO_KV_EVENTS_FLAGS = ['--no-kv-events', '--no-router-kv-events'];
const KV_EVENTS_ENV = ['DYN_KV_EVENTS', 'DYN_ROUTER_USE_KV_EVENTS', 'DYN_USE_KV_EVENTS'];

export type RouterSetting = keyof typeof SETTINGS;

/** A frontend setting from its flag, else from its environment variable. */
export function routerSetting(frontend: ServiceModel, key: RouterSetting): Located<string | true> | undefined {
  const s = SETTINGS[key];
  const f = flagValue(frontend.launch, ...s.flags);
  if (f) return { value: f.value, field: argField(f.name), option: s.option };
  for (const name of s.env) {
    const e = frontend.env.get(name);
    // set through the environment: the finding points at the variable
    if (e && typeof e.env.value === 'string') return { value: e.env.value, field: e.place.field, option: e.place.option };
  }
  return undefined;
}

/** Value ranges of the frontend's numeric settings: the router's are the options' own (`KV_ROUTER_RANGES`). */
const RANGES: Partial<Record<RouterSetting, (d: Diagnostics, path: string, value: unknown) => boolean>> = {
  ...KV_ROUTER_RANGES,
  httpPort: checkPort,
};

/** Router modes; guide 3 spells round-robin `round_robin` in `DYN_ROUTER_MODE`. */
const MODES = ['round-robin', 'round_robin', 'random', 'kv'];

/** Whether a worker publishes KV cache events, as its engine's flags and its release's defaults say; undefined if unknown. */
function publishesKvEvents(w: ServiceModel): boolean | undefined {
  if (!w.launches) return undefined;
  const config = w.launch.flags.get('--kv-events-config');
  const parsed = (): { enable_kv_cache_events?: unknown } | undefined => {
    try {
      return JSON.parse(String(config)) as { enable_kv_cache_events?: unknown };
    } catch {
      return undefined;
    }
  };
  switch (w.engine) {
    case 'vllm':
      // 1.x: only a config that enables them (vLLM's own default is off); 0.8/0.9: on unless a config turns them off
      if (w.release?.vllm.kvEvents === 'opt-in') return config !== undefined && (parsed() === undefined || parsed()!.enable_kv_cache_events === true);
      return config === undefined || parsed()?.enable_kv_cache_events !== false;
    case 'sglang':
      return config !== undefined && parsed()?.enable_kv_cache_events !== false;
    case 'trtllm':
      // 1.x still maps the 0.x flag to its own
      return w.launch.flags.has(w.release?.trtllmKvEventsFlag ?? '--publish-events-and-metrics') || w.launch.flags.has('--publish-events-and-metrics');
    default:
      return undefined;
  }
}

/** What a worker that publishes no events needs, in its release's words. */
function kvEventsFix(w: ServiceModel): { flag: string; hint: string } {
  if (w.engine === 'trtllm') {
    const flag = w.release?.trtllmKvEventsFlag ?? '--publish-events-and-metrics';
    return { flag, hint: `Add ${flag}` };
  }
  if (w.engine === 'vllm' && w.release?.vllm.kvEvents === 'opt-in') {
    return { flag: '--kv-events-config', hint: `Dynamo ${w.release.line}.x publishes vLLM's events only when asked: add --kv-events-config '${JSON.stringify(w.release.vllm.kvEventsConfig)}'` };
  }
  return { flag: '--kv-events-config', hint: 'Add --kv-events-config' };
}

/** A KV router that expects events needs them from the workers it routes prefill to. */
function kvEventRules(g: GraphModel, f: Findings, frontend: ServiceModel): void {
  const off = (name: string) => ['false', '0'].includes(String(frontend.env.get(name)?.env.value).toLowerCase());
  const eventsOff = NO_KV_EVENTS_FLAGS.some((flag) => frontend.launch.flags.has(flag)) || KV_EVENTS_ENV.some(off);
  if (routerSetting(frontend, 'mode')?.value !== 'kv' || eventsOff) return;
  const noEvents = frontend.release?.router.flags.noKvEvents ?? '--no-kv-events';
  for (const worker of g.services.filter((s) => s.kind === 'worker' && (s.role === 'prefill' || s.role === 'aggregated'))) {
    if (publishesKvEvents(worker) !== false) continue;
    const fix = kvEventsFix(worker);
    f.report(
      'kv-events-missing',
      worker,
      { field: argField(fix.flag), option: '' },
      `is missing: the KV router waits for KV cache events this worker never publishes, so it routes on load alone. ${fix.hint}, or run the router without events (${noEvents}, Router.kv({ kvEvents: false }))`,
    );
  }
}

/** The frontend's router: parameters in range, replicas that agree, the port the operator expects. */
export function routerRules(g: GraphModel, f: Findings): void {
  for (const s of g.services.filter((x) => x.kind === 'frontend')) {
    for (const [key, check] of Object.entries(RANGES) as [RouterSetting, (d: Diagnostics, path: string, value: unknown) => boolean][]) {
      const v = routerSetting(s, key);
      if (v) f.checkNumeric(s, v, (d, path, n) => check(d, path, n));
    }
    const mode = routerSetting(s, 'mode');
    if (mode && (typeof mode.value !== 'string' || !MODES.includes(mode.value))) {
      f.report('value-range', s, mode, `must be one of ${MODES.join(', ')}, got ${mode.value === true ? 'no value' : JSON.stringify(mode.value)}`);
    }
    const replicas = typeof s.spec.replicas === 'number' ? s.spec.replicas : 1;
    if (mode?.value === 'kv' && replicas > 1 && !routerSetting(s, 'replicaSync')) {
      f.report(
        'router-replica-sync',
        s,
        { field: argField('--router-replica-sync'), option: 'router.replicaSync' },
        `is not set, and ${replicas} frontend replicas each keep their own view of active blocks; add --router-replica-sync (Router.kv({ replicaSync: true })) so their routing decisions agree (guide 3)`,
      );
    }
    kvEventRules(g, f, s);
    const port = routerSetting(s, 'httpPort');
    if (port && Number(port.value) !== FRONTEND_HTTP_PORT && Number.isInteger(Number(port.value))) {
      f.report('frontend-port', s, port, `is ${port.value}: the Dynamo operator points the frontend Service and probes at port ${FRONTEND_HTTP_PORT}, so they need matching patches`);
    }
  }
}
