import * as pulumi from '@pulumi/pulumi';
import { renderSlaPlanned, SlaPlannedDeploymentOptions } from '../core';
import { childOptions, registerObject, reportWarnings, StrictArgs, typeToken } from './common';

export interface SlaPlannedDeploymentArgs extends SlaPlannedDeploymentOptions, StrictArgs {
  /**
   * `metadata.name` of the DynamoGraphDeploymentRequest.
   * @default - the component name
   */
  readonly name?: string;
  /**
   * Namespace of the request.
   * @default - the provider's namespace
   */
  readonly namespace?: string;
}

/** An SLA-planned deployment (guide 1): a DynamoGraphDeploymentRequest. */
export class SlaPlannedDeployment extends pulumi.ComponentResource {
  /** The DynamoGraphDeploymentRequest. */
  public readonly resource: pulumi.CustomResource;

  constructor(name: string, args: SlaPlannedDeploymentArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('SlaPlannedDeployment'), name, {}, opts);
    const { name: objectName, namespace, strict, ...options } = args ?? ({} as SlaPlannedDeploymentArgs);
    const rendered = renderSlaPlanned(objectName ?? name, namespace, options);
    reportWarnings(this, strict, rendered.warnings);
    this.resource = registerObject(name, rendered.object, rendered.object, childOptions(this, opts));
    this.registerOutputs({ name: objectName ?? name });
  }
}
