import type { WorkerRole } from './backend';
import { checkKnownKeys, checkObject, checkQuantity, isPlainObject, join } from './checks';
import { GraphContext } from './context';
import { EnvMap, envMapToList, mergeEnv, PodInfoField, podInfoEnv } from './env';
import { Diagnostics, show } from './errors';
import { ComputeResources, EnvVar } from './k8s';
import { modelCacheEnv } from './model-cache';
import { prune } from './util';

/**
 * One service of the library's normalized graph: the v1alpha1 `spec.services` entry (the
 * fields the library writes), from which every API version is written (dgd-v1beta1.ts).
 */
export interface DgdService {
  envFromSecret?: string;
  componentType: 'frontend' | 'worker' | 'planner';
  subComponentType?: 'prefill' | 'decode';
  replicas?: number;
  resources?: {
    requests?: Record<string, string>;
    limits?: Record<string, string>;
  };
  sharedMemory?: { size?: string; disabled?: boolean };
  multinode?: { nodeCount: number };
  volumeMounts?: { name: string; mountPoint: string }[];
  envs?: EnvVar[];
  extraPodSpec?: Record<string, unknown> & { mainContainer?: Record<string, unknown> };
  /**
   * A planner owns the replica count. Normalized only: v1beta1 writes it as
   * `scalingAdapter: {}`; the 0.8/0.9 writer leaves it out, as it leaves out `replicas`.
   */
  scalingAdapter?: boolean;
}

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
export type PodSecurity = 'hardened' | 'restricted' | 'none';
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
