import type { WorkerRole } from '../engines/backend';
import {
  checkDnsLabel,
  checkDnsSubdomain,
  checkInteger,
  checkKnownKeys,
  checkObject,
  checkOneOf,
  checkQuantity,
  checkString,
  checkStringArray,
  checkStringMap,
  INT32_MAX,
  isPlainObject,
  join,
} from '../base/checks';
import { GraphContext, PodSecurity } from './context';
import { EnvMap, envMapToList, mergeEnv, PodInfoField, podInfoEnv } from '../base/env';
import { Diagnostics, show } from '../base/errors';
import { CompilationCache, ComputeResources, EnvVar, GraphTopologyConstraint, KubeObject, PodPlacementOptions } from '../base/k8s';
import { modelCacheEnv } from './model-cache';
import type { DgdService } from '../model/dgd';
import { prune } from '../base/util';
import type { DynamoRelease } from '../releases/versions';

export type { DgdService } from '../model/dgd';

/** A rendered component: its service entry and any objects it needs beside the graph. */
export interface RenderedService {
  readonly name: string;
  readonly service: DgdService;
}

const RESOURCE_KEYS = ['cpu', 'memory'];
const RANGE_KEYS = ['request', 'limit'];

export function checkResources(d: Diagnostics, path: string, r: ComputeResources | undefined): void {
  if (!checkObject(d, path, r, 'an object { cpu?: { request?, limit? }, memory?: { request?, limit? } }')) return;
  checkKnownKeys(d, path, r, RESOURCE_KEYS);
  for (const key of ['cpu', 'memory'] as const) {
    const v = r[key] as unknown;
    if (v === undefined) continue;
    if (!isPlainObject(v)) {
      d.error(join(path, key), `must be { request?, limit? }, e.g. { request: ${show(v)}, limit: ${show(v)} }, got ${show(v)}`, 'value-type');
      continue;
    }
    checkKnownKeys(d, join(path, key), v, RANGE_KEYS);
    checkQuantity(d, join(path, `${key}.request`), v.request);
    checkQuantity(d, join(path, `${key}.limit`), v.limit);
  }
}

/** CPU and memory requests and limits in the DGD's `resources` shape. */
export function renderResources(r: ComputeResources | undefined): { requests: Record<string, string>; limits: Record<string, string> } {
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  for (const key of ['cpu', 'memory'] as const) {
    const v = isPlainObject(r) && isPlainObject(r[key]) ? (r[key] as { request?: string; limit?: string }) : undefined;
    if (v?.request !== undefined) requests[key] = v.request;
    if (v?.limit !== undefined) limits[key] = v.limit;
  }
  return { requests, limits };
}

/**
 * What every worker service says of itself: its Secret, type, role and replica count. A planner
 * owns the replica counts of prefill and decode (rendering one would reset its scaling on every
 * apply), through the scaling adapter the operator creates (1.x opts in per component).
 */
export function workerIdentity(ctx: GraphContext, role: WorkerRole, replicas: number | undefined): Pick<DgdService, 'envFromSecret' | 'componentType' | 'subComponentType' | 'replicas' | 'scalingAdapter'> {
  return {
    envFromSecret: ctx.hfTokenSecret,
    componentType: 'worker' as const,
    subComponentType: role === 'aggregated' ? undefined : role,
    replicas: replicas ?? (ctx.planned ? undefined : 1),
    scalingAdapter: ctx.planned && role !== 'aggregated' ? true : undefined,
  };
}

/**
 * Environment common to every service: the model cache's `HF_HOME`, then the
 * Pod fields, then what the component adds, then the user's own variables.
 */
export function serviceEnv(
  ctx: GraphContext,
  podInfo: readonly PodInfoField[] | undefined,
  component: EnvVar[],
  user: EnvMap | undefined,
  mountsModelCache = true,
): EnvVar[] {
  return mergeEnv(
    ctx.modelCache && mountsModelCache ? modelCacheEnv(ctx.modelCache) : [],
    podInfoEnv(podInfo ?? ctx.podInfoEnv),
    component,
    envMapToList(user),
  );
}

