import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { checkDynamoPlatform, Diagnostics, DynamoPlatformOptions, dynamoPlatformModel } from '../core/internal';
import { childOptions, registerObject, rejectInstall, reportWarnings, StrictArgs, typeToken } from './common';
import { registerReleases } from './helm';

export interface DynamoPlatformArgs extends Omit<DynamoPlatformOptions, 'install'>, StrictArgs {}

/**
 * The Dynamo platform (guide 1 step 5) as `kubernetes.helm.v3.Release`s: `dynamo-platform`
 * on 1.x (1.6.1 included), whose operator installs the CRDs; `dynamo-crds` and
 * `dynamo-platform` on 0.8/0.9. Pass it in `dependsOn` of the deployments so that they wait
 * for the operator.
 */
export class DynamoPlatform extends pulumi.ComponentResource {
  public readonly values: Record<string, unknown>;
  public readonly namespace: string;
  public readonly version: string;
  /** The Helm releases (CRDs first). */
  public readonly releases: k8s.helm.v3.Release[];

  constructor(name: string, args: DynamoPlatformArgs = {}, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('DynamoPlatform'), name, {}, opts);
    const { strict, ...options } = (args ?? {}) as DynamoPlatformArgs & { install?: unknown };
    const d = new Diagnostics();
    checkDynamoPlatform(d, options as DynamoPlatformOptions);
    rejectInstall(d, options);
    d.throwIfErrors();
    reportWarnings(this, strict, d.warnings);
    const model = dynamoPlatformModel(options as DynamoPlatformOptions);
    this.values = model.values;
    this.namespace = model.namespace;
    this.version = model.version;
    const stackReleases = (options.prometheus as { _releases?: ReadonlyMap<string, pulumi.Resource> } | undefined)?._releases;
    this.releases = registerReleases(this, name, opts, model.releases, stackReleases);
    for (const m of model.podMonitors) registerObject(`${name}-${m.metadata.name}`, m, m, childOptions(this, opts));
    this.registerOutputs({ namespace: this.namespace, version: this.version });
  }
}
