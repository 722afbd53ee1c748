import * as pulumi from '@pulumi/pulumi';
import {
  checkSlaAlertOptions,
  Dashboard,
  Diagnostics,
  IObservable,
  IPrometheusRelease,
  KubeObject,
  ObservabilityOptions,
  PodMonitorOptions,
  ObservedGraph,
  grafanaDashboardConfigMap,
  renderObservability,
  renderDeploymentPodMonitors,
  renderSlaAlerts,
  SlaAlertOptions,
} from '../core/internal';
import { childOptions, registerObject, typeToken } from './common';


export interface GrafanaDashboardArgs {
  /** The dashboard, e.g. `Dashboards.planner()`. */
  readonly dashboard: Dashboard;
  /** @default 'monitoring' */
  readonly namespace?: string;
  /** Name of the ConfigMap. @default - the component name */
  readonly name?: string;
}

/** A dashboard as a ConfigMap the Grafana sidecar loads. */
export class GrafanaDashboard extends pulumi.ComponentResource {
  public readonly resource: pulumi.CustomResource;

  constructor(name: string, args: GrafanaDashboardArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('GrafanaDashboard'), name, {}, opts);
    const configMapName = args?.name ?? name;
    const namespace = args?.namespace ?? 'monitoring';
    const object = grafanaDashboardConfigMap(configMapName, namespace, args?.dashboard);
    this.resource = registerObject(name, object, object, childOptions(this, opts));
    this.registerOutputs({});
  }
}

export interface SlaAlertsArgs extends SlaAlertOptions {
  /** The deployment to alert on: a deployment component, a `DynamoGraph` (add it after its components) or an `SlaPlannedDeployment`. */
  readonly deployment: IObservable;
}

/** A PrometheusRule for a deployment's SLA (see the cdk8s `SlaAlerts`). */
export class SlaAlerts extends pulumi.ComponentResource {
  public readonly resource: pulumi.CustomResource;

  constructor(name: string, args: SlaAlertsArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('SlaAlerts'), name, {}, opts);
    const { deployment, ...options } = args ?? ({} as SlaAlertsArgs);
    const d = new Diagnostics();
    if (typeof (deployment as Partial<IObservable> | undefined)?._observedGraph !== 'function') {
      d.error('deployment', 'is required: a DisaggregatedDeployment, AggregatedDeployment, DynamoGraph or SlaPlannedDeployment', 'required');
      d.throwIfErrors();
    }
    const graph = deployment._observedGraph();
    checkSlaAlertOptions(d, '', options, graph.sla);
    d.throwIfErrors();
    const object = renderSlaAlerts(graph, options);
    this.resource = registerObject(name, object, object, childOptions(this, opts));
    this.registerOutputs({});
  }
}

export interface PodMonitorsArgs extends PodMonitorOptions {
  /** The deployment whose frontend, workers and planner to scrape (a `DynamoGraph` once its components are added). */
  readonly deployment: IObservable;
  /** The Prometheus stack that should select them (its release label). @default - release `prometheus` */
  readonly prometheus?: IPrometheusRelease;
}

/** PodMonitors for a graph's frontend, workers and planner (see the cdk8s `PodMonitors`). */
export class PodMonitors extends pulumi.ComponentResource {
  public readonly resources: pulumi.CustomResource[];

  constructor(name: string, args: PodMonitorsArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('PodMonitors'), name, {}, opts);
    const { deployment, prometheus, ...options } = args ?? ({} as PodMonitorsArgs);
    const monitors = renderDeploymentPodMonitors(deployment, prometheus, options);
    this.resources = monitors.map((m) => registerObject(`${name}-${m.metadata.name}`, m, m, childOptions(this, opts)));
    this.registerOutputs({});
  }
}

/** Registers what `observability` adds (validate first). */
export function registerObservability(
  parent: pulumi.Resource,
  opts: pulumi.ResourceOptions | undefined,
  name: string,
  graph: ObservedGraph,
  options: ObservabilityOptions | undefined,
): pulumi.CustomResource[] {
  if (options === undefined) return [];
  return renderObservability(graph, options).map((o: KubeObject) => registerObject(`${name}-${o.kind.toLowerCase()}-${o.metadata.name}`, o, o, childOptions(parent, opts)));
}
