/**
 * The processes a set of manifests starts, as Dynamo's parsers see them: for
 * every service of a DynamoGraphDeployment, the module its main container
 * runs, the argument list, the environment Kubernetes gives it (literal
 * values), and the files mounted from ConfigMaps among the objects (the
 * TensorRT-LLM engine configs Dynamo reads).
 */
import { versionOfImage } from '../../src/core/internal';

/** What a process is, by the module it runs; the conformance checker has one entry point per kind. */
export type ProcessKind = 'frontend' | 'vllm' | 'sglang' | 'trtllm' | 'planner' | 'mocker' | 'dgdr-planner' | 'dgdr';

const MODULES: Record<string, ProcessKind> = {
  'dynamo.frontend': 'frontend',
  'dynamo.vllm': 'vllm',
  'dynamo.sglang': 'sglang',
  'dynamo.trtllm': 'trtllm',
  'dynamo.mocker': 'mocker',
  planner_sla: 'planner',
  'dynamo.planner.planner_sla': 'planner',
  'dynamo.planner': 'planner',
};

export interface Process {
  /** `<source>/<graph>/<service>`. */
  readonly id: string;
  /** The Dynamo release the process runs (from its image tag). */
  readonly dynamoVersion: string;
  readonly process: ProcessKind;
  readonly module: string;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Files mounted into the container from ConfigMaps among the objects, by path. */
  readonly files: Readonly<Record<string, string>>;
  /** `dgdr-planner`: the planner section of a v1alpha1 request's profiler config. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** `dgdr`: a v1beta1 request's spec, checked against the release's own request types. */
  readonly spec?: Readonly<Record<string, unknown>>;
}

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The services of a graph of either API version: name, pod spec, main container and service-level env. */
function servicesOf(graph: Obj): { name: string; pod: Obj; container: Obj; env: unknown[] }[] {
  const spec = isObj(graph.spec) ? graph.spec : {};
  if (Array.isArray(spec.components)) {
    return spec.components.filter(isObj).map((c) => {
      const pod = isObj(c.podTemplate?.spec) ? c.podTemplate.spec : {};
      const containers: Obj[] = Array.isArray(pod.containers) ? pod.containers.filter(isObj) : [];
      return { name: String(c.name), pod, container: containers.find((x) => x.name === 'main') ?? {}, env: [] };
    });
  }
  return Object.entries(isObj(spec.services) ? spec.services : {}).map(([name, s]) => {
    const svc = isObj(s) ? s : {};
    const pod = isObj(svc.extraPodSpec) ? svc.extraPodSpec : {};
    return { name, pod, container: isObj(pod.mainContainer) ? pod.mainContainer : {}, env: Array.isArray(svc.envs) ? svc.envs : [] };
  });
}

function literalEnv(...lists: unknown[][]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const list of lists) {
    for (const e of list) {
      if (isObj(e) && typeof e.name === 'string' && typeof e.value === 'string') env[e.name] = e.value;
    }
  }
  return env;
}

/** Files the container sees from ConfigMap volumes whose ConfigMap is among `objects`. */
function mountedFiles(pod: Obj, container: Obj, configMaps: Map<string, Obj>): Record<string, string> {
  const files: Record<string, string> = {};
  const volumes: Obj[] = Array.isArray(pod.volumes) ? pod.volumes.filter(isObj) : [];
  const mounts: Obj[] = Array.isArray(container.volumeMounts) ? container.volumeMounts.filter(isObj) : [];
  for (const m of mounts) {
    const name = volumes.find((v) => v.name === m.name)?.configMap?.name;
    const data = typeof name === 'string' ? configMaps.get(name)?.data : undefined;
    if (!isObj(data)) continue;
    const dir = String(m.mountPath).replace(/\/$/, '');
    for (const [key, value] of Object.entries(data)) {
      if (typeof value !== 'string') continue;
      if (typeof m.subPath === 'string') {
        if (m.subPath === key) files[dir] = value;
      } else {
        files[`${dir}/${key}`] = value;
      }
    }
  }
  return files;
}

/**
 * Every process the graphs among `objects` start. `defaultVersion` applies to
 * a service whose image carries no release tag. A command line the reader
 * cannot take apart is an error: the checker must never skip a process.
 */
export function processesOf(source: string, objects: readonly unknown[], defaultVersion: string): Process[] {
  const configMaps = new Map<string, Obj>();
  for (const o of objects) if (isObj(o) && o.kind === 'ConfigMap' && isObj(o.metadata)) configMaps.set(String(o.metadata.name), o);
  const out: Process[] = [];
  for (const request of objects) {
    if (!isObj(request) || request.kind !== 'DynamoGraphDeploymentRequest') continue;
    if (request.apiVersion === 'nvidia.com/v1beta1') {
      out.push({
        id: `${source}/${request.metadata?.name}/spec`,
        dynamoVersion: versionOfImage(request.spec?.image) ?? (typeof request.spec?.runtimeVersionOverride === 'string' ? request.spec.runtimeVersionOverride : defaultVersion),
        process: 'dgdr',
        module: 'DynamoGraphDeploymentRequest',
        argv: [],
        env: {},
        files: {},
        spec: request.spec,
      });
      continue;
    }
    // a v1alpha1 request hands its planner settings to the profiler, which starts the planner with them
    const planner = request.spec?.profilingConfig?.config?.planner;
    if (!isObj(planner)) continue;
    out.push({
      id: `${source}/${request.metadata?.name}/profilingConfig.config.planner`,
      dynamoVersion: versionOfImage(request.spec?.profilingConfig?.profilerImage) ?? defaultVersion,
      process: 'dgdr-planner',
      module: 'planner_sla',
      argv: [],
      env: {},
      files: {},
      config: planner,
    });
  }
  for (const graph of objects) {
    if (!isObj(graph) || graph.kind !== 'DynamoGraphDeployment') continue;
    const graphEnv: unknown[] = Array.isArray(graph.spec?.envs) ? graph.spec.envs : Array.isArray(graph.spec?.env) ? graph.spec.env : [];
    for (const s of servicesOf(graph)) {
      const id = `${source}/${graph.metadata?.name}/${s.name}`;
      const command: unknown[] = Array.isArray(s.container.command) ? s.container.command : [];
      // (the 1.x templates write the frontend as command [python3], args [-m, dynamo.frontend])
      const args: unknown[] = Array.isArray(s.container.args) ? s.container.args : [];
      const words = [...command, ...args];
      if (words.some((w) => typeof w !== 'string')) throw new Error(`${id}: command and args must be strings`);
      let module: string | undefined;
      let argv: string[];
      if (command.length === 0 && args.length === 0) {
        // no command line: the operator starts the frontend's own default
        module = 'dynamo.frontend';
        argv = [];
      } else if (/(^|\/)python3?$/.test(String(words[0])) && words[1] === '-m') {
        module = String(words[2]);
        argv = (words as string[]).slice(3);
      } else {
        throw new Error(`${id}: cannot read the command line ${JSON.stringify(words)}; expected python3 -m <module> ...`);
      }
      const kind = MODULES[module];
      if (!kind) throw new Error(`${id}: runs ${module}, which the conformance checker does not know`);
      out.push({
        id,
        dynamoVersion: versionOfImage(s.container.image) ?? defaultVersion,
        process: kind,
        module,
        argv,
        env: literalEnv(graphEnv, s.env, Array.isArray(s.container.env) ? s.container.env : []),
        files: mountedFiles(s.pod, s.container, configMaps),
      });
    }
  }
  return out;
}
