import { ApiObject, ApiObjectProps } from 'cdk8s';
import { Construct } from 'constructs';

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
