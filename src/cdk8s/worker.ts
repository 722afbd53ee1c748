import { WorkerOptions, WorkerRole } from '../core/internal';
import { GraphComponent } from './component';
import { DynamoGraph } from './graph';

export interface WorkerProps extends WorkerOptions {}

/** A pool of GPU workers of one role. The construct id is the service name unless `serviceName` is set. */
export abstract class WorkerBase extends GraphComponent {
  protected constructor(graph: DynamoGraph, id: string, role: WorkerRole, props: WorkerProps) {
    super(graph, id, props?.serviceName ?? id);
    const component = { kind: 'worker' as const, role, name: this.serviceName, path: graph._optionPaths.get(this.serviceName) ?? this.serviceName, options: props };
    graph._checkComponent(component, props);

    this.apiObjects.push(...graph._componentConfigMaps(this, 'EngineConfig', component));
    graph._addComponent(component, this.apiObjects);
  }
}

/** Prefill workers of a disaggregated graph (1.x: `type: prefill`; 0.8/0.9: `subComponentType: prefill`). */
export class PrefillWorker extends WorkerBase {
  constructor(graph: DynamoGraph, id: string, props: WorkerProps = {}) {
    super(graph, id, 'prefill', props);
  }
}

/** Decode workers of a disaggregated graph (1.x: `type: decode`; 0.8/0.9: `subComponentType: decode`). */
export class DecodeWorker extends WorkerBase {
  constructor(graph: DynamoGraph, id: string, props: WorkerProps = {}) {
    super(graph, id, 'decode', props);
  }
}

/** Aggregated workers: prefill and decode in one engine. */
export class Worker extends WorkerBase {
  constructor(graph: DynamoGraph, id: string, props: WorkerProps = {}) {
    super(graph, id, 'aggregated', props);
  }
}