export function modelCacheVolumeMounts(ctx: GraphContext): { name: string; mountPoint: string }[] | undefined {
  return ctx.modelCache ? [{ name: ctx.modelCache.claimName, mountPoint: ctx.modelCache.mountPath }] : undefined;
}

export function imagePullSecrets(ctx: GraphContext): { name: string }[] | undefined {
  return ctx.imagePullSecrets.length > 0 ? ctx.imagePullSecrets.map((name) => ({ name })) : undefined;
}

/**
 * How much of the node a graph's pods give up (`podSecurity`):
 * - `hardened`: no privilege escalation, every capability dropped (an RDMA/EFA worker keeps
 *   IPC_LOCK), the runtime's default seccomp profile. The pods run as their image's user.
 * - `restricted`: `hardened`, and the pods must run as a non-root user: UID 1000, the `dynamo`
 *   user of Dynamo's images. What Pod Security "restricted" checks; it refuses IPC_LOCK.
 * - `none`: no security context; the operator's defaults apply.
 */
export type { PodSecurity } from './context';
export const POD_SECURITY_LEVELS: readonly PodSecurity[] = ['hardened', 'restricted', 'none'];
/** The level a graph renders with when none is chosen. */
export const DEFAULT_POD_SECURITY: PodSecurity = 'hardened';

/**
 * The user Dynamo's images run as: `USER dynamo`, created with UID 1000 and group 0. The image
 * names it rather than numbers it, so the kubelet cannot check `runAsNonRoot` against the image
 * alone (it refuses to start the container): `restricted` gives the number with it.
 */
export const DYNAMO_IMAGE_UID = 1000;

/**
 * The operator's default pod `fsGroup` (its `DefaultSecurityContextFSGroup`), which makes a
 * model cache claim writable by the images' user. The operator adds it only to a pod without a
 * security context of its own, so a pod given one must carry it too.
 */
export const OPERATOR_FS_GROUP = 1000;

/** The capabilities a container keeps: the ones it adds (IPC_LOCK for RDMA/EFA), every other one dropped. */
function containerSecurityContext(own: unknown): Record<string, unknown> {
  const { allowPrivilegeEscalation: _escalation, capabilities, ...rest } = isPlainObject(own) ? own : {};
  void _escalation;
  const add = isPlainObject(capabilities) ? capabilities.add : undefined;
  return prune({ allowPrivilegeEscalation: false, capabilities: { add, drop: ['ALL'] }, ...rest });
}

/** `o` with `key` set: in place when present, else right after `after` (else last). */
function withKey(o: Record<string, unknown>, key: string, value: unknown, after: string): Record<string, unknown> {
  if (key in o || !(after in o)) return { ...o, [key]: value };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    out[k] = v;
    if (k === after) out[key] = value;
  }
  return out;
}

/**
 * A rendered service with the security context of `level`, applied to every component in one
 * place after it renders. Pod-wide settings go on the pod (seccomp, the user, the operator's
 * fsGroup), so that they also cover containers the operator adds; the rest on the main container.
 */
export function secureService(s: DgdService, level: PodSecurity): DgdService {
  if (level === 'none') return s;
  const { mainContainer, ...pod } = s.extraPodSpec ?? {};
  const main = withKey(mainContainer ?? {}, 'securityContext', containerSecurityContext(mainContainer?.securityContext), 'imagePullPolicy');
  const podSecurityContext = {
    fsGroup: OPERATOR_FS_GROUP,
    ...(level === 'restricted' ? { runAsNonRoot: true, runAsUser: DYNAMO_IMAGE_UID } : {}),
    seccompProfile: { type: 'RuntimeDefault' },
  };
  return { ...s, extraPodSpec: { ...pod, securityContext: podSecurityContext, mainContainer: main } };
}

