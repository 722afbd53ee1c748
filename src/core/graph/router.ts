import { KV_ROUTER_RANGES, KvRouterNumber } from '../rules/router';
import { checkBoolean, checkKnownKeys, join, optionKeys } from '../base/checks';
import { Diagnostics, show } from '../base/errors';
import { DynamoRelease } from '../releases/versions';

/** How the frontend picks a worker for each request. */
export type RouterMode = 'kv' | 'round-robin' | 'random';

/**
 * Parameters of the KV-aware router (guide 3). Each maps to a frontend flag of the release
 * (the flags below are 1.6.1's, the 1.x names; 0.8/0.9 names are given where they differ);
 * unset parameters keep Dynamo's defaults.
 */
export interface KvRouterOptions {
  /**
   * Weight of prefix-cache overlap in the cost `weight x prefill_blocks + decode_blocks`.
   * Higher favours TTFT (cache hits), lower favours load spread. 1.x: `--router-prefill-load-scale`,
   * which 1.6 deprecates (a warning; its replacement is `prefill_load_scale` in
   * `--router-policy-config`); 0.8/0.9: `--kv-overlap-score-weight`.
   * @default - Dynamo's default (1.0)
   */
  readonly overlapScoreWeight?: number;
  /**
   * Softmax temperature of worker selection; 0 always picks the cheapest worker. `--router-temperature`
   * on every release; 1.6 deprecates it (a warning; its replacement is `router_temperature` in
   * `--router-policy-config`).
   * @default - Dynamo's default (0.0)
   */
  readonly temperature?: number;
  /**
   * Workers publish KV cache events to the router. When false the router predicts cache
   * state from its own decisions with a TTL (1.x `--no-router-kv-events`, 0.8/0.9
   * `--no-kv-events`), and workers do not publish.
   * @default true
   */
  readonly kvEvents?: boolean;
  /**
   * KV cache block size in tokens; must equal the workers' block size. `--kv-cache-block-size`.
   * @default - the workers' `blockSize` when they set one, otherwise learned from the workers
   */
  readonly blockSize?: number;
  /**
   * A worker whose KV cache block usage exceeds this fraction (0-1) is busy and skipped.
   * `--active-decode-blocks-threshold`.
   * @default - no threshold
   */
  readonly activeDecodeBlocksThreshold?: number;
  /**
   * A worker with more prefill tokens in flight than this is busy and skipped.
   * `--active-prefill-tokens-threshold`.
   * @default - no threshold
   */
  readonly activePrefillTokensThreshold?: number;
  /**
   * Synchronise active-block state between frontend replicas (use with more than one
   * frontend replica). `--router-replica-sync`.
   * @default false
   */
  readonly replicaSync?: boolean;
  /**
   * Without KV events only: seconds after which a predicted cached block expires. 1.x
   * `--router-ttl-secs`, 0.8/0.9 `--router-ttl`.
   * @default - Dynamo's default (120)
   */
  readonly ttlSeconds?: number;
  /**
   * Without KV events only: blocks in the prediction tree before pruning. 0.8/0.9 only
   * (`--router-max-tree-size`): the 1.x frontend has no such flag, and the option is an error there.
   * @default - Dynamo's default
   */
  readonly maxTreeSize?: number;
  /**
   * Without KV events only: fraction of `maxTreeSize` to prune down to. 0.8/0.9 only
   * (`--router-prune-target-ratio`): the 1.x frontend has no such flag, and the option is an error there.
   * @default - Dynamo's default (a ratio of 0.8)
   */
  readonly pruneTargetRatio?: number;
}

const KV_ROUTER_KEYS = optionKeys<KvRouterOptions>()(
  'overlapScoreWeight',
  'temperature',
  'kvEvents',
  'blockSize',
  'activeDecodeBlocksThreshold',
  'activePrefillTokensThreshold',
  'replicaSync',
  'ttlSeconds',
  'maxTreeSize',
  'pruneTargetRatio',
);

// every numeric router option has a range, and nothing else does
const RANGES_MATCH_OPTIONS: Readonly<Record<Exclude<keyof KvRouterOptions, 'kvEvents' | 'replicaSync'>, unknown>> & Readonly<Record<KvRouterNumber, unknown>> = KV_ROUTER_RANGES;
void RANGES_MATCH_OPTIONS;

