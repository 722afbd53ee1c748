import * as pulumi from '@pulumi/pulumi';
import { IObservable, ObservedGraph, renderSlaPlanned, SlaPlannedDeploymentOptions, slaPlannedObservedGraph } from '../core/internal';
import { childOptions, registerObject, reportWarnings, resourcesOf, StrictArgs, typeToken } from './common';

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

/**
 * An SLA-planned deployment (guide 1): a DynamoGraphDeploymentRequest, `nvidia.com/v1beta1` on
 * 1.x (1.6.1 included) and `nvidia.com/v1alpha1` on 0.8/0.9 (see the cdk8s `SlaPlannedDeployment`).
 */
export class SlaPlannedDeployment extends pulumi.ComponentResource implements IObservable {
  /** The DynamoGraphDeploymentRequest. */
  public readonly resource: pulumi.CustomResource;
  private readonly observed: ObservedGraph;

  constructor(name: string, args: SlaPlannedDeploymentArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('SlaPlannedDeployment'), name, {}, opts);
    const { name: objectName, namespace, strict, ...options } = args ?? ({} as SlaPlannedDeploymentArgs);
    const rendered = renderSlaPlanned(objectName ?? name, namespace, options);
    reportWarnings(this, strict, rendered.warnings);
    // the Secrets and the cache claim it references, where created here, are applied before it
    const referenced = resourcesOf([options.modelCache, options.hfTokenSecret, ...(options.imagePullSecrets ?? [])]);
    this.resource = registerObject(name, rendered.object, rendered.object, childOptions(this, opts, referenced));
    this.observed = slaPlannedObservedGraph(objectName ?? name, namespace, options);
    rendered.observability.forEach((o) => registerObject(`${name}-${o.kind.toLowerCase()}-${o.metadata.name}`, o, o, childOptions(this, opts)));
    this.registerOutputs({ name: objectName ?? name });
  }

  /** The graph the request generates, as monitoring sees it. @internal */
  public _observedGraph(): ObservedGraph {
    return this.observed;
  }
}
