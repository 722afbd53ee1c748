import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { checkFluxKustomization, Diagnostics, FluxKustomizationOptions, FluxKustomizationRef, renderFluxKustomization } from '../core/internal';
import { apiObjectFromCore } from './api-object';

export interface FluxKustomizationProps extends FluxKustomizationOptions {
  /**
   * `metadata.name` of the Kustomization.
   * @default - the construct id
   */
  readonly name?: string;
}

/**
 * One stage of a GitOps delivery: a Flux `Kustomization` (`kustomize.toolkit.fluxcd.io/v1`)
 * that applies a folder of synthesized manifests from a Flux source, waits for what it applied
 * to be ready, and starts after the stages it depends on. Guide 1's stack is two stages: the
 * infrastructure (Prometheus stack, Dynamo platform), then the workloads, whose kinds the
 * infrastructure's charts install.
 */
export class FluxKustomization extends Construct implements FluxKustomizationRef {
  /** `metadata.name`. */
  public readonly name: string;
  /** `metadata.namespace`. */
  public readonly namespace: string;
  /** The Kustomization. */
  public readonly apiObject: ApiObject;

  constructor(scope: Construct, id: string, props: FluxKustomizationProps) {
    super(scope, id);
    const { name = id, ...options } = props ?? ({} as FluxKustomizationProps);
    const d = new Diagnostics();
    checkFluxKustomization(d, '', name, options);
    d.throwIfErrors();
    const object = renderFluxKustomization(name, options);
    this.name = name;
    this.namespace = object.metadata.namespace as string;
    this.apiObject = apiObjectFromCore(this, 'Resource', object);
  }
}
