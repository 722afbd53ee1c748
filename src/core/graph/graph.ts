import { Backend, checkBackend, KvEventsMode, WorkerRole } from '../engines/backend';
import { checkBoolean, checkDnsLabel, checkModel, checkServedModelName, checkServiceName, checkKnownKeys, checkNameRef, checkNameRefs, checkOneOf, checkString, checkStringMap, isPlainObject, join, optionKeys } from '../base/checks';
import { GraphContext } from './context';
import { checkEnvMap, checkPodInfoFields, EnvMap, envMapToList, POD_INFO_FIELDS, PodInfoField } from '../base/env';
import { dedupe, Diagnostics, show, ValidationWarning } from '../base/errors';
import { Fabric, workerImageOf } from './fabric';
import { checkFrontend, FrontendOptions, renderFrontend } from './frontend';
import { GraphTopologyConstraint, IMAGE_PULL_POLICIES, ImagePullPolicy, KubeObject, NameRef, nameOf } from '../base/k8s';
import { checkExistingModelCache, modelCacheMount } from './model-cache';
import { checkGraphPlanner, EngineGpus, PlannerOptions, plannerConfigMapName, renderPlanner } from './planner';
import { checkGraphManifest, Finding, reportDraftFindings, reportFindings } from '../rules';
import { at } from '../model/graph-model';
import { Router } from './router';
import { checkGraphPlacement, DEFAULT_POD_SECURITY, DgdService, POD_SECURITY_LEVELS, PodSecurity, secureService } from './service';
import { prune } from '../base/util';
import { GRAPH_FORMATS } from '../model/graph-formats';
import { DynamoRelease, dynamoVersionOf, lookupRelease, releaseOf, RELEASES, runtimeVersionOf } from '../releases/versions';
import { checkExtraArgs, checkWorker, engineConfigMapName, renderWorker, WorkerOptions, workerShape } from './worker';

/** A model cache as a graph sees it: a claim and a mount path. */
export interface IModelCache {
  /** Name of the PersistentVolumeClaim. */
  readonly claimName: string;
  /** Where services mount it; `HF_HOME` points here. */
  readonly mountPath: string;
}

