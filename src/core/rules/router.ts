import { checkInteger, checkNumber, checkPort } from '../checks';
import { FRONTEND_HTTP_PORT } from '../frontend';
import { Findings } from './findings';
import { argField, GraphModel, Located, ServiceModel } from './graph-model';
import { flagValue } from './launch';

/** Frontend settings, each a flag with an environment variable alternative (reference section d). */
const SETTINGS = {
  mode: { flags: ['--router-mode'], env: 'DYN_ROUTER_MODE', option: 'router' },
  blockSize: { flags: ['--kv-cache-block-size'], env: 'DYN_KV_CACHE_BLOCK_SIZE', option: 'router.blockSize' },
  temperature: { flags: ['--router-temperature'], env: 'DYN_ROUTER_TEMPERATURE', option: 'router.temperature' },
  overlapScoreWeight: { flags: ['--kv-overlap-score-weight'], env: 'DYN_KV_OVERLAP_SCORE_WEIGHT', option: 'router.overlapScoreWeight' },
  ttlSeconds: { flags: ['--router-ttl'], env: 'DYN_ROUTER_TTL', option: 'router.ttlSeconds' },
  maxTreeSize: { flags: ['--router-max-tree-size'], env: 'DYN_ROUTER_MAX_TREE_SIZE', option: 'router.maxTreeSize' },
  pruneTargetRatio: { flags: ['--router-prune-target-ratio'], env: 'DYN_ROUTER_PRUNE_TARGET_RATIO', option: 'router.pruneTargetRatio' },
  activeDecodeBlocksThreshold: { flags: ['--active-decode-blocks-threshold'], env: 'DYN_ACTIVE_DECODE_BLOCKS_THRESHOLD', option: 'router.activeDecodeBlocksThreshold' },
  activePrefillTokensThreshold: { flags: ['--active-prefill-tokens-threshold'], env: 'DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD', option: 'router.activePrefillTokensThreshold' },
  replicaSync: { flags: ['--router-replica-sync'], env: undefined, option: 'router.replicaSync' },
  httpPort: { flags: ['--http-port'], env: 'DYN_HTTP_PORT', option: 'httpPort' },
} as const;

export type RouterSetting = keyof typeof SETTINGS;

/** A frontend setting from its flag, else from its environment variable. */
export function routerSetting(frontend: ServiceModel, key: RouterSetting): Located<string | true> | undefined {
  const s = SETTINGS[key];
  const f = flagValue(frontend.launch, ...s.flags);
  if (f) return { value: f.value, field: argField(f.name), option: s.option };
  const e = s.env ? frontend.env.get(s.env) : undefined;
  // set through the environment: the finding points at the variable
  if (e && typeof e.env.value === 'string') return { value: e.env.value, field: e.place.field, option: e.place.option };
  return undefined;
}

type RangeCheck = (f: Findings, s: ServiceModel, v: Located<string | true>) => void;

const number = (range: { min?: number; max?: number; exclusiveMin?: boolean }): RangeCheck => (f, s, v) =>
  f.checkNumeric(s, v, (d, path, n) => checkNumber(d, path, n, range));
const integer = (min: number): RangeCheck => (f, s, v) => f.checkNumeric(s, v, (d, path, n) => checkInteger(d, path, n, min));

/** Value ranges of the router's parameters (guide 3's tables). */
const RANGES: Partial<Record<RouterSetting, RangeCheck>> = {
  blockSize: integer(1),
  temperature: number({ min: 0 }),
  overlapScoreWeight: number({ min: 0 }),
  ttlSeconds: number({ min: 0, exclusiveMin: true }),
  maxTreeSize: integer(1),
  pruneTargetRatio: number({ min: 0, max: 1, exclusiveMin: true }),
  activeDecodeBlocksThreshold: number({ min: 0, max: 1 }),
  activePrefillTokensThreshold: integer(1),
  httpPort: (f, s, v) => f.checkNumeric(s, v, (d, path, n) => checkPort(d, path, n)),
};

/** Router modes; guide 3 spells round-robin `round_robin` in `DYN_ROUTER_MODE`. */
const MODES = ['round-robin', 'round_robin', 'random', 'kv'];

/** Whether a worker publishes KV cache events, as its engine's flags and defaults say; undefined if unknown. */
function publishesKvEvents(w: ServiceModel): boolean | undefined {
  if (!w.launches) return undefined;
  const config = w.launch.flags.get('--kv-events-config');
  const enabled = () => {
    try {
      return (JSON.parse(String(config)) as { enable_kv_cache_events?: unknown }).enable_kv_cache_events !== false;
    } catch {
      return true;
    }
  };
  switch (w.engine) {
    // Dynamo 0.8/0.9 turn vLLM's events on unless a config turns them off
    case 'vllm':
      return config === undefined || enabled();
    case 'sglang':
      return config !== undefined && enabled();
    case 'trtllm':
      return w.launch.flags.has('--publish-events-and-metrics');
    default:
      return undefined;
  }
}

/** A KV router that expects events needs them from the workers it routes prefill to. */
function kvEventRules(g: GraphModel, f: Findings, frontend: ServiceModel): void {
  const eventsOff = frontend.launch.flags.has('--no-kv-events') || ['false', '0'].includes(String(frontend.env.get('DYN_KV_EVENTS')?.env.value).toLowerCase());
  if (routerSetting(frontend, 'mode')?.value !== 'kv' || eventsOff) return;
  for (const worker of g.services.filter((s) => s.kind === 'worker' && (s.role === 'prefill' || s.role === 'aggregated'))) {
    if (publishesKvEvents(worker) !== false) continue;
    const flag = worker.engine === 'trtllm' ? '--publish-events-and-metrics' : '--kv-events-config';
    f.report(
      'kv-events-missing',
      worker,
      { field: argField(flag), option: '' },
      `is missing: the KV router waits for KV cache events this worker never publishes, so it routes on load alone. Add ${flag}, or run the router without events (--no-kv-events, Router.kv({ kvEvents: false }))`,
    );
  }
}

/** The frontend's router: parameters in range, replicas that agree, the port the operator expects. */
export function routerRules(g: GraphModel, f: Findings): void {
  for (const s of g.services.filter((x) => x.kind === 'frontend')) {
    for (const [key, check] of Object.entries(RANGES) as [RouterSetting, RangeCheck][]) {
      const v = routerSetting(s, key);
      if (v) check(f, s, v);
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
