import { isPlainObject } from '../base/checks';
import { DynamoRelease } from '../releases/versions';
import { Findings } from './findings';
import { argField, GraphModel, isDisaggregated, ServiceModel } from '../model/graph-model';

/**
 * What a Dynamo release no longer takes from a manifest written for an earlier one:
 * the breaking-change ledger of reference-1x.md section 6, as data. A manifest is
 * checked against the release it runs (its images', or the one `lint --dynamo-version`
 * names), so an upgrade shows every flag, variable and field that breaks before it
 * reaches the cluster. The conformance suite runs each flag's `sample` through the
 * parsers of every release line the entry applies to: removed flags must be refused,
 * deprecated ones still accepted.
 */
export interface LedgerEntry {
  /** The release line the change landed in. */
  readonly since: string;
  /** The Python modules whose command lines it concerns. */
  readonly modules: readonly string[];
  /** A flag (or, ending in `-`, every flag starting with it); an environment variable; or the module itself. */
  readonly flag?: string;
  readonly env?: string;
  readonly module?: true;
  /**
   * `removed`: the release refuses it (or, for a variable, no longer reads it: its setting is lost);
   * `deprecated`: still accepted, going away or ignored.
   */
  readonly change: 'removed' | 'deprecated';
  /** What to use instead, for the release the manifest runs. */
  readonly instead: string | ((release: DynamoRelease) => string);
  /** A command line fragment that exercises the flag (the conformance suite's controls). */
  readonly sample?: readonly string[];
}

const FRONTEND = ['dynamo.frontend'];
const ENGINES = ['dynamo.vllm', 'dynamo.sglang', 'dynamo.trtllm'];
const VLLM = ['dynamo.vllm'];
const PLANNER_SLA = ['planner_sla', 'dynamo.planner.planner_sla'];

export const UPGRADE_LEDGER: readonly LedgerEntry[] = [
  // frontend and KV router (1.0.0)
  { since: '1.0', modules: FRONTEND, flag: '--router-ttl', change: 'removed', instead: '--router-ttl-secs', sample: ['--router-ttl', '60'] },
  { since: '1.0', modules: FRONTEND, flag: '--router-max-tree-size', change: 'removed', instead: 'nothing: the 1.x router has no tree size setting', sample: ['--router-max-tree-size', '1024'] },
  { since: '1.0', modules: FRONTEND, flag: '--router-prune-target-ratio', change: 'removed', instead: 'nothing: the 1.x router has no pruning setting', sample: ['--router-prune-target-ratio', '0.8'] },
  { since: '1.0', modules: FRONTEND, flag: '--router-snapshot-threshold', change: 'removed', instead: 'nothing: the 1.x router has no snapshot setting', sample: ['--router-snapshot-threshold', '1000000'] },
  { since: '1.0', modules: FRONTEND, flag: '--router-reset-states', change: 'removed', instead: 'nothing: the 1.x router has no such setting', sample: ['--router-reset-states'] },
  { since: '1.0', modules: FRONTEND, flag: '--custom-backend-metrics-endpoint', change: 'removed', instead: 'nothing: 1.x frontends do not poll backend metrics', sample: ['--custom-backend-metrics-endpoint', 'nim.backend.runtime_stats'] },
  { since: '1.0', modules: FRONTEND, flag: '--custom-backend-metrics-polling-interval', change: 'removed', instead: 'nothing: 1.x frontends do not poll backend metrics', sample: ['--custom-backend-metrics-polling-interval', '5'] },
  {
    since: '1.0',
    modules: FRONTEND,
    flag: '--kv-overlap-score-weight',
    change: 'deprecated',
    instead: (r) => `${r.router.flags.overlapScoreWeight}${r.router.deprecated.overlapScoreWeight ? ` (itself deprecated: ${r.router.deprecated.overlapScoreWeight})` : ''}`,
    sample: ['--kv-overlap-score-weight', '1.5'],
  },
  { since: '1.0', modules: FRONTEND, flag: '--no-kv-events', change: 'deprecated', instead: '--no-router-kv-events (the old spelling is still accepted)', sample: ['--no-kv-events'] },
  { since: '1.0', modules: FRONTEND, flag: '--enforce-disagg', change: 'deprecated', instead: 'nothing: it is accepted and ignored; 1.x enforces disaggregation by default', sample: ['--enforce-disagg'] },
  { since: '1.0', modules: FRONTEND, env: 'DYN_KV_EVENTS', change: 'removed', instead: 'DYN_ROUTER_USE_KV_EVENTS' },
  { since: '1.0', modules: FRONTEND, env: 'DYN_KV_OVERLAP_SCORE_WEIGHT', change: 'removed', instead: 'DYN_ROUTER_KV_OVERLAP_SCORE_WEIGHT' },
  { since: '1.0', modules: FRONTEND, env: 'DYN_ROUTER_TTL', change: 'removed', instead: 'DYN_ROUTER_TTL_SECS' },
  // every Dynamo process (1.0.0)
  {
    since: '1.0',
    modules: [...FRONTEND, ...ENGINES],
    flag: '--store-kv',
    change: 'removed',
    instead: '--discovery-backend (on Kubernetes the operator selects Kubernetes-native discovery)',
    sample: ['--store-kv', 'etcd'],
  },
  { since: '1.0', modules: [...FRONTEND, ...ENGINES], env: 'DYN_STORE_KV', change: 'removed', instead: 'DYN_DISCOVERY_BACKEND' },
  { since: '1.0', modules: [...FRONTEND, ...ENGINES], env: 'DYN_KV_STORE', change: 'removed', instead: 'DYN_DISCOVERY_BACKEND' },
  // workers
  { since: '1.0', modules: ENGINES, flag: '--migration-limit', change: 'removed', instead: '--migration-limit on the frontend', sample: ['--migration-limit', '3'] },
  { since: '1.0', modules: VLLM, flag: '--enable-local-indexer', change: 'removed', instead: 'nothing: 1.x workers have no such setting', sample: ['--enable-local-indexer', 'true'] },
  {
    since: '1.0',
    modules: ['dynamo.trtllm'],
    flag: '--publish-events-and-metrics',
    change: 'deprecated',
    instead: (r) => `${r.trtllmKvEventsFlag} (and --publish-metrics)`,
    sample: ['--publish-events-and-metrics'],
  },
  { since: '1.4', modules: VLLM, flag: '--is-prefill-worker', change: 'removed', instead: '--disaggregation-mode prefill', sample: ['--is-prefill-worker'] },
  { since: '1.4', modules: VLLM, flag: '--is-decode-worker', change: 'removed', instead: '--disaggregation-mode decode', sample: ['--is-decode-worker'] },
  {
    since: '1.4',
    modules: VLLM,
    flag: '--connector',
    change: 'removed',
    instead: '--kv-transfer-config \'{"kv_connector":"NixlConnector","kv_role":...}\' (the library renders it for each role)',
    sample: ['--connector', 'nixl'],
  },
  { since: '1.4', modules: VLLM, env: 'DYN_CONNECTOR', change: 'removed', instead: '--kv-transfer-config' },
  {
    since: '1.4',
    modules: ['dynamo.vllm', 'dynamo.sglang'],
    flag: '--multimodal-',
    change: 'removed',
    instead: '--enable-multimodal (with --disaggregation-mode encode or --dedicated-mm-encoder)',
    sample: ['--multimodal-processor'],
  },
  // planner (1.0.0)
  { since: '1.0', modules: PLANNER_SLA, module: true, change: 'removed', instead: 'python3 -m dynamo.planner --config <PlannerConfig> (the library\'s planner renders it)' },
];

