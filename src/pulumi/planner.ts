import * as pulumi from '@pulumi/pulumi';
import { ComponentSpec, PlannerOptions } from '../core';
import { typeToken } from './common';
import { DynamoGraph } from './graph';

export interface PlannerArgs extends PlannerOptions {
  /** The graph this planner scales. */
  readonly graph: DynamoGraph;
  /**
   * The service name (key under `spec.services`).
   * @default - the component name
   */
  readonly serviceName?: string;
}

/** The SLA planner of a disaggregated graph (`componentType: planner`). */
export class Planner extends pulumi.ComponentResource {
  /** The service name: the key under `spec.services`. */
  public readonly serviceName: string;

  constructor(name: string, args: PlannerArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('Planner'), name, {}, { parent: args?.graph, ...opts });
    const { graph, serviceName, ...options } = args;
    this.serviceName = serviceName ?? name;
    const component: ComponentSpec = { kind: 'planner', name: this.serviceName, path: graph._optionPaths.get(this.serviceName) ?? this.serviceName, options };
    graph._checkComponent(component, args);
    graph._addComponent(component);
    this.registerOutputs({ serviceName: this.serviceName });
  }
}
