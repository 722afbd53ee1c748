import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { FrontendOptions } from '../core';
import { DynamoGraph } from './graph';

export interface FrontendProps extends FrontendOptions {}

/**
 * The graph's OpenAI-compatible frontend (`componentType: frontend`). The
 * construct id is the service name, conventionally `Frontend`.
 */
export class Frontend extends Construct {
  /** The service name (`spec.services` key, or `spec.components[].name` on v1beta1). */
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
