import { isPlainObject } from '../base/checks';
import { EnvVar, KubeObject } from '../base/k8s';
import { DgdService } from './dgd';
import { prune } from '../base/util';

/**
 * The `nvidia.com/v1beta1` DynamoGraphDeployment (Dynamo 1.2 and later),
 * written from and read into the library's normalized graph.
 *
 * The normalized graph is the layout the library renders every release from:
 * a `services` map of {@link DgdService}, which is also the v1alpha1 layout
 * (the v1alpha1 writer emits it as is). v1beta1 keeps the same content in
 * another shape: a `components` list, each with a full pod template whose
 * container named `main` carries what v1alpha1 spreads over flat fields
 * (`envs`, `envFromSecret`, `resources.limits.gpu`, `volumeMounts` of
 * `spec.pvcs` claims). Claims are mounted through pod volumes; v1beta1 has no
 * `spec.pvcs`, so the claim itself is created beside the graph.
 *
 * Sources: ../shared/dynamo/crds-v1beta1/ (the schema), the v1alpha1 <->
 * v1beta1 conversion the 1.x operator performs (reference-1x.md section 2b) and
 * the DGD templates of the ai-dynamo 1.6.1 wheel.
 */

/** The name of the container the operator merges its defaults into. */
export const MAIN_CONTAINER = 'main';
/** The pod volume a model cache claim is mounted through. */
export const MODEL_CACHE_VOLUME = 'model-cache';
/** The v1beta1 resource name of `resources.limits.gpu`. */
const GPU_RESOURCE = 'nvidia.com/gpu';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** A v1beta1 component `type` for a normalized service. */
function componentType(s: DgdService): string {
  if (s.componentType === 'worker' && s.subComponentType !== undefined) return s.subComponentType;
  return s.componentType;
}

/** Settings of the v1beta1 rendering that the normalized graph does not hold. */
export interface V1beta1Options {
  /**
   * The Dynamo version (`X.Y.Z`) the components run. Admission (1.4 and later) reads it from the
   * main image's tag; a component whose tag is not exactly that gets it as `runtimeVersionOverride`.
   */
  readonly runtimeVersion?: string;
}

const SEMVER_TAG = /:(\d+\.\d+\.\d+)$/;

/** `runtimeVersionOverride` for a main image: none when its tag is the plain version. */
function runtimeVersionOverride(image: unknown, version: string | undefined): string | undefined {
  if (version === undefined) return undefined;
  return typeof image === 'string' && SEMVER_TAG.exec(image)?.[1] === version ? undefined : version;
}

function mergeResources(...parts: (Record<string, string> | undefined)[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const p of parts) Object.assign(out, p ?? {});
  return Object.keys(out).length > 0 ? out : undefined;
}

function component(name: string, s: DgdService, claims: ReadonlySet<string>, o: V1beta1Options): Obj {
  const pod = obj(s.extraPodSpec);
  // `containers` of the normalized pod are its other containers (sidecars), written after main
  const { mainContainer, volumes, containers: sidecars, ...podRest } = pod;
  const main = obj(mainContainer);
  const { resources: mainResources, env: mainEnv, volumeMounts: mainMounts, ...mainRest } = main;
  const cacheMounts = (s.volumeMounts ?? []).filter((m) => claims.has(m.name));
  const { gpu, ...limits } = s.resources?.limits ?? {};
  const devices = obj(mainResources) as { limits?: Record<string, string>; requests?: Record<string, string> };
  const container = prune({
    name: MAIN_CONTAINER,
    ...mainRest,
    env: [...(s.envs ?? []), ...((mainEnv as EnvVar[] | undefined) ?? [])],
    envFrom: s.envFromSecret !== undefined ? [{ secretRef: { name: s.envFromSecret } }] : undefined,
    resources: {
      requests: mergeResources(s.resources?.requests, devices.requests),
      limits: mergeResources(gpu !== undefined ? { [GPU_RESOURCE]: gpu } : undefined, limits, devices.limits),
    },
    volumeMounts: [...cacheMounts.map((m) => ({ name: MODEL_CACHE_VOLUME, mountPath: m.mountPoint })), ...((mainMounts as Obj[] | undefined) ?? [])],
  });
  const cacheVolumes = cacheMounts.map((m) => ({ name: MODEL_CACHE_VOLUME, persistentVolumeClaim: { claimName: m.name } }));
  const written = prune({
    name,
    type: componentType(s),
    replicas: s.replicas,
    multinode: s.multinode,
    sharedMemorySize: s.sharedMemory?.disabled ? '0' : s.sharedMemory?.size,
    // a graph read from a manifest keeps its own; the library's follows the image's tag
    runtimeVersionOverride: s.runtimeVersionOverride ?? runtimeVersionOverride(main.image, o.runtimeVersion),
    topologyConstraint: s.topologyConstraint,
    compilationCache: s.compilationCache,
    podTemplate: { spec: { ...podRest, volumes: [...cacheVolumes, ...((volumes as Obj[] | undefined) ?? [])], containers: [container, ...list(sidecars)] } },
  });
  // the marker is an empty object: its presence opts the component into a scaling adapter
  if (!s.scalingAdapter) return written;
  const { name: n, type, replicas, ...rest } = written;
  return { name: n, type, ...(replicas !== undefined ? { replicas } : {}), scalingAdapter: {}, ...rest };
}