/** The keys of {@link PodPlacementOptions}, which every component's options take. */
export const POD_PLACEMENT_KEYS = ['affinity', 'priorityClassName', 'topologySpreadConstraints', 'topologyConstraint'] as const;

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
const NODE_OPERATORS = [...SELECTOR_OPERATORS, 'Gt', 'Lt'] as const;
const INTEGER = /^-?\d+$/;

/** Each element of a list option: objects are checked by `each`, anything else reported. */
function checkObjects(d: Diagnostics, path: string, value: unknown, what: string, each: (p: string, o: Record<string, unknown>) => void, nonEmpty = false): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    d.error(path, `must be a list of ${what}, got ${show(value)}`, 'value-type');
    return;
  }
  if (nonEmpty && value.length === 0) d.error(path, `must list at least one ${what.replace(/s$/, '')}`, 'value-range');
  value.forEach((v, i) => {
    if (isPlainObject(v)) each(join(path, i), v);
    else d.error(join(path, i), `must be an object (one of the ${what}), got ${show(v)}`, 'value-type');
  });
}

function checkRequired(d: Diagnostics, path: string, value: unknown, what: string): boolean {
  if (value !== undefined) return true;
  d.error(path, `is required: ${what}`, 'required');
  return false;
}

/** A label or node selector requirement: the operator decides how many values it takes. */
function checkRequirement(d: Diagnostics, p: string, r: Record<string, unknown>, operators: readonly string[]): void {
  checkKnownKeys(d, p, r, ['key', 'operator', 'values']);
  checkString(d, join(p, 'key'), r.key, true);
  if (!checkRequired(d, join(p, 'operator'), r.operator, `one of ${operators.map((o) => JSON.stringify(o)).join(', ')}`)) return;
  if (!checkOneOf(d, join(p, 'operator'), r.operator, operators) || !checkStringArray(d, join(p, 'values'), r.values)) return;
  const values = (r.values ?? []) as string[];
  const op = r.operator as string;
  if ((op === 'In' || op === 'NotIn') && values.length === 0) {
    d.error(join(p, 'values'), `must list at least one value when operator is ${op}`, 'value-range');
  } else if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) {
    d.error(join(p, 'values'), `must be empty when operator is ${op}, got ${show(values)}`, 'option-conflict');
  } else if ((op === 'Gt' || op === 'Lt') && (values.length !== 1 || !INTEGER.test(values[0]))) {
    d.error(join(p, 'values'), `must be one integer (e.g. ["3"]) when operator is ${op}, got ${show(values)}`, 'value-range');
  }
}

function checkLabelSelector(d: Diagnostics, path: string, v: unknown): void {
  if (!checkObject(d, path, v, 'a label selector { matchLabels?, matchExpressions? }')) return;
  checkKnownKeys(d, path, v, ['matchLabels', 'matchExpressions']);
  checkStringMap(d, join(path, 'matchLabels'), v.matchLabels);
  checkObjects(d, join(path, 'matchExpressions'), v.matchExpressions, 'label selector requirements { key, operator, values? }', (p, r) => checkRequirement(d, p, r, SELECTOR_OPERATORS));
}

function checkNodeSelectorTerm(d: Diagnostics, path: string, v: unknown): void {
  if (!checkObject(d, path, v, 'a node selector term { matchExpressions?, matchFields? }')) return;
  checkKnownKeys(d, path, v, ['matchExpressions', 'matchFields']);
  for (const key of ['matchExpressions', 'matchFields']) {
    checkObjects(d, join(path, key), v[key], 'node selector requirements { key, operator, values? }', (p, r) => checkRequirement(d, p, r, NODE_OPERATORS));
  }
}

/** `weight` of a preferred scheduling term: 1 to 100, as the scheduler takes it. */
function checkWeight(d: Diagnostics, path: string, w: unknown): void {
  if (checkRequired(d, path, w, 'an integer from 1 to 100')) checkInteger(d, path, w, 1, undefined, { max: 100, why: 'the scheduler weighs preferred terms from 1 to 100' });
}

