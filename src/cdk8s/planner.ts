import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { PlannerOptions } from '../core';
import { DynamoGraph } from './graph';

export interface PlannerProps extends PlannerOptions {}

/**
 * The SLA planner of a disaggregated graph (1.x: `type: planner`; 0.8/0.9: `componentType: planner`): scales
 * the prefill and decode workers to meet `ttftMs` and `itlMs` within
 * `maxGpuBudget`. The construct id is the service name, conventionally `Planner`.
 */
export class Planner extends Construct {
  /** The service name (1.x: `spec.components[].name`; 0.8/0.9: the key under `spec.services`). */
  public readonly serviceName: string;
  /** JSON pointer of this service in the graph object, for `graph.apiObject.addJsonPatch`. */
  public readonly servicePath: string;
  /** Objects the planner adds beside the graph: on Dynamo 1.x, the ConfigMap of its PlannerConfig. */
  public readonly apiObjects: ApiObject[] = [];

  constructor(graph: DynamoGraph, id: string, props: PlannerProps) {
    super(graph, id);
    this.serviceName = id;
    this.servicePath = graph._nextServicePath(id);
    const component = { kind: 'planner' as const, name: id, path: graph._optionPaths.get(id) ?? id, options: props };
    graph._checkComponent(component, props);
    this.apiObjects.push(...graph._componentConfigMaps(this, 'Config', component));
    graph._addComponent(component, this.apiObjects);
  }
}
