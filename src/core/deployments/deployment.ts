import { Backend, WorkerRole } from '../engines/backend';
import { optionKeys } from '../base/checks';
import { FrontendOptions } from '../graph/frontend';
import { checkGraphWithDraft, ComponentSpec, GraphOptions, GraphSpec } from '../graph/graph';
import { Diagnostics } from '../base/errors';
import { checkObservability, ObservabilityOptions, observedGraphOf } from '../observability/observability';
import { DynamoRelease } from '../releases/versions';
import { PlannerOptions } from '../graph/planner';
import { defaultWorkerServiceName, WorkerOptions } from '../graph/worker';

/** The service name of the frontend in the deployments. */
export const FRONTEND_SERVICE_NAME = 'Frontend';
/** The service name of the planner in the deployments. */
export const PLANNER_SERVICE_NAME = 'Planner';

/** Options common to whole deployments. */
export interface DeploymentOptions extends GraphOptions {
  /**
   * The frontend and its router.
   * @default - one replica, round-robin routing
   */
  readonly frontend?: FrontendOptions;
  /**
   * Dashboards, SLA alerts and PodMonitors for this deployment, in one option.
   * @default - none
   */
  readonly observability?: ObservabilityOptions;
}

/** A disaggregated graph: a frontend, prefill workers and decode workers (guide 2). */
export interface DisaggregatedDeploymentOptions extends DeploymentOptions {
  /** Prefill workers: low batch (1-4), TP1-TP2 (guide 2). */
  readonly prefill: WorkerOptions;
  /** Decode workers: high batch (256-1024). */
  readonly decode: WorkerOptions;
  /**
   * An SLA planner that scales prefill and decode workers to meet `ttftMs` and `itlMs`.
   * @default - no planner: replicas stay as configured
   */
  readonly planner?: PlannerOptions;
}

/** An aggregated graph: a frontend and workers that both prefill and decode. */
export interface AggregatedDeploymentOptions extends DeploymentOptions {
  /** The workers. */
  readonly workers: WorkerOptions;
}

/** The graph-wide options of a deployment: everything but its own component keys. */
function graphOptions(o: DeploymentOptions, own: readonly string[]): GraphOptions {
  const graph: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o ?? {})) if (!own.includes(k)) graph[k] = v;
  return graph as unknown as GraphOptions;
}

function worker(o: DeploymentOptions, role: WorkerRole, path: string, options: WorkerOptions | undefined): ComponentSpec {
  // without a valid backend (reported by checkGraph) the role stands in for the default name
  const fallback = o?.backend instanceof Backend ? defaultWorkerServiceName(o.backend, role) : role;
  return { kind: 'worker', role, path, name: options?.serviceName ?? fallback, options };
}

function frontend(o: DeploymentOptions): ComponentSpec {
  // an explicit null is reported as an error, not read as "default frontend"
  return { kind: 'frontend', name: FRONTEND_SERVICE_NAME, path: 'frontend', options: o?.frontend === undefined ? {} : o.frontend };
}

/** The keys of a disaggregated deployment's options that are not graph options. */
const DISAGGREGATED_KEYS = optionKeys<Omit<DisaggregatedDeploymentOptions, keyof GraphOptions>>()('frontend', 'prefill', 'decode', 'planner', 'observability');
/** The keys of an aggregated deployment's options that are not graph options. */
const AGGREGATED_KEYS = optionKeys<Omit<AggregatedDeploymentOptions, keyof GraphOptions>>()('frontend', 'workers', 'observability');

/**
 * The graph of a disaggregated deployment: Frontend, prefill workers, decode workers.
 * `constructKeys` are the keys the caller took out of the options before (a construct's
 * `name`, `namespace`, `strict`): a message about an unknown option lists them too.
 */
export function disaggregatedGraphSpec(name: string, namespace: string | undefined, o: DisaggregatedDeploymentOptions, constructKeys: readonly string[] = []): GraphSpec {
  return {
    name,
    namespace,
    path: '',
    options: graphOptions(o, DISAGGREGATED_KEYS),
    siblingKeys: [...DISAGGREGATED_KEYS, ...constructKeys],
    components: [
      frontend(o),
      worker(o, 'prefill', 'prefill', o?.prefill),
      worker(o, 'decode', 'decode', o?.decode),
      ...(o?.planner !== undefined ? [{ kind: 'planner' as const, name: PLANNER_SERVICE_NAME, path: 'planner', options: o.planner }] : []),
    ],
  };
}

/** The graph of an aggregated deployment: Frontend and workers. `constructKeys`: as for `disaggregatedGraphSpec`. */
export function aggregatedGraphSpec(name: string, namespace: string | undefined, o: AggregatedDeploymentOptions, constructKeys: readonly string[] = []): GraphSpec {
  return {
    name,
    namespace,
    path: '',
    options: graphOptions(o, AGGREGATED_KEYS),
    siblingKeys: [...AGGREGATED_KEYS, ...constructKeys],
    components: [frontend(o), worker(o, 'aggregated', 'workers', o?.workers)],
  };
}

/**
 * Checks a whole deployment: the graph, and its observability against the SLA
 * the graph is planned for. Returns the release when the version is supported.
 */
export function checkDeployment(d: Diagnostics, spec: GraphSpec, observability: unknown): DynamoRelease | undefined {
  // option errors and what the rules find on a draft of the graph, reported together
  const release = checkGraphWithDraft(d, spec);
  checkObservability(d, 'observability', observability, observedGraphOf(spec).sla);
  return release;
}
