import { PlannerOptions } from '../core/internal';
import { GraphComponent } from './component';
import { DynamoGraph } from './graph';

export interface PlannerProps extends PlannerOptions {}

/**
 * The SLA planner of a disaggregated graph (1.x: `type: planner`; 0.8/0.9: `componentType: planner`): scales
 * the prefill and decode workers to meet `ttftMs` and `itlMs` within
 * `maxGpuBudget`. The construct id is the service name, conventionally `Planner`.
 */
export class Planner extends GraphComponent {
  constructor(graph: DynamoGraph, id: string, props: PlannerProps) {
    super(graph, id, id);
    const component = { kind: 'planner' as const, name: id, path: graph._optionPaths.get(id) ?? id, options: props };
    graph._checkComponent(component, props);
    this.apiObjects.push(...graph._componentConfigMaps(this, 'Config', component));
    graph._addComponent(component, this.apiObjects);
  }
}