/** Settings shared by every service of a graph. */
export interface GraphOptions {
  /** Hugging Face model id or path, e.g. `nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1`. */
  readonly model: string;
  /** The inference engine. */
  readonly backend: Backend;
  /**
   * Dynamo release; selects flags, planner command and image tags.
   * @default '1.6.1' (DEFAULT_DYNAMO_VERSION)
   */
  readonly dynamoVersion?: string;
  /**
   * Model name clients send in requests.
   * @default - the model id
   */
  readonly servedModelName?: string;
  /**
   * Image of the frontend and the engine workers, used as given; on 0.8/0.9 also of the planner
   * (the 1.x planner runs the release's `dynamo-planner` image, `dynamo-planner:1.6.1` by default).
   * @default - the backend's runtime image of `dynamoVersion` (`BackendOptions.image`): on 1.6.1
   * `nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.1` for vLLM
   */
  readonly image?: string;
  /**
   * Image pull policy of every service.
   * @default 'IfNotPresent'
   */
  readonly imagePullPolicy?: ImagePullPolicy;
  /**
   * Secrets to pull images with, by name or as objects (e.g. a cdk8s-plus `ISecret`).
   * @default - none
   */
  readonly imagePullSecrets?: readonly NameRef[];
  /**
   * Existing Secret whose keys (e.g. `HF_TOKEN`) become environment of the components that fetch
   * from the Hugging Face Hub, where the release's own manifests give it: on 1.6.1 (and 1.4, 1.5)
   * the frontend, which fetches the tokenizer, and the workers (`containers[main].envFrom`); on
   * 0.8/0.9 the workers only (`envFromSecret`). The planner gets it on no release.
   * @default - none (public models only)
   */
  readonly hfTokenSecret?: NameRef;
  /**
   * PVC caching model weights, mounted on the frontend and workers with `HF_HOME` pointing to it.
   * @default - none (weights are downloaded into each pod)
   */
  readonly modelCache?: IModelCache;
  /**
   * Network for KV cache transfer between prefill and decode workers.
   * @default Fabric.tcp()
   */
  readonly fabric?: Fabric;
  /**
   * Environment of every service (1.x: `spec.env`; 0.8/0.9: `spec.envs`); a service's own `env`
   * overrides it.
   * @default - none
   */
  readonly env?: EnvMap;
  /**
   * Let the engine run the model repository's own code (`--trust-remote-code`).
   * @default false
   */
  readonly trustRemoteCode?: boolean;
  /**
   * Pod fields exposed to every service as environment variables (guide 1 step 9).
   * @default ['POD_UID', 'POD_NAME', 'POD_NAMESPACE', 'POD_IP']
   */
  readonly podInfoEnv?: readonly PodInfoField[];
  /**
   * Labels of the DynamoGraphDeployment object.
   * @default - none
   */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Annotations of the DynamoGraphDeployment object.
   * @default - none
   */
  readonly annotations?: Readonly<Record<string, string>>;
  /**
   * How Grove rolls out a changed graph (Dynamo 1.6 and later): `RollingRecreate` replaces pods
   * clique by clique, `Coherent` moves prefill and decode together (Grove alpha.14 and later),
   * `OnDelete` waits for pods to be deleted. Written as the `nvidia.com/grove-update-strategy`
   * annotation, always: the release notes and the API docs disagree on the default.
   * @default 'RollingRecreate'
   */
  readonly updateStrategy?: UpdateStrategy;
  /**
   * Render the graph as a rehearsal without GPUs: every engine worker becomes Dynamo's mocker
   * (`python3 -m dynamo.mocker`) in the same role, with the same replicas, block size, model and
   * served name, scheduling like the engine it stands in for (1.x), with no GPU or RDMA/EFA
   * request and no IPC_LOCK. The frontend (and its router) and the planner are unchanged. Engine
   * settings that have no mocker counterpart (parallelism, KV cache dtype, engine configs, extra
   * engine flags, the fabric) are not rendered.
   * @default false
   */
  readonly rehearsal?: boolean;
  /**
   * The security context of every pod. `'hardened'`: `allowPrivilegeEscalation: false`, every
   * capability dropped (RDMA/EFA workers keep IPC_LOCK, which NIXL needs) and the `RuntimeDefault`
   * seccomp profile; the pods run as their image's user (Dynamo's run as UID 1000). `'restricted'`
   * adds `runAsNonRoot` with UID 1000, what Pod Security "restricted" requires (not with an
   * RDMA/EFA fabric: it refuses IPC_LOCK). `'none'` writes no security context.
   * @default 'hardened'
   */
  readonly podSecurity?: PodSecurity;
  /**
   * PriorityClass of every pod of the graph (`priorityClassName` of each pod spec, which the
   * scheduler reads with or without Grove); a component's own `priorityClassName` wins.
   * @default - none (the cluster's default priority)
   */
  readonly priorityClassName?: string;
  /**
   * Grove topology-aware placement of the graph (`spec.topologyConstraint`): the ClusterTopology
   * to place by and a domain to pack every component within (components may set a narrower one).
   * Dynamo 1.x (1.6.1 renders it); the 0.8/0.9 CRD has no such field, and the option is refused there.
   * @default - none
   */
  readonly topologyConstraint?: GraphTopologyConstraint;
}

export { DEFAULT_POD_SECURITY, POD_SECURITY_LEVELS } from './service';
export type { PodSecurity } from './service';

/** Grove's update strategies for a changed graph. */
export type UpdateStrategy = 'RollingRecreate' | 'Coherent' | 'OnDelete';
export const UPDATE_STRATEGIES: readonly UpdateStrategy[] = ['RollingRecreate', 'Coherent', 'OnDelete'];
/** The update strategy the library writes when none is chosen. */
export const DEFAULT_UPDATE_STRATEGY: UpdateStrategy = 'RollingRecreate';

export const GRAPH_OPTION_KEYS = optionKeys<GraphOptions>()(
  'model',
  'backend',
  'dynamoVersion',
  'servedModelName',
  'image',
  'imagePullPolicy',
  'imagePullSecrets',
  'hfTokenSecret',
  'modelCache',
  'fabric',
  'env',
  'trustRemoteCode',
  'podInfoEnv',
  'labels',
  'annotations',
  'updateStrategy',
  'rehearsal',
  'podSecurity',
  'priorityClassName',
  'topologyConstraint',
);