function checkPodAffinityTerm(d: Diagnostics, path: string, v: unknown): void {
  if (!checkObject(d, path, v, 'a pod affinity term { topologyKey, labelSelector?, ... }')) return;
  checkKnownKeys(d, path, v, ['labelSelector', 'namespaceSelector', 'namespaces', 'topologyKey', 'matchLabelKeys', 'mismatchLabelKeys']);
  if (v.labelSelector !== undefined) checkLabelSelector(d, join(path, 'labelSelector'), v.labelSelector);
  if (v.namespaceSelector !== undefined) checkLabelSelector(d, join(path, 'namespaceSelector'), v.namespaceSelector);
  checkStringArray(d, join(path, 'namespaces'), v.namespaces);
  checkString(d, join(path, 'topologyKey'), v.topologyKey, true);
  checkStringArray(d, join(path, 'matchLabelKeys'), v.matchLabelKeys);
  checkStringArray(d, join(path, 'mismatchLabelKeys'), v.mismatchLabelKeys);
}

const REQUIRED = 'requiredDuringSchedulingIgnoredDuringExecution';
const PREFERRED = 'preferredDuringSchedulingIgnoredDuringExecution';

function checkPodAffinity(d: Diagnostics, path: string, v: unknown): void {
  if (!checkObject(d, path, v, `an object { ${REQUIRED}?, ${PREFERRED}? }`)) return;
  checkKnownKeys(d, path, v, [REQUIRED, PREFERRED]);
  checkObjects(d, join(path, REQUIRED), v[REQUIRED], 'pod affinity terms { topologyKey, labelSelector?, ... }', (p, t) => checkPodAffinityTerm(d, p, t));
  checkObjects(d, join(path, PREFERRED), v[PREFERRED], 'weighted terms { weight, podAffinityTerm }', (p, t) => {
    checkKnownKeys(d, p, t, ['weight', 'podAffinityTerm']);
    checkWeight(d, join(p, 'weight'), t.weight);
    if (checkRequired(d, join(p, 'podAffinityTerm'), t.podAffinityTerm, 'the pod affinity term { topologyKey, labelSelector? }')) checkPodAffinityTerm(d, join(p, 'podAffinityTerm'), t.podAffinityTerm);
  });
}

/** An `affinity` as the Kubernetes API takes it, every problem named at its path. */
export function checkAffinity(d: Diagnostics, path: string, v: unknown): void {
  if (!checkObject(d, path, v, 'an affinity { nodeAffinity?, podAffinity?, podAntiAffinity? }')) return;
  checkKnownKeys(d, path, v, ['nodeAffinity', 'podAffinity', 'podAntiAffinity']);
  const node = v.nodeAffinity;
  if (checkObject(d, join(path, 'nodeAffinity'), node, `an object { ${REQUIRED}?, ${PREFERRED}? }`)) {
    const p = join(path, 'nodeAffinity');
    checkKnownKeys(d, p, node, [REQUIRED, PREFERRED]);
    const required = node[REQUIRED];
    if (checkObject(d, join(p, REQUIRED), required, 'a node selector { nodeSelectorTerms }')) {
      checkKnownKeys(d, join(p, REQUIRED), required, ['nodeSelectorTerms']);
      const terms = join(join(p, REQUIRED), 'nodeSelectorTerms');
      if (checkRequired(d, terms, required.nodeSelectorTerms, 'a list of node selector terms (a node matching any term qualifies)')) {
        checkObjects(d, terms, required.nodeSelectorTerms, 'node selector terms', (tp, t) => checkNodeSelectorTerm(d, tp, t), true);
      }
    }
    checkObjects(d, join(p, PREFERRED), node[PREFERRED], 'preferred terms { weight, preference }', (tp, t) => {
      checkKnownKeys(d, tp, t, ['weight', 'preference']);
      checkWeight(d, join(tp, 'weight'), t.weight);
      if (checkRequired(d, join(tp, 'preference'), t.preference, 'a node selector term { matchExpressions?, matchFields? }')) checkNodeSelectorTerm(d, join(tp, 'preference'), t.preference);
    });
  }
  checkPodAffinity(d, join(path, 'podAffinity'), v.podAffinity);
  checkPodAffinity(d, join(path, 'podAntiAffinity'), v.podAntiAffinity);
}

