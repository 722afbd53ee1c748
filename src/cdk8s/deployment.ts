import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import {
  aggregatedGraphSpec,
  AggregatedDeploymentOptions,
  checkDeployment,
  Diagnostics,
  disaggregatedGraphSpec,
  DisaggregatedDeploymentOptions,
  GraphSpec,
  IObservable,
  markChecked,
  NameRef,
  ObservabilityOptions,
  ObservedGraph,
  ValidationWarning,
} from '../core/internal';
import { namespaceOf } from './api-object';
import { Frontend } from './frontend';
import { addObservability } from './observability';
import { DynamoGraph } from './graph';
import { Planner } from './planner';
import { DecodeWorker, PrefillWorker, Worker } from './worker';
import { StrictOptions } from './warnings';

export interface NamedProps extends StrictOptions {
  /**
   * `metadata.name` of the DynamoGraphDeployment.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Namespace of the deployment's objects, by name or as an object (e.g. a cdk8s-plus `Namespace`).
   * @default - the chart's namespace
   */
  readonly namespace?: NameRef;
}

/** The props a deployment takes beside its options: listed with them when an option is misspelt. */
const NAMED_KEYS: readonly (keyof NamedProps)[] = ['name', 'namespace', 'strict'];

export interface DisaggregatedDeploymentProps extends DisaggregatedDeploymentOptions, NamedProps {}
export interface AggregatedDeploymentProps extends AggregatedDeploymentOptions, NamedProps {}

type Services = { frontend?: Frontend; prefill?: PrefillWorker; decode?: DecodeWorker; workers?: Worker; planner?: Planner };

/**
 * Validates a whole deployment at once (so every problem is listed together),
 * then builds it from the lower-level constructs: one code path for both APIs.
 */
function compose(scope: Construct, spec: GraphSpec, strict: boolean | undefined, observability: ObservabilityOptions | undefined): { graph: DynamoGraph } & Services {
  const d = new Diagnostics();
  checkDeployment(d, spec, observability);
  d.throwIfErrors();
  // validated above: the graph and its components skip checking the same options again
  const graph = new DynamoGraph(scope, 'Graph', markChecked({ name: spec.name, namespace: spec.namespace, strict, ...spec.options }));
  const out: { graph: DynamoGraph } & Services = { graph };
  for (const c of spec.components) graph._optionPaths.set(c.name, c.path);
  for (const c of spec.components) {
    if (c.kind === 'frontend') out.frontend = new Frontend(graph, c.name, markChecked({ ...c.options }));
    else if (c.kind === 'planner') out.planner = new Planner(graph, c.name, markChecked({ ...c.options }));
    else if (c.role === 'prefill') out.prefill = new PrefillWorker(graph, c.name, markChecked({ ...c.options }));
    else if (c.role === 'decode') out.decode = new DecodeWorker(graph, c.name, markChecked({ ...c.options }));
    else out.workers = new Worker(graph, c.name, markChecked({ ...c.options }));
  }
  addObservability(scope, graph, observability);
  return out;
}

function splitNamed<T extends NamedProps>(scope: Construct, id: string, props: T) {
  const { name, namespace, strict, ...options } = props ?? ({} as T);
  return { name: name ?? id, namespace: namespaceOf(scope, namespace), strict, options };
}

/**
 * A disaggregated deployment (guide 2): a frontend, prefill workers and decode
 * workers in one DynamoGraphDeployment, with the model cache, fabric and
 * router wired into every service that needs them.
 */
export class DisaggregatedDeployment extends Construct implements IObservable {
  /** The graph; `graph.apiObject` is the DynamoGraphDeployment. */
  public readonly graph: DynamoGraph;
  public readonly frontend: Frontend;
  public readonly prefill: PrefillWorker;
  public readonly decode: DecodeWorker;
  /** The SLA planner, when `planner` is set. */
  public readonly planner?: Planner;

  constructor(scope: Construct, id: string, props: DisaggregatedDeploymentProps) {
    super(scope, id);
    const p = splitNamed(this, id, props);
    const built = compose(this, disaggregatedGraphSpec(p.name, p.namespace, p.options as DisaggregatedDeploymentOptions, NAMED_KEYS), p.strict, props?.observability);
    this.graph = built.graph;
    this.frontend = built.frontend!;
    this.prefill = built.prefill!;
    this.decode = built.decode!;
    this.planner = built.planner;
  }

  /** Every object the deployment synthesizes (with what `observability` adds). */
  public get apiObjects(): ApiObject[] {
    return [...this.graph.apiObjects, ...this.node.children.filter(ApiObject.isApiObject)];
  }

  /** @internal */
  public _observedGraph(): ObservedGraph {
    return this.graph._observedGraph();
  }

  /** Warnings about the deployment (legal but probably wrong). */
  public get warnings(): readonly ValidationWarning[] {
    return this.graph.warnings;
  }
}

/** An aggregated deployment: a frontend and workers that both prefill and decode (guide 3). */
export class AggregatedDeployment extends Construct implements IObservable {
  /** The graph; `graph.apiObject` is the DynamoGraphDeployment. */
  public readonly graph: DynamoGraph;
  public readonly frontend: Frontend;
  public readonly workers: Worker;

  constructor(scope: Construct, id: string, props: AggregatedDeploymentProps) {
    super(scope, id);
    const p = splitNamed(this, id, props);
    const built = compose(this, aggregatedGraphSpec(p.name, p.namespace, p.options as AggregatedDeploymentOptions, NAMED_KEYS), p.strict, props?.observability);
    this.graph = built.graph;
    this.frontend = built.frontend!;
    this.workers = built.workers!;
  }

  /** Every object the deployment synthesizes (with what `observability` adds). */
  public get apiObjects(): ApiObject[] {
    return [...this.graph.apiObjects, ...this.node.children.filter(ApiObject.isApiObject)];
  }

  /** @internal */
  public _observedGraph(): ObservedGraph {
    return this.graph._observedGraph();
  }

  /** Warnings about the deployment (legal but probably wrong). */
  public get warnings(): readonly ValidationWarning[] {
    return this.graph.warnings;
  }
}