/** One service of a graph. `path` is where its options came from, for messages. */
/**
 * The ConfigMap a component of a graph with these options mounts beside it, which the shells
 * create as their own object: a 1.x planner's PlannerConfig, a TensorRT-LLM worker's engine config
 * (none in a rehearsal, where the mocker stands in for the engine). Undefined: it mounts none.
 */
export function componentConfigMapName(options: GraphOptions, graphName: string, component: Pick<ComponentSpec, 'kind' | 'name'>): string | undefined {
  if (component.kind === 'planner') return releaseOf(dynamoVersionOf(options)).planner.config ? plannerConfigMapName(graphName, component.name) : undefined;
  if (component.kind === 'worker') return options.backend._renderer.usesEngineConfigFile && options.rehearsal !== true ? engineConfigMapName(graphName, component.name) : undefined;
  return undefined;
}

export type ComponentSpec =
  | { readonly kind: 'frontend'; readonly name: string; readonly path: string; readonly options: FrontendOptions }
  | { readonly kind: 'planner'; readonly name: string; readonly path: string; readonly options: PlannerOptions }
  | {
    readonly kind: 'worker';
    readonly role: WorkerRole;
    readonly name: string;
    readonly path: string;
    /** Undefined when a required worker pool was not given (reported as an error). */
    readonly options: WorkerOptions | undefined;
  };

/** A whole graph: what renders one DynamoGraphDeployment. */
export interface GraphSpec {
  /** `metadata.name` of the DGD. */
  readonly name: string;
  readonly namespace?: string;
  readonly options: GraphOptions;
  /** Path prefix of graph options in messages (`''` for top-level props). */
  readonly path: string;
  readonly components: readonly ComponentSpec[];
  /**
   * The other keys accepted where the graph options were given (a deployment's `frontend`,
   * `prefill`, `observability`, a construct's `name`...): an unknown key is matched against
   * them too, so that its message suggests and lists everything that could have been meant.
   * @default - none
   */
  readonly siblingKeys?: readonly string[];
}

/** The objects of one graph. */
export interface RenderedGraph {
  /** The DynamoGraphDeployment. */
  readonly graph: KubeObject;
  /** ConfigMaps the services mount (TensorRT-LLM engine configs), in service order. */
  readonly configMaps: readonly KubeObject[];
  readonly warnings: readonly ValidationWarning[];
}

/** Checks a model cache reference as any engine may pass it: a claim name and an absolute mount path. */
export function checkModelCacheRef(d: Diagnostics, path: string, cache: unknown): void {
  if (cache === undefined) return;
  const c = cache as Partial<IModelCache> | null;
  if (typeof c !== 'object' || c === null || typeof c.claimName !== 'string' || typeof c.mountPath !== 'string') {
    d.error(path, `must be a ModelCache (a claim name and a mount path), got ${show(cache)}`, 'value-type');
    return;
  }
  checkExistingModelCache(d, path, { claimName: c.claimName, mountPath: c.mountPath });
}

/**
 * Checks graph-wide options. Returns the release when the version is supported. Every check
 * that does not need the release runs whatever the version; `siblingKeys` are the other keys
 * accepted beside the graph options (see `GraphSpec.siblingKeys`).
 */
