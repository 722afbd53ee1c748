import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { checkDynamoPlatform, Diagnostics, DynamoPlatformOptions, dynamoPlatformModel, ValidationWarning } from '../core/internal';
import { apiObjectFromCore } from './api-object';
import { apiObjectsOf, installReleases } from './helm';
import { reportWarningsOnSynth, StrictOptions } from './warnings';

export interface DynamoPlatformProps extends DynamoPlatformOptions, StrictOptions {}

/**
 * The Dynamo platform (guide 1 step 5): the `dynamo-platform` release from NGC with the
 * operator image of the release, Grove, the KAI scheduler and the Prometheus endpoint the
 * planner queries. 1.x (1.6.1 included): the operator installs the CRDs, and no etcd or NATS
 * is installed unless asked. 0.8/0.9: a `dynamo-crds` release too, the bundled etcd and NATS,
 * and on 0.9 the NATS reloader tag guide 1 installs.
 */
export class DynamoPlatform extends Construct {
  /** The dynamo-platform chart values, as installed. */
  public readonly values: Record<string, unknown>;
  public readonly namespace: string;
  public readonly version: string;
  public readonly warnings: readonly ValidationWarning[];
  /** What the install method created (Flux objects, or the rendered charts). */
  public readonly apiObjects: ApiObject[];

  constructor(scope: Construct, id: string, props: DynamoPlatformProps = {}) {
    super(scope, id);
    const { strict, ...options } = props ?? {};
    const d = new Diagnostics();
    checkDynamoPlatform(d, options);
    d.throwIfErrors();
    this.warnings = d.warnings;
    const model = dynamoPlatformModel(options);
    // a stack in the same app is installed first (its PodMonitor API, then the chart's monitors)
    if (Construct.isConstruct(options.prometheus)) this.node.addDependency(options.prometheus);
    this.values = model.values;
    this.namespace = model.namespace;
    this.version = model.version;
    this.apiObjects = [
      ...apiObjectsOf(installReleases(this, model.releases, options.install)),
      ...model.podMonitors.map((o) => apiObjectFromCore(this, `${o.kind}-${o.metadata.name}`, o)),
    ];
    reportWarningsOnSynth(this, strict, () => this.warnings);
  }
}
