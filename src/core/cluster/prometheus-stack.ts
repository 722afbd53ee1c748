import { GRAFANA_DASHBOARD_LABEL, GRAFANA_DASHBOARD_LABEL_VALUE } from '../observability/dashboards';
import { checkBoolean, checkDnsLabel, checkFiniteNumbers, checkKnownKeys, checkPort, checkString, isPlainObject, optionKeys } from '../base/checks';
import { at } from '../model/graph-model';
import { Diagnostics, show } from '../base/errors';
import { checkHelmInstall, checkHelmValues, HelmInstall, HelmReleaseSpec, mergeValues } from './helm';
import { IPrometheusEndpoint } from '../graph/planner';

/** kube-prometheus-stack, as guide 1 step 4 installs it. */
export interface PrometheusStackOptions {
  /**
   * Namespace of the release.
   * @default 'monitoring'
   */
  readonly namespace?: string;
  /**
   * Helm release name; it names the Prometheus service.
   * @default 'prometheus'
   */
  readonly releaseName?: string;
  /**
   * Chart version.
   * @default KUBE_PROMETHEUS_STACK_VERSION ('77.6.0': prometheus-operator v0.85.0, Prometheus v3.5.0)
   */
  readonly chartVersion?: string;
  /**
   * More chart values, deep-merged over the library's (yours win).
   * @default - none
   */
  readonly values?: Readonly<Record<string, unknown>>;
  /**
   * Create the release namespace.
   * @default true
   */
  readonly createNamespace?: boolean;
  /**
   * How the release reaches the cluster.
   * @default HelmInstall.template()
   */
  readonly install?: HelmInstall;
}

const KEYS = optionKeys<PrometheusStackOptions>()('namespace', 'releaseName', 'chartVersion', 'values', 'createNamespace', 'install');

export const PROMETHEUS_COMMUNITY_REPO = 'https://prometheus-community.github.io/helm-charts';

/**
 * The kube-prometheus-stack chart version installed unless `chartVersion` says otherwise. It
 * ships prometheus-operator v0.85.0 and Prometheus v3.5.0: the operator and the Prometheus major
 * the library's PodMonitors and rules are tested with (Prometheus 3's left-open range selectors
 * decide whether the planner's `increase(...[W])` is empty).
 */
export const KUBE_PROMETHEUS_STACK_VERSION = '77.6.0';

/**
 * The three values of guide 1 step 4 without which Prometheus never selects
 * Dynamo's PodMonitors (so the planner sees no metrics), and the Grafana
 * sidecar settings that load dashboard ConfigMaps.
 */
export function prometheusStackBaseValues(): Record<string, unknown> {
  return {
    prometheus: {
      prometheusSpec: {
        podMonitorSelectorNilUsesHelmValues: false,
        podMonitorNamespaceSelector: {},
        probeNamespaceSelector: { matchLabels: null },
      },
    },
    grafana: {
      sidecar: {
        dashboards: { enabled: true, label: GRAFANA_DASHBOARD_LABEL, labelValue: GRAFANA_DASHBOARD_LABEL_VALUE },
      },
    },
  };
}

/**
 * The chart's fullname, as its `_helpers.tpl` computes it: `fullnameOverride`,
 * else the release name when it contains the chart name (`nameOverride` or
 * `kube-prometheus-stack`), else `<release>-<chart name>`; cut to 26 characters.
 */
function fullname(releaseName: string, values: Readonly<Record<string, unknown>>): string {
  const cut = (s: string) => s.slice(0, 26).replace(/-+$/, '');
  const override = values.fullnameOverride;
  if (typeof override === 'string' && override !== '') return cut(override);
  const name = typeof values.nameOverride === 'string' && values.nameOverride !== '' ? values.nameOverride : 'kube-prometheus-stack';
  return cut(releaseName.includes(name) ? releaseName : `${releaseName}-${name}`);
}

/** The Prometheus service port (`prometheus.service.port`). */
function servicePort(values: Readonly<Record<string, unknown>>): number {
  const port = (values.prometheus as { service?: { port?: unknown } } | undefined)?.service?.port;
  return typeof port === 'number' ? port : 9090;
}

/** A resolved Prometheus stack: its release and where Prometheus answers queries. */
export interface PrometheusStackModel extends IPrometheusEndpoint {
  readonly release: HelmReleaseSpec;
  readonly namespace: string;
  readonly releaseName: string;
  readonly values: Record<string, unknown>;
}

export function checkPrometheusStack(d: Diagnostics, o: PrometheusStackOptions): void {
  checkKnownKeys(d, '', o, KEYS);
  checkDnsLabel(d, 'namespace', o.namespace);
  if (checkString(d, 'releaseName', o.releaseName) && o.releaseName !== undefined) {
    checkDnsLabel(d, 'releaseName', o.releaseName);
    if (o.releaseName.length > 53) d.error('releaseName', `is ${o.releaseName.length} characters; Helm release names have at most 53`, 'name-format');
  }
  checkString(d, 'chartVersion', o.chartVersion);
  checkHelmValues(d, 'values', o.values);
  checkFiniteNumbers(d, 'values', o.values);
  // the query endpoint the planner is pointed at is built from these: a host name and a port
  checkPort(d, 'values.prometheus.service.port', at(o.values, 'prometheus.service.port'));
  for (const key of ['fullnameOverride', 'nameOverride']) {
    const v = at(o.values, key);
    if (v !== '') checkDnsLabel(d, `values.${key}`, v);
  }
  checkBoolean(d, 'createNamespace', o.createNamespace);
  checkHelmInstall(d, 'install', o.install);
  const pm = (o.values as any)?.prometheus?.prometheusSpec;
  if (isPlainObject(pm) && pm.podMonitorSelectorNilUsesHelmValues === true) {
    d.warn(
      'values.prometheus.prometheusSpec.podMonitorSelectorNilUsesHelmValues',
      `is ${show(pm.podMonitorSelectorNilUsesHelmValues)}: Prometheus then selects only PodMonitors labelled for this release and never scrapes Dynamo's, so the planner sees no metrics (guide 1 step 4)`,
      'prometheus-podmonitors',
    );
  }
}

/** Resolves a Prometheus stack's release and query endpoint (validate first). */
export function prometheusStackModel(o: PrometheusStackOptions): PrometheusStackModel {
  const namespace = o.namespace ?? 'monitoring';
  const releaseName = o.releaseName ?? 'prometheus';
  const values = mergeValues(prometheusStackBaseValues(), o.values as Record<string, unknown> | undefined);
  return {
    namespace,
    releaseName,
    values,
    queryEndpoint: `http://${fullname(releaseName, values)}-prometheus.${namespace}.svc.cluster.local:${servicePort(values)}`,
    release: {
      releaseName,
      namespace,
      chart: { repo: PROMETHEUS_COMMUNITY_REPO, repoName: 'prometheus-community', chart: 'kube-prometheus-stack', version: o.chartVersion ?? KUBE_PROMETHEUS_STACK_VERSION },
      values,
      createNamespace: o.createNamespace ?? true,
    },
  };
}