/** `topologySpreadConstraints` as the Kubernetes API takes them. */
export function checkTopologySpreadConstraints(d: Diagnostics, path: string, v: unknown): void {
  checkObjects(d, path, v, 'topology spread constraints { maxSkew, topologyKey, whenUnsatisfiable, ... }', (p, c) => {
    checkKnownKeys(d, p, c, ['maxSkew', 'topologyKey', 'whenUnsatisfiable', 'labelSelector', 'minDomains', 'nodeAffinityPolicy', 'nodeTaintsPolicy', 'matchLabelKeys']);
    if (checkRequired(d, join(p, 'maxSkew'), c.maxSkew, 'an integer >= 1, e.g. 1')) checkInteger(d, join(p, 'maxSkew'), c.maxSkew, 1, undefined, { max: INT32_MAX });
    checkString(d, join(p, 'topologyKey'), c.topologyKey, true);
    if (checkRequired(d, join(p, 'whenUnsatisfiable'), c.whenUnsatisfiable, '"DoNotSchedule" or "ScheduleAnyway"')) checkOneOf(d, join(p, 'whenUnsatisfiable'), c.whenUnsatisfiable, ['DoNotSchedule', 'ScheduleAnyway']);
    if (c.labelSelector !== undefined) checkLabelSelector(d, join(p, 'labelSelector'), c.labelSelector);
    checkInteger(d, join(p, 'minDomains'), c.minDomains, 1, undefined, { max: INT32_MAX });
    if (c.minDomains !== undefined && c.whenUnsatisfiable === 'ScheduleAnyway') {
      d.error(join(p, 'minDomains'), 'is set, but whenUnsatisfiable is "ScheduleAnyway"; the API takes minDomains only with "DoNotSchedule"', 'option-conflict');
    }
    checkOneOf(d, join(p, 'nodeAffinityPolicy'), c.nodeAffinityPolicy, ['Honor', 'Ignore']);
    checkOneOf(d, join(p, 'nodeTaintsPolicy'), c.nodeTaintsPolicy, ['Honor', 'Ignore']);
    checkStringArray(d, join(p, 'matchLabelKeys'), c.matchLabelKeys);
  });
}

/** A PriorityClass name: a DNS-1123 subdomain, as every object name. */
export function checkPriorityClassName(d: Diagnostics, path: string, v: unknown): void {
  checkDnsSubdomain(d, path, v, ' such as "high-priority"; the PriorityClass must exist in the cluster');
}

/** A Grove topology domain name, as the 1.x CRD's pattern takes it. */
function checkPackDomain(d: Diagnostics, path: string, v: unknown, required: boolean): void {
  if (required && !checkRequired(d, path, v, 'a topology domain of the ClusterTopology, e.g. "rack"')) return;
  checkDnsLabel(d, path, v, '; a domain of the ClusterTopology, e.g. "rack"');
}

/** Refuses a 1.x placement field on a release whose CRD lacks it. Returns whether the release has it. */
function checkPlacementRelease(d: Diagnostics, path: string, release: DynamoRelease | undefined, field: 'topologyConstraint' | 'compilationCache', what: string): boolean {
  if (!release || release.placement[field]) return true;
  d.error(path, `is set, but the DynamoGraphDeployment of Dynamo ${release.line}.x has no ${what} (it came with the 1.x v1beta1 API); use Dynamo 1.4 or later, or leave it out`, 'unsupported-on-release');
  return false;
}

