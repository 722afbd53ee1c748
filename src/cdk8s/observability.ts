import { ApiObject, Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import {
  checkSlaAlertOptions,
  Dashboard,
  Diagnostics,
  IObservable,
  IPrometheusRelease,
  ObservabilityOptions,
  PodMonitorOptions,
  grafanaDashboardConfigMap,
  renderObservability,
  renderDeploymentPodMonitors,
  renderSlaAlerts,
  SlaAlertOptions,
  slaAlertsMetadata,
} from '../core/internal';
import { apiObjectFromCore, RenderedApiObject } from './api-object';

export interface GrafanaDashboardProps {
  /** The dashboard, e.g. `Dashboards.planner()` or a grafana-foundation-sdk `DashboardBuilder(...).build()`. */
  readonly dashboard: Dashboard;
  /**
   * Namespace Grafana's sidecar loads dashboards from.
   * @default 'monitoring'
   */
  readonly namespace?: string;
  /**
   * Name of the ConfigMap.
   * @default - the construct id
   */
  readonly name?: string;
}

/** A dashboard as a ConfigMap labelled `grafana_dashboard: "1"`, which the Grafana sidecar loads. */
export class GrafanaDashboard extends Construct {
  /** The ConfigMap. */
  public readonly apiObject: ApiObject;

  constructor(scope: Construct, id: string, props: GrafanaDashboardProps) {
    super(scope, id);
    const name = props?.name ?? id;
    const namespace = props?.namespace ?? 'monitoring';
    this.apiObject = apiObjectFromCore(this, 'Resource', grafanaDashboardConfigMap(name, namespace, props?.dashboard));
  }

  public get apiObjects(): ApiObject[] {
    return [this.apiObject];
  }
}

export interface SlaAlertsProps extends SlaAlertOptions {
  /** The deployment to alert on: a deployment construct, a `DynamoGraph` or an `SlaPlannedDeployment`. */
  readonly deployment: IObservable;
}

/**
 * A `monitoring.coreos.com/v1` PrometheusRule for a deployment's SLA: p95 TTFT
 * and p95 ITL above target, frontend error rate, no serving workers. The
 * targets default to the SLA the deployment is planned for, so they cannot drift.
 */
export class SlaAlerts extends Construct {
  public readonly apiObject: ApiObject;

  constructor(scope: Construct, id: string, props: SlaAlertsProps) {
    super(scope, id);
    const { deployment, ...options } = props ?? ({} as SlaAlertsProps);
    if (typeof (deployment as Partial<IObservable> | undefined)?._observedGraph !== 'function') {
      const d = new Diagnostics();
      d.error('deployment', 'is required: a DisaggregatedDeployment, AggregatedDeployment, DynamoGraph or SlaPlannedDeployment', 'required');
      d.throwIfErrors();
    }
    // A graph built component by component is complete only at synth: render then.
    const render = () => {
      const graph = deployment._observedGraph();
      const d = new Diagnostics();
      checkSlaAlertOptions(d, '', options, graph.sla);
      d.throwIfErrors();
      return renderSlaAlerts(graph, options);
    };
    this.apiObject = new RenderedApiObject(
      this,
      'Resource',
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PrometheusRule',
        metadata: slaAlertsMetadata(deployment._observedGraph(), options),
        spec: Lazy.any({ produce: () => render().spec }),
      },
      render,
    );
  }

  public get apiObjects(): ApiObject[] {
    return [this.apiObject];
  }
}

export interface PodMonitorsProps extends PodMonitorOptions {
  /** The deployment whose frontend, workers and planner to scrape (a `DynamoGraph` once its components are added). */
  readonly deployment: IObservable;
  /** The Prometheus stack that should select them (its release label). @default - release `prometheus` */
  readonly prometheus?: IPrometheusRelease;
}

/**
 * PodMonitors for a graph's frontend (`http`), workers (`system`) and planner (`metrics`) ports,
 * as Dynamo's platform chart of the graph's release writes them, at an interval that fits its planner.
 */
export class PodMonitors extends Construct {
  public readonly apiObjects: ApiObject[];

  constructor(scope: Construct, id: string, props: PodMonitorsProps) {
    super(scope, id);
    const { deployment, prometheus, ...options } = props ?? ({} as PodMonitorsProps);
    const objects = renderDeploymentPodMonitors(deployment, prometheus, options);
    this.apiObjects = objects.map((o) => apiObjectFromCore(this, `${o.kind}-${o.metadata.name}`, o));
  }
}

/** Adds what `observability` asks for under `scope` (validate first). */
export function addObservability(scope: Construct, observed: IObservable, options: ObservabilityOptions | undefined): ApiObject[] {
  if (options === undefined) return [];
  return renderObservability(observed._observedGraph(), options).map((o) => apiObjectFromCore(scope, `${o.kind}-${o.metadata.name}`, o));
}

export { IObservable, IPrometheusRelease };
