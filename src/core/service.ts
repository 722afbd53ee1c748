import type { WorkerRole } from './backend';
import { checkKnownKeys, checkObject, checkQuantity, isPlainObject, join } from './checks';
import { GraphContext } from './context';
import { EnvMap, envMapToList, mergeEnv, PodInfoField, podInfoEnv } from './env';
import { Diagnostics, show } from './errors';
import { ComputeResources, EnvVar } from './k8s';
import { modelCacheEnv } from './model-cache';

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