export function checkGraphOptions(d: Diagnostics, path: string, o: GraphOptions, siblingKeys: readonly string[] = []): DynamoRelease | undefined {
  checkKnownKeys(d, path, o, [...GRAPH_OPTION_KEYS, ...siblingKeys]);
  checkModel(d, join(path, 'model'), o.model);
  const backendOk = checkBackend(d, join(path, 'backend'), o.backend);
  const version = dynamoVersionOf(o);
  const release = lookupRelease(d, join(path, 'dynamoVersion'), version);
  if (backendOk) o.backend._validate(d, join(path, 'backend'), release, version);
  checkServedModelName(d, join(path, 'servedModelName'), o.servedModelName);
  checkString(d, join(path, 'image'), o.image);
  if (o.image !== undefined && backendOk && o.backend.options.image !== undefined) {
    d.error(join(path, 'image'), `is set, and so is backend's image ${show(o.backend.options.image)}; set only one`, 'option-conflict');
  }
  if (o.image !== undefined && backendOk && o.backend.options.cuda !== undefined) {
    d.error(join(path, 'image'), `is set, so backend's cuda (${show(o.backend.options.cuda)}) would select nothing; remove one of them`, 'option-conflict');
  }
  checkOneOf(d, join(path, 'imagePullPolicy'), o.imagePullPolicy, IMAGE_PULL_POLICIES);
  checkNameRefs(d, join(path, 'imagePullSecrets'), o.imagePullSecrets);
  checkNameRef(d, join(path, 'hfTokenSecret'), o.hfTokenSecret);
  checkModelCacheRef(d, join(path, 'modelCache'), o.modelCache);
  if (o.fabric !== undefined) {
    if (o.fabric instanceof Fabric) o.fabric._validate(d, join(path, 'fabric'));
    else d.error(join(path, 'fabric'), `must be Fabric.rdma(), Fabric.efa() or Fabric.tcp(), got ${show(o.fabric)}`, 'value-type');
  }
  checkEnvMap(d, join(path, 'env'), o.env);
  checkBoolean(d, join(path, 'trustRemoteCode'), o.trustRemoteCode);
  checkPodInfoFields(d, join(path, 'podInfoEnv'), o.podInfoEnv);
  checkStringMap(d, join(path, 'labels'), o.labels);
  checkStringMap(d, join(path, 'annotations'), o.annotations);
  checkBoolean(d, join(path, 'rehearsal'), o.rehearsal);
  checkPodSecurity(d, path, o);
  checkGraphPlacement(d, path, o, release);
  if (checkOneOf(d, join(path, 'updateStrategy'), o.updateStrategy, UPDATE_STRATEGIES) && o.updateStrategy !== undefined && release && !release.updateStrategyAnnotation) {
    d.error(join(path, 'updateStrategy'), `is set, but Dynamo ${release.line}.x reads no update strategy (the annotation came with 1.6); leave it out`, 'option-conflict');
  }
  return release;
}

/**
 * Checks `podSecurity`: one of the levels, and not `restricted` where a fabric gives the workers
 * IPC_LOCK (Pod Security "restricted" admits no capability but NET_BIND_SERVICE).
 */
function checkPodSecurity(d: Diagnostics, path: string, o: GraphOptions): void {
  if (!checkOneOf(d, join(path, 'podSecurity'), o.podSecurity, POD_SECURITY_LEVELS)) return;
  const fabric = o.fabric instanceof Fabric ? o.fabric.kind : 'tcp';
  if (o.podSecurity === 'restricted' && fabric !== 'tcp' && o.rehearsal !== true) {
    d.error(
      join(path, 'podSecurity'),
      `is "restricted", but Fabric.${fabric}() adds IPC_LOCK to the workers (NIXL needs it to register memory with the NIC), which Pod Security "restricted" and "baseline" refuse; use "hardened" in a namespace that admits IPC_LOCK (Pod Security "privileged"), or Fabric.tcp()`,
      'option-conflict',
    );
  }
}

/** Checks one component on its own (without the rest of the graph). */
export function checkComponent(d: Diagnostics, c: ComponentSpec, backend: Backend | undefined, release: DynamoRelease | undefined): void {
  if (c.kind === 'worker' && c.options === undefined) {
    d.error(c.path, `is required: the ${c.role} worker pool, e.g. { replicas: 1, tensorParallelSize: 1 }`, 'required');
    return;
  }
  if (!isPlainObject(c.options)) {
    d.error(c.path, `must be an object of options, got ${show(c.options)}`, 'value-type');
    return;
  }
  const named = c.kind === 'worker' && c.options?.serviceName !== undefined;
  checkServiceName(d, named ? join(c.path, 'serviceName') : c.path, c.name);
  if (c.kind === 'frontend') checkFrontend(d, c.path, c.options, release);
  else if (c.kind === 'planner') checkGraphPlanner(d, c.path, c.options, release);
  else checkWorker(d, c.path, c.options!, backend, release);
}

function frontendOf(spec: GraphSpec) {
  return spec.components.find((c) => c.kind === 'frontend' && isPlainObject(c.options)) as Extract<ComponentSpec, { kind: 'frontend' }> | undefined;
}

