import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import {
  checkPrometheusStack,
  Diagnostics,
  IPrometheusEndpoint,
  PrometheusStackOptions,
  prometheusStackModel,
  ValidationWarning,
} from '../core/internal';
import { apiObjectsOf, installReleases } from './helm';
import { reportWarningsOnSynth, StrictOptions } from './warnings';

export interface PrometheusStackProps extends PrometheusStackOptions, StrictOptions {}

/**
 * kube-prometheus-stack with the values guide 1 step 4 needs so that
 * Prometheus scrapes Dynamo's PodMonitors (and the planner sees metrics), and
 * Grafana loads dashboard ConfigMaps. Give it to `DynamoPlatform` as
 * `prometheus` and to a planner as `prometheusEndpoint`.
 */
export class PrometheusStack extends Construct implements IPrometheusEndpoint {
  /** Where Prometheus answers queries, e.g. `http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9090`. */
  public readonly queryEndpoint: string;
  /** Namespace of the release (and of Grafana, which loads dashboards from it). */
  public readonly namespace: string;
  public readonly releaseName: string;
  /** The chart values, as installed. */
  public readonly values: Record<string, unknown>;
  public readonly warnings: readonly ValidationWarning[];
  /** What the install method created (Flux objects, or the rendered chart). */
  public readonly apiObjects: ApiObject[];

  constructor(scope: Construct, id: string, props: PrometheusStackProps = {}) {
    super(scope, id);
    const { strict, ...options } = props ?? {};
    const d = new Diagnostics();
    checkPrometheusStack(d, options);
    d.throwIfErrors();
    this.warnings = d.warnings;
    const model = prometheusStackModel(options);
    this.queryEndpoint = model.queryEndpoint;
    this.namespace = model.namespace;
    this.releaseName = model.releaseName;
    this.values = model.values;
    this.apiObjects = apiObjectsOf(installReleases(this, [model.release], options.install));
    reportWarningsOnSynth(this, strict, () => this.warnings);
  }
}
