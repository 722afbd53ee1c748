import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { PlannerOptions } from '../core';
import { DynamoGraph } from './graph';

export interface PlannerProps extends PlannerOptions {}

/**
 * The SLA planner of a disaggregated graph (`componentType: planner`): scales
 * the prefill and decode workers to meet `ttftMs` and `itlMs` within
 * `maxGpuBudget`. The construct id is the service name, conventionally `Planner`.
 */
export class Planner extends Construct {
  /** The service name: the key under `spec.services`. */
  public readonly serviceName: string;
  /** JSON pointer of this service in the graph object, for `graph.apiObject.addJsonPatch`. */
  public readonly servicePath: string;
  /** The service lives in the graph's object (`graph.apiObject`); it creates no objects of its own. */
  public readonly apiObjects: ApiObject[] = [];

  constructor(graph: DynamoGraph, id: string, props: PlannerProps) {
    super(graph, id);
    this.serviceName = id;
    this.servicePath = `/spec/services/${id}`;
    const component = { kind: 'planner' as const, name: id, path: graph._optionPaths.get(id) ?? id, options: props };
    graph._checkComponent(component, props);
    graph._addComponent(component);
  }
}