type WorkerComponent = Extract<ComponentSpec, { kind: 'worker' }> & { readonly options: WorkerOptions };

/** The workers of a graph that have options (a missing required pool is reported by `checkComponent`). */
function workersOf(spec: GraphSpec): WorkerComponent[] {
  return spec.components.filter((c): c is WorkerComponent => c.kind === 'worker' && isPlainObject(c.options));
}

/** The block size each worker runs with, explicit or the backend's default. */
function effectiveBlockSize(backend: Backend, o: WorkerOptions): number | undefined {
  return o.blockSize ?? backend._renderer.defaultBlockSize;
}

/**
 * Checks every option of a graph. The rules that cross services (block
 * sizes, fabrics, budgets...) run on the rendered graph, in `renderGraph`.
 */
export function checkGraph(d: Diagnostics, spec: GraphSpec, options: RenderOptions = {}): DynamoRelease | undefined {
  checkDnsLabel(d, join(spec.path, 'name'), spec.name, '; pass `name` to choose the DynamoGraphDeployment name');
  if (spec.namespace !== undefined) checkDnsLabel(d, join(spec.path, 'namespace'), spec.namespace);
  let release: DynamoRelease | undefined;
  if (options.partsChecked) {
    release = lookupRelease(d, join(spec.path, 'dynamoVersion'), dynamoVersionOf(spec.options));
  } else {
    release = checkGraphOptions(d, spec.path, spec.options, spec.siblingKeys);
    const backend = spec.options.backend instanceof Backend ? spec.options.backend : undefined;
    for (const c of spec.components) checkComponent(d, c, backend, release);
  }

  // unique case-insensitively: pods are named after the lowercased service name, and 1.x refuses it
  const names = new Map<string, { name: string; path: string }>();
  for (const c of spec.components) {
    if (typeof c.name !== 'string') continue;
    const seen = names.get(c.name.toLowerCase());
    if (seen === undefined) names.set(c.name.toLowerCase(), { name: c.name, path: c.path });
    else if (seen.name === c.name) d.error(c.path, `uses service name ${show(c.name)}, already used by ${seen.path}; service names must be unique`, 'duplicate-service');
    else {
      d.error(
        c.path,
        `uses service name ${show(c.name)}, which differs only in case from ${show(seen.name)} (${seen.path}); service names must be unique case-insensitively (pods are named after the lowercased name, and the 1.x API refuses it)`,
        'duplicate-service',
      );
    }
  }
  return release;
}

function resolveContext(spec: GraphSpec, release: DynamoRelease): GraphContext {
  const o = spec.options;
  const version = dynamoVersionOf(o);
  const router = frontendOf(spec)?.options.router ?? Router.roundRobin();
  const workers = workersOf(spec);
  // (only valid sizes: a draft of invalid options must not announce one)
  const blockSizes = workers.map((w) => effectiveBlockSize(o.backend, w.options)).filter((s): s is number => Number.isInteger(s) && (s as number) > 0);
  return {
    name: spec.name,
    namespace: spec.namespace,
    model: o.model,
    servedModelName: o.servedModelName,
    backend: o.backend,
    dynamoVersion: version,
    release,
    image: o.image ?? o.backend._image(release, version),
    workerImage: workerImageOf(o.fabric, o.backend, o.image, release, version),
    priorityClassName: o.priorityClassName,
    imagePullPolicy: o.imagePullPolicy ?? 'IfNotPresent',
    imagePullSecrets: (o.imagePullSecrets ?? []).map(nameOf),
    hfTokenSecret: o.hfTokenSecret !== undefined ? nameOf(o.hfTokenSecret) : undefined,
    modelCache: o.modelCache ? modelCacheMount(o.modelCache.claimName, o.modelCache.mountPath) : undefined,
    fabric: o.fabric ?? Fabric.tcp(),
    trustRemoteCode: o.trustRemoteCode ?? false,
    podInfoEnv: o.podInfoEnv ?? POD_INFO_FIELDS,
    router,
    routerBlockSize: router.mode === 'kv' ? (router.options.blockSize ?? blockSizes[0]) : undefined,
    planned: spec.components.some((c) => c.kind === 'planner'),
    rehearsal: o.rehearsal === true,
    podSecurity: o.podSecurity ?? DEFAULT_POD_SECURITY,
  };
}

