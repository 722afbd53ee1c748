import * as pulumi from '@pulumi/pulumi';
import { ComponentSpec, PlannerOptions } from '../core/internal';
import { childOptions } from './common';
import { GraphComponent } from './component';
import { DynamoGraph } from './graph';

export interface PlannerArgs extends PlannerOptions {
  /** The graph this planner scales. */
  readonly graph: DynamoGraph;
  /**
   * The service name (1.x: `spec.components[].name`; 0.8/0.9: the key under `spec.services`).
   * @default - the component name
   */
  readonly serviceName?: string;
}

/** The SLA planner of a disaggregated graph (1.x: a component of `type: planner`; 0.8/0.9: `componentType: planner`). */
export class Planner extends GraphComponent {
  /** On Dynamo 1.x, the ConfigMap of the planner's PlannerConfig, which it mounts. */
  public readonly config?: pulumi.CustomResource;

  constructor(name: string, args: PlannerArgs, opts?: pulumi.ComponentResourceOptions) {
    super('Planner', name, args?.graph, args?.serviceName ?? name, opts);
    const { graph, serviceName: _serviceName, ...options } = args;
    const component: ComponentSpec = { kind: 'planner', name: this.serviceName, path: graph._optionPaths.get(this.serviceName) ?? this.serviceName, options };
    graph._checkComponent(component, args);
    this.config = graph._componentConfigMap(`${name}-config`, component, childOptions(this, opts));
    graph._addComponent(component, this.config ? [this.config] : []);
    this.registerOutputs({ serviceName: this.serviceName });
  }
}
