import * as pulumi from '@pulumi/pulumi';
import { IObservable, ObservedGraph, renderSlaPlanned, SlaPlannedDeploymentOptions, slaPlannedObservedGraph } from '../core';
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
export class SlaPlannedDeployment extends pulumi.ComponentResource implements IObservable {
  /** The DynamoGraphDeploymentRequest. */
  public readonly resource: pulumi.CustomResource;
  private readonly observed: ObservedGraph;

  constructor(name: string, args: SlaPlannedDeploymentArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('SlaPlannedDeployment'), name, {}, opts);
    const { name: objectName, namespace, strict, ...options } = args ?? ({} as SlaPlannedDeploymentArgs);
    const rendered = renderSlaPlanned(objectName ?? name, namespace, options);
    reportWarnings(this, strict, rendered.warnings);
    this.resource = registerObject(name, rendered.object, rendered.object, childOptions(this, opts));
    this.observed = slaPlannedObservedGraph(objectName ?? name, namespace, options);
    rendered.observability.forEach((o) => registerObject(`${name}-${o.kind.toLowerCase()}-${o.metadata.name}`, o, o, childOptions(this, opts)));
    this.registerOutputs({ name: objectName ?? name });
  }

  /** The graph the request generates, as monitoring sees it. @internal */
  public _observedGraph(): ObservedGraph {
    return this.observed;
  }
}
