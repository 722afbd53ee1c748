import * as pulumi from '@pulumi/pulumi';
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
  ObservabilityOptions,
  ObservedGraph,
} from '../core/internal';
import { StrictArgs, typeToken } from './common';
import { Frontend } from './frontend';
import { registerObservability } from './observability';
import { DynamoGraph } from './graph';
import { Planner } from './planner';
import { DecodeWorker, PrefillWorker, Worker } from './worker';

export interface NamedArgs extends StrictArgs {
  /**
   * `metadata.name` of the DynamoGraphDeployment.
   * @default - the component name
   */
  readonly name?: string;
  /**
   * Namespace of the deployment's objects.
   * @default - the provider's namespace
   */
  readonly namespace?: string;
}

/** The args a deployment takes beside its options: listed with them when an option is misspelt. */
const NAMED_KEYS: readonly (keyof NamedArgs)[] = ['name', 'namespace', 'strict'];

export interface DisaggregatedDeploymentArgs extends DisaggregatedDeploymentOptions, NamedArgs {}
export interface AggregatedDeploymentArgs extends AggregatedDeploymentOptions, NamedArgs {}

type Built = { graph: DynamoGraph; frontend?: Frontend; prefill?: PrefillWorker; decode?: DecodeWorker; workers?: Worker; planner?: Planner };

/**
 * Validates the whole deployment before any resource registers, then builds it
 * from the lower-level components (one code path for both APIs).
 */
function compose(
  parent: pulumi.ComponentResource,
  opts: pulumi.ComponentResourceOptions | undefined,
  componentName: string,
  spec: GraphSpec,
  strict: boolean | undefined,
  observability: ObservabilityOptions | undefined,
): Built {
  const d = new Diagnostics();
  checkDeployment(d, spec, observability);
  d.throwIfErrors();
  // the deployment's own dependsOn reaches the objects it creates
  // validated above: the graph and its components skip checking the same options again
  const graph = new DynamoGraph(componentName, markChecked({ name: spec.name, namespace: spec.namespace, strict, ...spec.options }), { parent, dependsOn: opts?.dependsOn });
  for (const c of spec.components) graph._optionPaths.set(c.name, c.path);
  const out: Built = { graph };
  for (const c of spec.components) {
    // component names are unique in the stack; the service name is the key inside the graph
    const child = `${componentName}-${c.name}`;
    const childOpts = { parent: graph, dependsOn: opts?.dependsOn };
    if (c.kind === 'frontend') out.frontend = new Frontend(child, markChecked({ graph, serviceName: c.name, ...c.options }), childOpts);
    else if (c.kind === 'planner') out.planner = new Planner(child, markChecked({ graph, serviceName: c.name, ...c.options }), childOpts);
    else if (c.role === 'prefill') out.prefill = new PrefillWorker(child, markChecked({ graph, ...c.options, serviceName: c.name }), childOpts);
    else if (c.role === 'decode') out.decode = new DecodeWorker(child, markChecked({ graph, ...c.options, serviceName: c.name }), childOpts);
    else out.workers = new Worker(child, markChecked({ graph, ...c.options, serviceName: c.name }), childOpts);
  }
  registerObservability(parent, opts, componentName, graph._observedGraph(), observability);
  return out;
}

function split<T extends NamedArgs>(name: string, args: T) {
  const { name: objectName, namespace, strict, ...options } = args ?? ({} as T);
  return { name: objectName ?? name, namespace, strict, options };
}

/** A disaggregated deployment (guide 2): frontend, prefill and decode workers, optional SLA planner. */
export class DisaggregatedDeployment extends pulumi.ComponentResource implements IObservable {
  public readonly graph: DynamoGraph;
  public readonly frontend: Frontend;
  public readonly prefill: PrefillWorker;
  public readonly decode: DecodeWorker;
  public readonly planner?: Planner;

  constructor(name: string, args: DisaggregatedDeploymentArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('DisaggregatedDeployment'), name, {}, opts);
    const a = split(name, args);
    const built = compose(this, opts, name, disaggregatedGraphSpec(a.name, a.namespace, a.options as DisaggregatedDeploymentOptions, NAMED_KEYS), a.strict, args?.observability);
    this.graph = built.graph;
    this.frontend = built.frontend!;
    this.prefill = built.prefill!;
    this.decode = built.decode!;
    this.planner = built.planner;
    this.registerOutputs({ name: a.name, namespace: a.namespace });
  }

  /** @internal */
  public _observedGraph(): ObservedGraph {
    return this.graph._observedGraph();
  }
}

/** An aggregated deployment: a frontend and workers that both prefill and decode (guide 3). */
export class AggregatedDeployment extends pulumi.ComponentResource implements IObservable {
  public readonly graph: DynamoGraph;
  public readonly frontend: Frontend;
  public readonly workers: Worker;

  constructor(name: string, args: AggregatedDeploymentArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('AggregatedDeployment'), name, {}, opts);
    const a = split(name, args);
    const built = compose(this, opts, name, aggregatedGraphSpec(a.name, a.namespace, a.options as AggregatedDeploymentOptions, NAMED_KEYS), a.strict, args?.observability);
    this.graph = built.graph;
    this.frontend = built.frontend!;
    this.workers = built.workers!;
    this.registerOutputs({ name: a.name, namespace: a.namespace });
  }

  /** @internal */
  public _observedGraph(): ObservedGraph {
    return this.graph._observedGraph();
  }
}
