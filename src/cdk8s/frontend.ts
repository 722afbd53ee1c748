import { FrontendOptions } from '../core/internal';
import { GraphComponent } from './component';
import { DynamoGraph } from './graph';

export interface FrontendProps extends FrontendOptions {}

/**
 * The graph's OpenAI-compatible frontend (1.x: a component of `type: frontend`; 0.8/0.9:
 * `componentType: frontend`). The construct id is the service name, conventionally `Frontend`.
 */
export class Frontend extends GraphComponent {
  constructor(graph: DynamoGraph, id: string, props: FrontendProps = {}) {
    super(graph, id, id);
    const component = { kind: 'frontend' as const, name: id, path: graph._optionPaths.get(id) ?? id, options: props };
    graph._checkComponent(component, props);
    graph._addComponent(component);
  }
}