/** Writes a normalized graph as a v1beta1 DynamoGraphDeployment. */
export function writeV1beta1(graph: KubeObject, o: V1beta1Options = {}): KubeObject {
  const spec = obj(graph.spec);
  const claims = new Set(list(spec.pvcs).map((p) => String(p.name)));
  const services = Object.entries(obj(spec.services) as Record<string, DgdService>);
  return {
    apiVersion: 'nvidia.com/v1beta1',
    kind: 'DynamoGraphDeployment',
    metadata: graph.metadata,
    // components are pruned as they are written (keeping the empty scalingAdapter marker)
    spec: {
      ...prune({ backendFramework: spec.backendFramework, env: spec.envs, topologyConstraint: spec.topologyConstraint }),
      ...(services.length > 0 ? { components: services.map(([name, s]) => component(name, s, claims, o)) } : {}),
    },
  };
}

/**
 * Reads a v1beta1 DynamoGraphDeployment into the normalized graph, for the
 * rules; `field` turns a normalized service field of a finding back into the
 * v1beta1 one.
 */
export function readV1beta1(graph: Readonly<Record<string, unknown>>): Obj {
  const spec = obj(graph.spec);
  const services: Record<string, Obj> = {};
  const pvcs = new Map<string, Obj>();
  for (const c of list(spec.components)) {
    const podSpec = obj(obj(c.podTemplate).spec);
    const { containers, volumes, ...podRest } = podSpec;
    const main = list(containers).find((x) => x.name === MAIN_CONTAINER) ?? {};
    // kept, so that the rules see every container a pod runs
    const sidecars = list(containers).filter((x) => x !== main);
    const { name: _name, env, envFrom, resources, volumeMounts, ...mainRest } = main;
    void _name;
    const claimVolumes = new Map(list(volumes).filter((v) => isPlainObject(v.persistentVolumeClaim)).map((v) => [String(v.name), String(obj(v.persistentVolumeClaim).claimName)]));
    const mounts = list(volumeMounts);
    const cacheMounts = mounts.filter((m) => claimVolumes.has(String(m.name)));
    for (const m of cacheMounts) pvcs.set(claimVolumes.get(String(m.name))!, { name: claimVolumes.get(String(m.name)), create: false });
    const { [GPU_RESOURCE]: gpu, ...limits } = obj(obj(resources).limits) as Record<string, string>;
    const requests = obj(obj(resources).requests) as Record<string, string>;
    const compute = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).filter(([k]) => k === 'cpu' || k === 'memory'));
    const devices = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'cpu' && k !== 'memory'));
    const secrets = list(envFrom).map((e) => obj(e.secretRef).name).filter((n): n is string => typeof n === 'string');
    const type = typeof c.type === 'string' ? c.type : undefined;
    const shm = c.sharedMemorySize;
    // defined, not assigned: a component named `__proto__` is a service like any other
    Object.defineProperty(services, String(c.name), { enumerable: true, writable: true, configurable: true, value: prune({
      envFromSecret: secrets[0],
      componentType: type === 'prefill' || type === 'decode' ? 'worker' : type,
      subComponentType: type === 'prefill' || type === 'decode' ? type : undefined,
      replicas: c.replicas,
      // not a v1alpha1 field: kept for the rules, which read the release from it
      runtimeVersionOverride: c.runtimeVersionOverride,
      scalingAdapter: isPlainObject(c.scalingAdapter) ? true : undefined,
      resources: { requests: compute(requests), limits: { ...(gpu !== undefined ? { gpu } : {}), ...compute(limits) } },
      sharedMemory: shm === undefined ? undefined : String(shm) === '0' ? { disabled: true } : { size: String(shm) },
      multinode: c.multinode,
      topologyConstraint: c.topologyConstraint,
      compilationCache: c.compilationCache,
      volumeMounts: cacheMounts.map((m) => ({ name: claimVolumes.get(String(m.name))!, mountPoint: m.mountPath })),
      envs: Array.isArray(env) ? env : undefined,
      extraPodSpec: {
        ...podRest,
        containers: sidecars,
        volumes: list(volumes).filter((v) => !claimVolumes.has(String(v.name))),
        mainContainer: {
          ...mainRest,
          resources: { requests: devices(requests), limits: devices(limits) },
          volumeMounts: mounts.filter((m) => !claimVolumes.has(String(m.name))),
        },
      },
    }) });
  }
  return {
    apiVersion: graph.apiVersion,
    kind: graph.kind,
    metadata: graph.metadata,
    spec: prune({ backendFramework: spec.backendFramework, envs: spec.env, topologyConstraint: spec.topologyConstraint, pvcs: pvcs.size > 0 ? [...pvcs.values()] : undefined, services }),
  };
}

/** The v1beta1 field of a normalized service field (as the rules report it). */
export function v1beta1ServiceField(field: string): string {
  const main = `podTemplate.spec.containers[${MAIN_CONTAINER}]`;
  if (field === 'componentType' || field === 'subComponentType') return 'type';
  if (field.startsWith('extraPodSpec.mainContainer')) return main + field.slice('extraPodSpec.mainContainer'.length);
  if (field.startsWith('extraPodSpec')) return 'podTemplate.spec' + field.slice('extraPodSpec'.length);
  if (field.startsWith('envs')) return `${main}.env${field.slice('envs'.length)}`;
  if (field === 'envFromSecret') return `${main}.envFrom`;
  if (field === 'resources.limits.gpu') return `${main}.resources.limits[${GPU_RESOURCE}]`;
  if (field.startsWith('resources')) return `${main}.${field}`;
  if (field.startsWith('sharedMemory')) return 'sharedMemorySize';
  if (field.startsWith('volumeMounts')) return `${main}.volumeMounts`;
  return field;
}

/** The v1beta1 field of a normalized graph-level field. */
export function v1beta1GraphField(field: string): string {
  if (field.startsWith('spec.envs')) return 'spec.env' + field.slice('spec.envs'.length);
  if (field.startsWith('spec.services')) return 'spec.components' + field.slice('spec.services'.length);
  if (field.startsWith('spec.pvcs')) return 'spec.components[].podTemplate.spec.volumes';
  return field;
}
