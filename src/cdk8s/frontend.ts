import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { FrontendOptions } from '../core';
import { DynamoGraph } from './graph';

export interface FrontendProps extends FrontendOptions {}

/**
 * The graph's OpenAI-compatible frontend (1.x: a component of `type: frontend`; 0.8/0.9:
 * `componentType: frontend`). The construct id is the service name, conventionally `Frontend`.
 */
export class Frontend extends Construct {
  /** The service name (1.x: `spec.components[].name`; 0.8/0.9: the key under `spec.services`). */
  public readonly serviceName: string;
  /** JSON pointer of this service in the graph object, for `graph.apiObject.addJsonPatch`. */
  public readonly servicePath: string;
  /** The service lives in the graph's object (`graph.apiObject`); it creates no objects of its own. */
  public readonly apiObjects: ApiObject[] = [];

  constructor(graph: DynamoGraph, id: string, props: FrontendProps = {}) {
    super(graph, id);
    this.serviceName = id;
    this.servicePath = graph._nextServicePath(id);
    const component = { kind: 'frontend' as const, name: id, path: graph._optionPaths.get(id) ?? id, options: props };
    graph._checkComponent(component, props);
    graph._addComponent(component);
  }
}
