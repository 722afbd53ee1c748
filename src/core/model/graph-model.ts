import type { EngineName } from './launch';
import { isPlainObject } from '../base/checks';
import { EnvVar } from '../base/k8s';
import { yaml } from '../base/util';
import { DynamoRelease, DEFAULT_DYNAMO_VERSION, releaseOf, releaseOfImage, releaseOfVersion } from '../releases/versions';
import { AmbiguousFlag, engineLaunch } from './flag-abbreviations';
import { Launch, flagValue, parseLaunch } from './launch';

/**
 * A DynamoGraphDeployment as the rules read it: its services with what each
 * runs, with every value located twice, in the manifest (for `lint`) and in
 * the library's options (for the constructs).
 */

/** Where a value sits: a field of the service (or of the object) and the option that sets it. */
export interface Place {
  /** Manifest field, relative to the service spec (or to the object for graph-level places). */
  readonly field: string;
  /**
   * Option that sets it, relative to the service's options; `graph:`-prefixed
   * for a graph-level option; `''` for the service's options themselves.
   */
  readonly option?: string;
}

export interface Located<T> extends Place {
  readonly value: T;
  /** The value is the engine's default: nothing in the manifest sets it. */
  readonly defaulted?: boolean;
}

export type ServiceKind = 'frontend' | 'planner' | 'worker' | 'other';
export type { EngineName } from './launch';
export type ServiceRole = 'prefill' | 'decode' | 'aggregated';

export interface EnvEntry {
  readonly env: EnvVar;
  readonly place: Place;
}

export interface ServiceModel {
  /** The service's name: a 1.x component's `name`, or its key under `spec.services` (0.8/0.9, and the normalized layout). */
  readonly name: string;
  readonly spec: Readonly<Record<string, unknown>>;
  readonly kind: ServiceKind;
  /** Workers: prefill, decode (by the 1.x component `type`, the 0.8/0.9 `subComponentType`, else by role flags) or aggregated. */
  readonly role?: ServiceRole;
  readonly engine?: EngineName;
  /** The main container: the `main` container of a 1.x component's `podTemplate`, `extraPodSpec.mainContainer` on 0.8/0.9. */
  readonly container: Readonly<Record<string, unknown>>;
  /** Its command line, each flag under the name the engine's parser reads it as (`--tp` is SGLang's `--tp-size`). */
  readonly launch: Launch;
  /** How flags read as abbreviations were written (`--tp-size` -> `--tp`). */
  readonly spelled: ReadonlyMap<string, string>;
  /** Flags the engine's parser refuses as an abbreviation of several of its flags. */
  readonly ambiguousFlags: readonly AmbiguousFlag[];
  /** Whether a command line was found at all (rules about flags need one). */
  readonly launches: boolean;
  /** Effective environment: the graph's (1.x `spec.env`, 0.8/0.9 `spec.envs`), replaced by the service's of the same name. */
  readonly env: ReadonlyMap<string, EnvEntry>;
  /** TensorRT-LLM: the engine config file, when its ConfigMap is among the objects. */
  readonly engineConfig?: Readonly<Record<string, unknown>>;
  /**
   * The 1.x planner: its `--config` document (inline, or the file its ConfigMap mounts
   * when that ConfigMap is among the objects), and where each key of it sits.
   */
  readonly plannerConfig?: { readonly values: Readonly<Record<string, unknown>>; readonly field: string };
  /**
   * The Dynamo release the service runs: the one the manifest is checked for, else its
   * image tag's, else its `runtimeVersionOverride`'s, else (v1beta1) the graph's;
   * undefined when nothing names one (a custom image in a v1alpha1 graph, the 0.8/0.9 layout).
   */
  readonly release?: DynamoRelease;
}

export interface GraphModel {
  /** `metadata.name`, or `''` when it is not a string. */
  readonly name: string;
  /** `metadata.name` as written. */
  readonly rawName: unknown;
  readonly namespace?: string;
  readonly spec: Readonly<Record<string, unknown>>;
  readonly services: readonly ServiceModel[];
  /** Other objects given with the graph (ConfigMaps, claims), by `Kind/name`. */
  readonly objects: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /** The API version the manifest was written in (the model itself is in the normalized layout). */
  readonly apiVersion: string;
  /**
   * The Dynamo release the graph runs: the one it is checked for, else the one most of its
   * images name, else the current 1.x line for a v1beta1 graph; undefined when nothing says.
   */
  readonly release?: DynamoRelease;
  /** Whether `release` was given (checked for a release) rather than read from the manifest. */
  readonly releaseGiven: boolean;
  /** The release most of the graph's images name, whatever release it is checked for. */
  readonly imagesRelease?: DynamoRelease;
  /** `metadata.annotations`. */
  readonly annotations: ReadonlyMap<string, unknown>;
}

