import * as pulumi from '@pulumi/pulumi';
import { ComponentSpec, FrontendOptions } from '../core/internal';
import { GraphComponent } from './component';
import { DynamoGraph } from './graph';

export interface FrontendArgs extends FrontendOptions {
  /** The graph this frontend belongs to. */
  readonly graph: DynamoGraph;
  /**
   * The service name (1.x: `spec.components[].name`; 0.8/0.9: the key under `spec.services`).
   * @default - the component name
   */
  readonly serviceName?: string;
}

/** The graph's OpenAI-compatible frontend (1.x: a component of `type: frontend`; 0.8/0.9: `componentType: frontend`). */
export class Frontend extends GraphComponent {
  constructor(name: string, args: FrontendArgs, opts?: pulumi.ComponentResourceOptions) {
    super('Frontend', name, args?.graph, args?.serviceName ?? name, opts);
    const { graph, serviceName: _serviceName, ...options } = args;
    const component: ComponentSpec = { kind: 'frontend', name: this.serviceName, path: graph._optionPaths.get(this.serviceName) ?? this.serviceName, options };
    graph._checkComponent(component, args);
    graph._addComponent(component);
    this.registerOutputs({ serviceName: this.serviceName });
  }
}