function kvEventsFor(router: Router): KvEventsMode {
  if (router.mode !== 'kv') return 'backend-default';
  return router.publishesKvEvents ? 'publish' : 'suppress';
}

export interface RenderOptions {
  /**
   * The graph options and each component's options were checked already (by
   * the constructs, as they were created): check only what crosses them.
   * @default false
   */
  readonly partsChecked?: boolean;
}

/**
 * Checks a graph's options and, when they have errors, adds what the rules
 * find on a draft rendered from them, so that every problem shows at once.
 * An unsupported version is one of those problems: the draft then keeps what
 * the rules find whatever the release (`findingsOnEveryRelease`).
 * Returns the release when the version is supported.
 */
export function checkGraphWithDraft(d: Diagnostics, spec: GraphSpec, options: RenderOptions = {}): DynamoRelease | undefined {
  const release = checkGraph(d, spec, options);
  if (d.errors.length === 0) return release;
  // findings are located by service name: without valid names there is nothing to point at
  const named = spec.components.every((c) => typeof c.name === 'string' && c.name !== '');
  const locate = optionLocator(spec);
  const draftOf = (s: GraphSpec, r: DynamoRelease) => {
    const draft = buildGraph(new Diagnostics(), s, r);
    return checkGraphManifest(draft.graph, draft.configMaps, { release: r, apiVersion: r.apiVersion });
  };
  reportDraftFindings(
    d,
    () => {
      if (!named) return undefined;
      if (release) return draftOf(spec, release);
      return findingsOnEveryRelease((r, version) => draftOf({ ...spec, options: { ...spec.options, dynamoVersion: version } }, r), locate);
    },
    locate,
    spec.components.map((c) => c.path),
  );
  return release;
}

/**
 * What the rules find on a draft whatever the release, for options whose version is
 * unsupported: the draft is rendered for every supported release (a version of its line),
 * and a finding is kept when each of them makes it, with the same rule and message, at the
 * same option (`locate`). What depends on the release (flags, fields, defaults, images)
 * differs between them and is left out. Throws when a draft does not render.
 */
export function findingsOnEveryRelease(draft: (release: DynamoRelease, version: string) => readonly Finding[], locate: (f: Finding) => string): Finding[] {
  const key = (f: Finding) => `${f.rule}\u0000${locate(f)}\u0000${f.message}`;
  let kept: Finding[] | undefined;
  for (const release of Object.values(RELEASES)) {
    const found = draft(release, `${release.line}.0`);
    if (kept === undefined) kept = [...found];
    else {
      const keys = new Set(found.map(key));
      kept = kept.filter((f) => keys.has(key(f)));
    }
  }
  return kept ?? [];
}

/** GPUs per engine of the graph's prefill and decode workers (across their nodes). */
function engineGpusOf(spec: GraphSpec): EngineGpus {
  const of = (role: 'prefill' | 'decode') => {
    const w = spec.components.find((c) => c.kind === 'worker' && c.role === role);
    return w?.kind === 'worker' && w.options !== undefined ? workerShape(w.options).gpus : undefined;
  };
  return { prefill: of('prefill'), decode: of('decode') };
}

/** Validates a graph and renders its DynamoGraphDeployment and ConfigMaps. */
export function renderGraph(spec: GraphSpec, options: RenderOptions = {}): RenderedGraph {
  const d = new Diagnostics();
  const release = checkGraphWithDraft(d, spec, options);
  d.throwIfErrors();
  const { graph, configMaps, ctx } = buildGraph(d, spec, release!);
  d.throwIfErrors();
  // the rules `dynamo-constructs lint` runs, on what would be deployed (normalized), reported at the options
  reportFindings(d, checkGraphManifest(graph, configMaps, { release: release!, apiVersion: release!.apiVersion }), optionLocator(spec));
  d.throwIfErrors();
  return { graph: writeGraph(graph, ctx), configMaps, warnings: dedupe(d.warnings) };
}

/**
 * The graph in the library's normalized layout (what the rules read), and the
 * ConfigMaps its services mount.
 */