/** How a manifest is read. */
export interface ModelOptions {
  /** Check the graph as the Dynamo release it will run (an upgrade target), whatever its images say. */
  readonly release?: DynamoRelease;
  /** The API version it was written in, when the graph passed in was converted to the normalized layout. */
  readonly apiVersion?: string;
}

/**
 * The engine each Dynamo module runs. A Map, as every table looked up by a name from the
 * manifest: an object would answer `-m constructor` or `-m __proto__` with what it inherits.
 */
const ENGINE_MODULES: ReadonlyMap<string, EngineName> = new Map([
  ['dynamo.vllm', 'vllm'],
  ['dynamo.sglang', 'sglang'],
  ['dynamo.trtllm', 'trtllm'],
  ['dynamo.mocker', 'mocker'],
]);

const PLANNER_MODULES = new Set(['planner_sla', 'dynamo.planner', 'dynamo.planner.planner_sla']);

function obj(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/** A key of a manifest object, never one it inherits (`constructor`, `toString`...). */
function own(o: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

/** A manifest field inside the main container. */
export const containerField = (field: string) => `extraPodSpec.mainContainer.${field}`;
/** A flag of the main container's command line. */
export const argField = (flag: string) => containerField(`args[${flag}]`);

function envList(value: unknown): EnvVar[] {
  return Array.isArray(value) ? value.filter((e): e is EnvVar => isPlainObject(e) && typeof e.name === 'string') : [];
}

function kindOf(componentType: unknown, launch: Launch): ServiceKind {
  const t = typeof componentType === 'string' ? componentType : '';
  if (t === 'frontend' || launch.module === 'dynamo.frontend') return 'frontend';
  if (t === 'planner' || (launch.module !== undefined && PLANNER_MODULES.has(launch.module))) return 'planner';
  // a worker that runs something other than an engine (a processor, a script) is not an LLM worker pool
  if ((launch.module !== undefined || launch.program !== undefined) && !ENGINE_MODULES.has(launch.module ?? '')) return 'other';
  // multimodal encoders and processors hold no KV cache to route or transfer
  if ([...launch.flags.keys()].some((f) => f.startsWith('--multimodal'))) return 'other';
  if (t === 'worker' || t === 'prefill' || t === 'decode' || (launch.module !== undefined && ENGINE_MODULES.has(launch.module))) return 'worker';
  return 'other';
}

/** The role a worker's flags give it, if any. */
export function roleFlag(launch: Launch): Located<'prefill' | 'decode'> | undefined {
  if (launch.flags.has('--is-prefill-worker')) return { value: 'prefill', field: argField('--is-prefill-worker') };
  if (launch.flags.has('--is-decode-worker')) return { value: 'decode', field: argField('--is-decode-worker') };
  const mode = launch.flags.get('--disaggregation-mode');
  if (mode === 'prefill' || mode === 'decode') return { value: mode, field: argField('--disaggregation-mode') };
  return undefined;
}

function engineOf(launch: Launch, launches: boolean, backendFramework: unknown, kind: ServiceKind): EngineName | undefined {
  const engine = launch.module !== undefined ? ENGINE_MODULES.get(launch.module) : undefined;
  if (engine) return engine;
  // without a command line of its own, a worker runs the graph's backend
  if (kind === 'worker' && !launches && (backendFramework === 'vllm' || backendFramework === 'sglang' || backendFramework === 'trtllm')) return backendFramework;
  return undefined;
}

/** Finds the ConfigMap key a file path inside the container comes from. */
function mountedConfigMap(spec: Record<string, unknown>, container: Record<string, unknown>, file: string): { name: string; key: string } | undefined {
  const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts.filter(isPlainObject) : [];
  // the file itself (a `subPath` mount), or the deepest directory holding it
  const mount =
    mounts.find((m) => m.mountPath === file && typeof m.subPath === 'string') ??
    mounts
      .filter((m) => typeof m.mountPath === 'string' && file.startsWith(`${String(m.mountPath).replace(/\/$/, '')}/`))
      .sort((a, b) => String(b.mountPath).length - String(a.mountPath).length)[0];
  if (!mount) return undefined;
  const volumes = Array.isArray(obj(spec.extraPodSpec).volumes) ? (obj(spec.extraPodSpec).volumes as unknown[]).filter(isPlainObject) : [];
  const volume = volumes.find((v) => v.name === mount.name);
  const configMap = obj(volume?.configMap);
  if (typeof configMap.name !== 'string') return undefined;
  const relative = typeof mount.subPath === 'string' ? mount.subPath : file.slice(String(mount.mountPath).replace(/\/$/, '').length + 1);
  const items = Array.isArray(configMap.items) ? configMap.items.filter(isPlainObject) : [];
  const item = items.find((i) => i.path === relative);
  return { name: configMap.name, key: typeof item?.key === 'string' ? item.key : relative };
}

/** A YAML (or JSON) document as an object; undefined when it is not one. */
function parseDocument(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = yaml().parse(text);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The contents of a file the container mounts from a ConfigMap among the objects. */
function mountedFile(
  spec: Record<string, unknown>,
  container: Record<string, unknown>,
  file: string,
  objects: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
  namespace: string | undefined,
): { text: string; configMap: string; key: string } | undefined {
  const source = mountedConfigMap(spec, container, file);
  if (!source) return undefined;
  const configMap = (namespace !== undefined ? objects.get(`ConfigMap/${namespace}/${source.name}`) : undefined) ?? objects.get(`ConfigMap/${source.name}`);
  const data = own(obj(configMap?.data), source.key);
  return typeof data === 'string' ? { text: data, configMap: source.name, key: source.key } : undefined;
}

function engineConfigOf(
  spec: Record<string, unknown>,
  container: Record<string, unknown>,
  launch: Launch,
  objects: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
  namespace: string | undefined,
): Record<string, unknown> | undefined {
  const file = flagValue(launch, '--extra-engine-args')?.value;
  if (typeof file !== 'string') return undefined;
  const mounted = mountedFile(spec, container, file, objects, namespace);
  return mounted ? parseDocument(mounted.text) : undefined;
}

/** `python3 -m dynamo.planner --config <json | yaml | file>` (1.x): the document, and where it sits. */
function plannerConfigOf(
  spec: Record<string, unknown>,
  container: Record<string, unknown>,
  launch: Launch,
  objects: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
  namespace: string | undefined,
): ServiceModel['plannerConfig'] {
  const config = flagValue(launch, '--config')?.value;
  if (typeof config !== 'string') return undefined;
  const inline = /^\s*\{/.test(config) ? parseDocument(config) : undefined;
  if (inline) return { values: inline, field: argField('--config') };
  const mounted = mountedFile(spec, container, config, objects, namespace);
  const values = mounted && parseDocument(mounted.text);
  return values ? { values, field: `${argField('--config')}(ConfigMap ${mounted.configMap}: ${mounted.key})` } : undefined;
}

/**
 * Indexes objects for the rules that follow references: by `Kind/namespace/name`
 * and, for objects applied to whatever namespace is current, by `Kind/name`.
 */
export function indexObjects(objects: readonly unknown[]): Map<string, Record<string, unknown>> {
  const index = new Map<string, Record<string, unknown>>();
  for (const o of objects) {
    if (!isPlainObject(o) || typeof o.kind !== 'string') continue;
    const { name, namespace } = obj(o.metadata);
    if (typeof name !== 'string') continue;
    if (!index.has(`${o.kind}/${name}`)) index.set(`${o.kind}/${name}`, o);
    if (typeof namespace === 'string') index.set(`${o.kind}/${namespace}/${name}`, o);
  }
  return index;
}

/** Reads a DynamoGraphDeployment (and the ConfigMaps and claims it refers to) into the rules' model. */
export function graphModel(
  graph: Readonly<Record<string, unknown>>,
  objects: ReadonlyMap<string, Readonly<Record<string, unknown>>> = new Map(),
  options: ModelOptions = {},
): GraphModel {
  const spec = obj(graph.spec);
  const apiVersion = options.apiVersion ?? (typeof graph.apiVersion === 'string' ? graph.apiVersion : '');
  const graphRelease = options.release ?? commonRelease(spec) ?? (apiVersion === 'nvidia.com/v1beta1' ? releaseOf(DEFAULT_DYNAMO_VERSION) : undefined);
  const metadata = obj(graph.metadata);
  const graphEnv = envList(spec.envs);
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : undefined;
  const services = Object.entries(obj(spec.services)).map(([name, raw]): ServiceModel => {
    const s = obj(raw);
    const container = obj(obj(s.extraPodSpec).mainContainer);
    const written = parseLaunch(container);
    const kind = kindOf(s.componentType, written);
    const env = new Map<string, EnvEntry>();
    for (const e of graphEnv) env.set(e.name, { env: e, place: { field: `spec.envs[${e.name}]`, option: `graph:env.${e.name}` } });
    for (const e of envList(s.envs)) env.set(e.name, { env: e, place: { field: `envs[${e.name}]`, option: `env.${e.name}` } });
    for (const e of envList(container.env)) env.set(e.name, { env: e, place: { field: containerField(`env[${e.name}]`), option: `env.${e.name}` } });
    const launches = written.program !== undefined || written.module !== undefined || written.flags.size > 0;
    const engine = engineOf(written, launches, spec.backendFramework, kind);
    const release =
      options.release ?? releaseOfImage(container.image) ?? releaseOfVersion(s.runtimeVersionOverride) ?? (apiVersion === 'nvidia.com/v1beta1' ? graphRelease : undefined);
    const engineVersion = engine !== undefined && engine !== 'mocker' ? release?.engines[engine]?.version : undefined;
    const { launch, spelled, ambiguous } = kind === 'worker' ? engineLaunch(written, engine, engineVersion) : { launch: written, spelled: new Map<string, string>(), ambiguous: [] };
    const sub = s.subComponentType;
    const role: ServiceRole | undefined =
      kind !== 'worker'
        ? undefined
        : sub === 'prefill' || sub === 'decode'
          ? sub
          : s.componentType === 'prefill' || s.componentType === 'decode'
            ? s.componentType
            : (roleFlag(launch)?.value ?? 'aggregated');
    return {
      name,
      spec: s,
      kind,
      role,
      engine,
      container,
      launch,
      spelled,
      ambiguousFlags: ambiguous,
      launches,
      env,
      engineConfig: engine === 'trtllm' ? engineConfigOf(s, container, launch, objects, namespace) : undefined,
      plannerConfig: kind === 'planner' ? plannerConfigOf(s, container, launch, objects, namespace) : undefined,
      release,
    };
  });
  // Dynamo's vLLM examples before 0.8 run decode workers without a flag, next to flagged prefill workers
  if (services.some((s) => s.role === 'prefill')) {
    services.forEach((s, i) => {
      if (s.role === 'aggregated' && s.engine === 'vllm' && s.spec.subComponentType === undefined) services[i] = { ...s, role: 'decode' };
    });
  }
  return {
    name: typeof metadata.name === 'string' ? metadata.name : '',
    rawName: metadata.name,
    namespace,
    spec,
    services,
    objects,
    apiVersion,
    release: graphRelease,
    releaseGiven: options.release !== undefined,
    imagesRelease: commonRelease(spec),
    annotations: new Map(Object.entries(obj(metadata.annotations))),
  };
}

/** The release most of a graph's images name (the first such on a tie). */
function commonRelease(spec: Record<string, unknown>): DynamoRelease | undefined {
  const counts = new Map<DynamoRelease, number>();
  for (const raw of Object.values(obj(spec.services))) {
    const release = releaseOfImage(obj(obj(obj(raw).extraPodSpec).mainContainer).image);
    if (release) counts.set(release, (counts.get(release) ?? 0) + 1);
  }
  let best: DynamoRelease | undefined;
  for (const [release, n] of counts) if (best === undefined || n > counts.get(best)!) best = release;
  return best;
}

export function workers(g: GraphModel): ServiceModel[] {
  return g.services.filter((s) => s.kind === 'worker');
}

export function isDisaggregated(g: GraphModel): boolean {
  const roles = new Set(workers(g).map((w) => w.role));
  return roles.has('prefill') && roles.has('decode');
}

const PATHS = new Map<string, readonly string[]>();

/** The value at a dotted path of a plain object. */
export function at(value: unknown, path: string): unknown {
  let parts = PATHS.get(path);
  if (!parts) {
    parts = path.split('.');
    PATHS.set(path, parts);
  }
  let v: unknown = value;
  for (const part of parts) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    v = own(v as Record<string, unknown>, part);
  }
  return v;
}
