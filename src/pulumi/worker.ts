import * as pulumi from '@pulumi/pulumi';
import { ComponentSpec, WorkerOptions, WorkerRole } from '../core/internal';
import { childOptions } from './common';
import { GraphComponent } from './component';
import { DynamoGraph } from './graph';

export interface WorkerArgs extends WorkerOptions {
  /** The graph this worker pool belongs to. */
  readonly graph: DynamoGraph;
}

export abstract class WorkerBase extends GraphComponent {
  /** The TensorRT-LLM engine config ConfigMap, when the backend takes one. */
  public readonly engineConfig?: pulumi.CustomResource;

  protected constructor(className: string, role: WorkerRole, name: string, args: WorkerArgs, opts?: pulumi.ComponentResourceOptions) {
    super(className, name, args?.graph, args?.serviceName ?? name, opts);
    const { graph, ...options } = args;
    const component: ComponentSpec = { kind: 'worker', role, name: this.serviceName, path: graph._optionPaths.get(this.serviceName) ?? this.serviceName, options };
    // validated before anything registers
    graph._checkComponent(component, args);
    this.engineConfig = graph._componentConfigMap(`${name}-engine-config`, component, childOptions(this, opts));
    graph._addComponent(component, this.engineConfig ? [this.engineConfig] : []);
    this.registerOutputs({ serviceName: this.serviceName });
  }
}

/** Prefill workers of a disaggregated graph. */
export class PrefillWorker extends WorkerBase {
  constructor(name: string, args: WorkerArgs, opts?: pulumi.ComponentResourceOptions) {
    super('PrefillWorker', 'prefill', name, args, opts);
  }
}

/** Decode workers of a disaggregated graph. */
export class DecodeWorker extends WorkerBase {
  constructor(name: string, args: WorkerArgs, opts?: pulumi.ComponentResourceOptions) {
    super('DecodeWorker', 'decode', name, args, opts);
  }
}

/** Aggregated workers: prefill and decode in one engine. */
export class Worker extends WorkerBase {
  constructor(name: string, args: WorkerArgs, opts?: pulumi.ComponentResourceOptions) {
    super('Worker', 'aggregated', name, args, opts);
  }
}