function buildGraph(d: Diagnostics, spec: GraphSpec, release: DynamoRelease): { graph: KubeObject; configMaps: KubeObject[]; ctx: GraphContext } {
  const ctx = resolveContext(spec, release);
  const services: Record<string, DgdService> = {};
  const configMaps: KubeObject[] = [];
  for (const c of spec.components) {
    if (c.kind === 'frontend') {
      services[c.name] = renderFrontend(ctx, c.options);
    } else if (c.kind === 'planner') {
      // told the GPUs per engine of the workers it scales (as the engines have them, in a rehearsal too)
      const r = renderPlanner(ctx, c.name, c.options, engineGpusOf(spec));
      services[c.name] = r.service;
      if (r.configMap) configMaps.push(r.configMap);
    } else {
      const options = c.options ?? {};
      const r = renderWorker(ctx, c.name, c.role, options, kvEventsFor(ctx.router));
      // extra flags may not repeat what the library rendered
      checkExtraArgs(d, c.path, ctx.backend, r.generatedArgs, options.extraArgs);
      services[c.name] = r.service;
      if (r.configMap) configMaps.push(r.configMap);
    }
  }
  // every component, as rendered, in one place: what the rules and both API versions see
  for (const name of Object.keys(services)) services[name] = secureService(services[name], ctx.podSecurity);
  const o = spec.options;
  // services are pruned as they render
  const graph: KubeObject = {
    // the normalized layout is v1alpha1's; writeGraph gives it the release's API version
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeployment',
    metadata: prune({ name: spec.name, namespace: spec.namespace, labels: o.labels, annotations: graphAnnotations(o) }),
    spec: {
      ...prune({
        backendFramework: o.backend.name,
        envs: envMapToList(o.env),
        pvcs: ctx.modelCache ? [{ name: ctx.modelCache.claimName, create: false }] : undefined,
        topologyConstraint: o.topologyConstraint,
      }),
      ...(Object.keys(services).length > 0 ? { services } : {}),
    },
  };
  return { graph, configMaps, ctx };
}

/** Writes a normalized graph in the API version of its release. */
function writeGraph(graph: KubeObject, ctx: GraphContext): KubeObject {
  return GRAPH_FORMATS[ctx.release.apiVersion].write(graph, { runtimeVersion: runtimeVersionOf(ctx.dynamoVersion) });
}

/**
 * The annotations of a graph's DynamoGraphDeployment: the user's, and Grove's
 * update strategy, set explicitly on releases that read one (their defaults
 * are documented inconsistently).
 */
export function graphAnnotations(o: GraphOptions): Record<string, string> | undefined {
  const release = RELEASES[dynamoVersionOf(o).split('.').slice(0, 2).join('.')];
  const key = release?.updateStrategyAnnotation;
  const annotations = { ...(key ? { [key]: o.updateStrategy ?? DEFAULT_UPDATE_STRATEGY } : {}), ...(o.annotations ?? {}) };
  return Object.keys(annotations).length > 0 ? annotations : undefined;
}

/**
 * Where a finding in the rendered graph points among the options that
 * produced it. A flag or an engine config key the user passed through
 * `extraArgs` or `engineConfig` is reported there, not at the option the
 * library would have rendered it from.
 */
export function optionLocator(spec: GraphSpec): (f: Finding) => string {
  const components = new Map(spec.components.map((c) => [c.name, c]));
  return (f) => {
    const option = f.option ?? f.field;
    if (option.startsWith('graph:')) return join(spec.path, option.slice('graph:'.length));
    if (f.service === undefined) return join(spec.path, option);
    const c = components.get(f.service);
    const base = c?.path ?? f.service;
    const given = (isPlainObject(c?.options) ? c!.options : {}) as Record<string, unknown>;
    if (option !== '' && given[option.split('.')[0]] === undefined) {
      const flag = /\[(-[^\]]+)\]$/.exec(f.field)?.[1];
      const extraArgs = Array.isArray(given.extraArgs) ? (given.extraArgs as unknown[]) : [];
      if (flag && extraArgs.some((a) => a === flag || (typeof a === 'string' && a.startsWith(`${flag}=`)))) return join(base, 'extraArgs');
      if (f.field.startsWith('engineConfig.') && at(given.engineConfig, f.field.slice('engineConfig.'.length)) !== undefined) return join(base, f.field);
    }
    return option === '' ? base : join(base, option);
  };
}
