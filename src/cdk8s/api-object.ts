import { ApiObject, ApiObjectProps, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { NameRef, nameOf } from '../core';

/**
 * An ApiObject whose content is rendered by core when synthesized. `prepare`
 * runs first, outside cdk8s's error wrapping, so that a `DynamoValidationError`
 * reaches the user unchanged.
 */
export class RenderedApiObject extends ApiObject {
  constructor(scope: Construct, id: string, props: ApiObjectProps, private readonly prepare: () => void) {
    super(scope, id, props);
  }

  public toJson(): any {
    this.prepare();
    return super.toJson();
  }
}

/** The namespace of a construct's objects: the one given (a name or a named object), else the chart's. */
export function namespaceOf(scope: Construct, namespace: NameRef | undefined): string | undefined {
  return namespace !== undefined && namespace !== null ? nameOf(namespace) : Chart.of(scope).namespace;
}