/** The frontend's routing strategy. */
export class Router {
  /** KV-cache-aware routing (guide 3): requests go to the worker with the best cache overlap and load. */
  public static kv(options: KvRouterOptions = {}): Router {
    return new Router('kv', options ?? {});
  }

  /** Round-robin over workers (Dynamo's default). */
  public static roundRobin(): Router {
    return new Router('round-robin', {});
  }

  /** Uniformly random worker choice. */
  public static random(): Router {
    return new Router('random', {});
  }

  private constructor(
    /** The routing mode. */
    public readonly mode: RouterMode,
    /** KV router parameters (empty unless `mode` is `kv`). */
    public readonly options: KvRouterOptions,
  ) {}

  /** Whether workers must publish KV cache events for this router. */
  public get publishesKvEvents(): boolean {
    return this.mode === 'kv' && this.options.kvEvents !== false;
  }

  /** Checks the options, and that the frontend of `release` has a flag for each one set. @internal */
  public _validate(d: Diagnostics, path: string, release?: DynamoRelease): void {
    if (this.mode !== 'kv') return;
    const o = this.options;
    if (release) {
      const flags = release.router.flags as unknown as Record<string, string | undefined>;
      for (const key of KV_ROUTER_KEYS) {
        if ((o as Record<string, unknown>)[key] === undefined || key === 'kvEvents') continue;
        if (flags[key] === undefined) {
          d.error(join(path, key), `has no flag in the Dynamo ${release.line}.x frontend (it was removed in 1.0); leave it out`, 'unsupported-on-release');
        }
        const replacement = (release.router.deprecated as Record<string, string | undefined>)[key];
        if (replacement !== undefined) {
          d.warn(join(path, key), `renders ${flags[key]}, which Dynamo ${release.line}.x deprecates for removal in the next release; its replacement is ${replacement}`, 'deprecated');
        }
      }
    }
    checkKnownKeys(d, path, o, KV_ROUTER_KEYS);
    for (const [key, check] of Object.entries(KV_ROUTER_RANGES) as [KvRouterNumber, (d: Diagnostics, path: string, value: unknown) => boolean][]) {
      check(d, join(path, key), o[key]);
    }
    checkBoolean(d, join(path, 'kvEvents'), o.kvEvents);
    checkBoolean(d, join(path, 'replicaSync'), o.replicaSync);
    if (o.kvEvents !== false) {
      for (const key of ['ttlSeconds', 'maxTreeSize', 'pruneTargetRatio'] as const) {
        if (o[key] !== undefined) {
          d.error(
            join(path, key),
            `only applies when the router predicts cache state without KV events; got ${show(o[key])} with kvEvents on. Set kvEvents: false, or remove ${key}`,
            'option-conflict',
          );
        }
      }
    }
  }

  /**
   * Frontend flags for this router. `blockSize` is the block size to announce
   * when the router options do not set one.
   * @internal
   */
  public _frontendArgs(blockSize: number | undefined, release: DynamoRelease): string[] {
    const f = release.router.flags;
    if (this.mode === 'round-robin') return [];
    if (this.mode === 'random') return [f.mode, 'random'];
    const o = this.options;
    const args = [f.mode, 'kv'];
    const flag = (name: string | undefined, value: number | undefined) => {
      // (an option the release has no flag for is refused by _validate)
      if (name !== undefined && value !== undefined) args.push(name, String(value));
    };
    flag(f.overlapScoreWeight, o.overlapScoreWeight);
    flag(f.temperature, o.temperature);
    flag(f.blockSize, o.blockSize ?? blockSize);
    if (o.kvEvents === false) args.push(f.noKvEvents);
    flag(f.ttlSeconds, o.ttlSeconds);
    flag(f.maxTreeSize, o.maxTreeSize);
    flag(f.pruneTargetRatio, o.pruneTargetRatio);
    flag(f.activeDecodeBlocksThreshold, o.activeDecodeBlocksThreshold);
    flag(f.activePrefillTokensThreshold, o.activePrefillTokensThreshold);
    if (o.replicaSync) args.push(f.replicaSync);
    return args;
  }
}
