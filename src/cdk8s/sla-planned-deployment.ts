import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { IObservable, NameRef, ObservedGraph, renderSlaPlanned, SlaPlannedDeploymentOptions, slaPlannedObservedGraph, ValidationWarning } from '../core/internal';
import { apiObjectFromCore, namespaceOf } from './api-object';
import { reportWarningsOnSynth, StrictOptions } from './warnings';

export interface SlaPlannedDeploymentProps extends SlaPlannedDeploymentOptions, StrictOptions {
  /**
   * `metadata.name` of the DynamoGraphDeploymentRequest.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Namespace of the request (the profiling job and, by default, the generated graph), by name or as an object (e.g. a cdk8s-plus `Namespace`).
   * @default - the chart's namespace
   */
  readonly namespace?: NameRef;
}

/**
 * An SLA-planned deployment (guide 1): a DynamoGraphDeploymentRequest. The operator profiles
 * the model against the SLA and generates a disaggregated graph with an SLA planner that scales
 * it within the GPU budget. On 1.x (1.6.1 included) a `nvidia.com/v1beta1` request, profiled
 * with Dynamo's built-in AISimulate model (`searchStrategy: 'rapid'`) or a thorough sweep; on
 * 0.8/0.9 a `nvidia.com/v1alpha1` request, profiled offline with AIConfigurator or with trial
 * deployments. `autoApply` is always written (`false` unless set).
 */
export class SlaPlannedDeployment extends Construct implements IObservable {
  /** The DynamoGraphDeploymentRequest. */
  public readonly apiObject: ApiObject;
  /** Warnings about the request. */
  public readonly warnings: readonly ValidationWarning[];
  /** What `observability` added: dashboards, alert rules, monitors. */
  public readonly observability: ApiObject[];
  private readonly observed: ObservedGraph;

  constructor(scope: Construct, id: string, props: SlaPlannedDeploymentProps) {
    super(scope, id);
    const { name, namespace, strict, ...options } = props ?? ({} as typeof props);
    const rendered = renderSlaPlanned(name ?? id, namespaceOf(this, namespace), options);
    this.warnings = rendered.warnings;
    this.apiObject = apiObjectFromCore(this, 'Resource', rendered.object);
    this.observed = slaPlannedObservedGraph(name ?? id, namespaceOf(this, namespace), options);
    this.observability = rendered.observability.map((o) => apiObjectFromCore(this, `${o.kind}-${o.metadata.name}`, o));
    reportWarningsOnSynth(this, strict, () => this.warnings);
  }

  /** Every object this construct creates. */
  public get apiObjects(): ApiObject[] {
    return [this.apiObject, ...this.observability];
  }

  /** The graph the request generates, as monitoring sees it. @internal */
  public _observedGraph(): ObservedGraph {
    return this.observed;
  }
}
