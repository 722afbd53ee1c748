import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { checkPrometheusStack, Diagnostics, IPrometheusEndpoint, PrometheusStackOptions, prometheusStackModel } from '../core/internal';
import { rejectInstall, reportWarnings, StrictArgs, typeToken } from './common';
import { registerReleases } from './helm';

export interface PrometheusStackArgs extends Omit<PrometheusStackOptions, 'install'>, StrictArgs {}

/** kube-prometheus-stack with guide 1's values, as a `kubernetes.helm.v3.Release`. */
export class PrometheusStack extends pulumi.ComponentResource implements IPrometheusEndpoint {
  public readonly queryEndpoint: string;
  public readonly namespace: string;
  public readonly releaseName: string;
  public readonly values: Record<string, unknown>;
  /** The Helm release. */
  public readonly release: k8s.helm.v3.Release;
  /** What dependents wait for. */
  public readonly resource: pulumi.Resource;
  /** The Helm release, by name, for releases that install after it. @internal */
  public readonly _releases: ReadonlyMap<string, pulumi.Resource>;

  constructor(name: string, args: PrometheusStackArgs = {}, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('PrometheusStack'), name, {}, opts);
    const { strict, ...options } = (args ?? {}) as PrometheusStackArgs & { install?: unknown };
    const d = new Diagnostics();
    checkPrometheusStack(d, options as PrometheusStackOptions);
    rejectInstall(d, options);
    d.throwIfErrors();
    reportWarnings(this, strict, d.warnings);
    const model = prometheusStackModel(options as PrometheusStackOptions);
    this.queryEndpoint = model.queryEndpoint;
    this.namespace = model.namespace;
    this.releaseName = model.releaseName;
    this.values = model.values;
    [this.release] = registerReleases(this, name, opts, [model.release]);
    this.resource = this.release;
    this._releases = new Map([[model.releaseName, this.release]]);
    this.registerOutputs({ queryEndpoint: this.queryEndpoint });
  }
}