const VERSION = /^(\d+)\.(\d+)/;

/** Whether release line `line` is `since` or later. */
export function lineAtLeast(line: string, since: string): boolean {
  const [a, b] = [VERSION.exec(line), VERSION.exec(since)];
  if (!a || !b) return false;
  return Number(a[1]) !== Number(b[1]) ? Number(a[1]) > Number(b[1]) : Number(a[2]) >= Number(b[2]);
}

/** The ledger entries that apply to a release, for the module a service runs. */
export function ledgerFor(release: DynamoRelease, module: string | undefined): LedgerEntry[] {
  return UPGRADE_LEDGER.filter((e) => lineAtLeast(release.line, e.since) && module !== undefined && e.modules.includes(module));
}

function report(f: Findings, s: ServiceModel | undefined, e: LedgerEntry, release: DynamoRelease, field: string, what: string): void {
  const instead = typeof e.instead === 'function' ? e.instead(release) : e.instead;
  if (e.change === 'removed') {
    f.report('unsupported-on-release', s, { field, option: '' }, `${what} is gone in Dynamo ${release.line}.x (since ${e.since}); use ${instead}`);
  } else {
    f.report('deprecated', s, { field, option: '' }, `${what} is deprecated in Dynamo ${release.line}.x (since ${e.since}); use ${instead}`);
  }
}

/** Flags, variables, modules and fields a manifest uses that its release no longer takes. */
export function upgradeRules(g: GraphModel, f: Findings): void {
  for (const s of g.services) {
    const release = s.release;
    if (!release) continue;
    for (const e of ledgerFor(release, s.launch.module)) {
      if (e.module) {
        report(f, s, e, release, 'extraPodSpec.mainContainer.command', `python3 -m ${s.launch.module}`);
      } else if (e.flag?.endsWith('-')) {
        for (const flag of [...s.launch.flags.keys()].filter((x) => x.startsWith(e.flag!))) report(f, s, e, release, argField(flag), flag);
      } else if (e.flag !== undefined && s.launch.flags.has(e.flag)) {
        report(f, s, e, release, argField(e.flag), e.flag);
      } else if (e.env !== undefined && s.env.has(e.env)) {
        report(f, s, e, release, s.env.get(e.env)!.place.field, `${e.env} (read by Dynamo 0.x)`);
      }
    }
  }
  graphFieldRules(g, f);
  kvTransferRules(g, f);
  updateStrategyRules(g, f);
}