/** Checks the placement options every component takes (`affinity`, `priorityClassName`, ...). */
export function checkPodPlacement(d: Diagnostics, path: string, o: PodPlacementOptions, release: DynamoRelease | undefined): void {
  if (o.affinity !== undefined) checkAffinity(d, join(path, 'affinity'), o.affinity);
  checkPriorityClassName(d, join(path, 'priorityClassName'), o.priorityClassName);
  checkTopologySpreadConstraints(d, join(path, 'topologySpreadConstraints'), o.topologySpreadConstraints);
  const tc = o.topologyConstraint as unknown;
  const tcPath = join(path, 'topologyConstraint');
  if (checkObject(d, tcPath, tc, 'a topology constraint { packDomain }') && checkPlacementRelease(d, tcPath, release, 'topologyConstraint', 'topology constraints')) {
    checkKnownKeys(d, tcPath, tc, ['packDomain']);
    checkPackDomain(d, join(tcPath, 'packDomain'), tc.packDomain, true);
  }
}

/** Checks a worker's `compilationCache`. */
export function checkCompilationCache(d: Diagnostics, path: string, v: unknown, release: DynamoRelease | undefined): void {
  if (!checkObject(d, path, v, 'a compilation cache { claimName, mountPath? }')) return;
  if (!checkPlacementRelease(d, path, release, 'compilationCache', 'compilationCache field')) return;
  checkKnownKeys(d, path, v, ['claimName', 'mountPath']);
  if (checkRequired(d, join(path, 'claimName'), v.claimName, 'the name of an existing PersistentVolumeClaim')) checkDnsSubdomain(d, join(path, 'claimName'), v.claimName);
  if (checkString(d, join(path, 'mountPath'), v.mountPath) && typeof v.mountPath === 'string' && !v.mountPath.startsWith('/')) {
    d.error(join(path, 'mountPath'), `must be an absolute path such as "/cache", got ${show(v.mountPath)}`, 'value-format');
  }
}

/** Checks the graph-wide placement options: `priorityClassName` and `topologyConstraint`. */
export function checkGraphPlacement(
  d: Diagnostics,
  path: string,
  o: { readonly priorityClassName?: string; readonly topologyConstraint?: GraphTopologyConstraint },
  release: DynamoRelease | undefined,
): void {
  checkPriorityClassName(d, join(path, 'priorityClassName'), o.priorityClassName);
  const tc = o.topologyConstraint as unknown;
  const tcPath = join(path, 'topologyConstraint');
  if (!checkObject(d, tcPath, tc, 'a topology constraint { clusterTopologyName, packDomain? }')) return;
  if (!checkPlacementRelease(d, tcPath, release, 'topologyConstraint', 'topology constraints')) return;
  checkKnownKeys(d, tcPath, tc, ['clusterTopologyName', 'packDomain']);
  if (checkRequired(d, join(tcPath, 'clusterTopologyName'), tc.clusterTopologyName, 'the name of the ClusterTopology resource')) {
    checkDnsSubdomain(d, join(tcPath, 'clusterTopologyName'), tc.clusterTopologyName);
  }
  checkPackDomain(d, join(tcPath, 'packDomain'), tc.packDomain, false);
}

/**
 * The pod-spec fields of a component's placement (`affinity`, `priorityClassName`,
 * `topologySpreadConstraints`), the component's own `priorityClassName` over the graph's.
 */
export function podPlacement(ctx: GraphContext, o: PodPlacementOptions): Record<string, unknown> {
  return {
    affinity: o.affinity,
    priorityClassName: o.priorityClassName ?? ctx.priorityClassName,
    topologySpreadConstraints: o.topologySpreadConstraints,
  };
}

/** A worker's compilation cache in the normalized service (written as v1beta1 `compilationCache`). */
export function compilationCacheOf(c: CompilationCache | undefined): DgdService['compilationCache'] {
  return c === undefined ? undefined : { pvcName: c.claimName, mountPath: c.mountPath };
}

/** A rendered worker pool: its service entry, and what it needs beside the graph. */
export interface RenderedWorker {
  readonly service: DgdService;
  /** TensorRT-LLM: the engine config ConfigMap. */
  readonly configMap?: KubeObject;
  /** The arguments the library generated, before `extraArgs`. */
  readonly generatedArgs: readonly string[];
}