/**
 * Dynamo 1.6 reads Grove's update strategy from an annotation, and its sources disagree on
 * the default (reference-1x.md section 6, item 11): the release notes say a graph with prefill
 * and decode workers now rolls out Coherent, the API docs RollingRecreate unless the annotation
 * says otherwise. The library always writes it. A graph checked for an upgrade to such a
 * release never chose, whatever its workers; on its own release, the disagreement is about
 * disaggregated graphs.
 */
function updateStrategyRules(g: GraphModel, f: Findings): void {
  const release = g.release;
  const key = release?.updateStrategyAnnotation;
  if (!release || !key) return;
  if (g.annotations.has(key)) return;
  const upgrade = g.releaseGiven && g.imagesRelease !== undefined && g.imagesRelease.line !== release.line;
  const disaggregated = isDisaggregated(g);
  if (!upgrade && !disaggregated) return;
  const why = upgrade ? `the graph's images are Dynamo ${g.imagesRelease!.line}, which read none` : 'the graph has prefill and decode workers';
  f.report(
    'update-strategy-unset',
    undefined,
    { field: `metadata.annotations[${key}]`, option: 'graph:updateStrategy' },
    `is not set, and ${why}: Dynamo ${release.line}.x picks Grove's update strategy from it, and its release notes (Coherent for a graph with prefill and decode workers) and API docs (RollingRecreate) disagree on the default, so how a change rolls out is up to the operator version. Set it to RollingRecreate, Coherent (Grove alpha.14 or later) or OnDelete, as the library does`,
  );
}

/**
 * 1.x vLLM workers take their KV connector from --kv-transfer-config alone: a prefill
 * worker without one refuses to start (dynamo/vllm/args.py). Decode workers are not
 * held to it by Dynamo (its own decode templates pass none); the library gives them
 * the consumer role its profiler gives them.
 */
function kvTransferRules(g: GraphModel, f: Findings): void {
  for (const s of g.services.filter((x) => x.kind === 'worker' && x.engine === 'vllm' && x.role === 'prefill' && x.launches)) {
    const roles = s.release?.vllm.kvTransferRoles;
    if (!roles || s.launch.flags.has('--kv-transfer-config')) continue;
    const role = roles.prefill;
    f.report(
      'required',
      s,
      { field: argField('--kv-transfer-config'), option: '' },
      `is required for a ${s.role} worker on Dynamo ${s.release!.line}.x, e.g. --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"${role}"}'`,
    );
  }
}

/** The 0.x API's fields and semantics a 1.x operator no longer honours (reference-1x.md section 6, items 1 and 3). */
function graphFieldRules(g: GraphModel, f: Findings): void {
  const release = g.release;
  if (!release || release.apiVersion !== 'nvidia.com/v1beta1' || g.apiVersion !== 'nvidia.com/v1alpha1') return;
  f.report(
    'deprecated',
    undefined,
    { field: 'apiVersion', option: 'graph:dynamoVersion' },
    `is nvidia.com/v1alpha1, deprecated in Dynamo ${release.line}.x: the operator converts it, keeping fields without a v1beta1 home (pvcs, component labels and annotations) as annotations; write nvidia.com/v1beta1`,
  );
  const pvcs = Array.isArray(g.spec.pvcs) ? g.spec.pvcs.filter(isPlainObject) : [];
  if (lineAtLeast(release.line, '1.5')) {
    for (const pvc of pvcs.filter((p) => p.create === true)) {
      f.report(
        'unsupported-on-release',
        undefined,
        { field: `spec.pvcs[${String(pvc.name)}].create`, option: 'graph:modelCache' },
        `is true, but Dynamo ${release.line}.x stores graphs as v1beta1 and no longer creates claims listed in spec.pvcs: create the PersistentVolumeClaim yourself (ModelCache)`,
      );
    }
  }
  for (const s of g.services) {
    const adapter = s.spec.scalingAdapter;
    if (isPlainObject(adapter) && 'disable' in adapter) {
      f.report(
        'unsupported-on-release',
        s,
        { field: 'scalingAdapter.disable', option: '' },
        `is the 0.8 spelling; Dynamo ${release.line}.x has scalingAdapter.enabled (v1alpha1, off by default) or a scalingAdapter: {} marker (v1beta1)`,
      );
    }
  }
}
