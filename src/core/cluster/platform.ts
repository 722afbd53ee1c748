import {
  checkBoolean,
  checkDnsLabel,
  checkFiniteNumbers,
  checkInteger,
  checkKnownKeys,
  checkNameRefs,
  checkOneOf,
  checkQuantity,
  checkString,
  checkUrl,
  isPlainObject,
  optionKeys,
} from '../base/checks';
import { Diagnostics, show } from '../base/errors';
import { checkHelmInstall, checkHelmValues, HelmInstall, HelmReleaseSpec, mergeValues, setPath } from './helm';
import { KubeObject, NameRef, nameOf } from '../base/k8s';
import { IPrometheusRelease, renderPodMonitors } from '../observability/observability';
import { checkPrometheusEndpoint, IPrometheusEndpoint, prometheusUrl } from '../graph/planner';
import { checkLiteralSecrets } from '../rules/secrets';
import { DynamoRelease, dynamoVersionOf, lookupRelease, releaseOf } from '../releases/versions';

/**
 * The bundled etcd, or an external one. 1.x (1.6.1 included) discovers through Kubernetes and
 * installs no etcd unless asked; 0.8/0.9 bundle one by default.
 */
export interface PlatformEtcdOptions {
  /** Install the bundled etcd. @default - true on 0.x (unless `address` is set); false on 1.x, which needs no etcd */
  readonly enabled?: boolean;
  /** Address of an external etcd, e.g. `http://etcd.infra:2379`. @default - none: 1.x uses no etcd, 0.8/0.9 the bundled one */
  readonly address?: string;
  /** StorageClass of etcd's volume. @default - the cluster default */
  readonly storageClass?: string;
  /** Size of etcd's volume. @default '1Gi' (chart) */
  readonly size?: string;
  /** etcd replicas (3+ for HA). @default 1 (chart) */
  readonly replicas?: number;
}

/**
 * The bundled NATS, or an external one. 1.x (1.6.1 included) installs no NATS unless asked;
 * 0.8/0.9 bundle one by default.
 */
export interface PlatformNatsOptions {
  /**
   * Install the bundled NATS. 1.x needs it only for a NATS request or event plane or durable KV events.
   * @default - true on 0.x (unless `address` is set); false on 1.x
   */
  readonly enabled?: boolean;
  /** Address of an external NATS, e.g. `nats://nats.infra:4222`. @default - none: 1.x uses no NATS, 0.8/0.9 the bundled one */
  readonly address?: string;
  /** StorageClass of JetStream's volume. @default - the cluster default */
  readonly storageClass?: string;
  /** Size of JetStream's volume. @default '10Gi' (chart) */
  readonly storageSize?: string;
}

/** The operator's validating webhook. */
export interface PlatformWebhookOptions {
  /**
   * Validate DGDs at admission (rejects bad specs at `kubectl apply`). 0.x only: 1.x
   * charts always run the webhook.
   * @default true (chart)
   */
  readonly enabled?: boolean;
  /** What the API server does when the webhook is down. @default 'Fail' (chart) */
  readonly failurePolicy?: 'Fail' | 'Ignore';
  /** Let cert-manager issue the webhook certificate. @default false (chart) */
  readonly certManager?: boolean;
}

/** Ingress the operator creates for frontends. */
export interface PlatformIngressOptions {
  /** @default false (chart) */
  readonly enabled?: boolean;
  /** Ingress class, e.g. `nginx`. */
  readonly className?: string;
  /** Secret with the TLS certificate. */
  readonly tlsSecretName?: string;
  /** Suffix of generated host names. */
  readonly hostSuffix?: string;
}

/**
 * The Dynamo platform (guide 1 step 5): the operator with Grove and the KAI scheduler, and
 * on 0.x the CRDs chart, etcd and NATS. The chart values follow the release: 1.x charts
 * install bundled parts with `global.<part>.install` and need neither etcd nor NATS.
 */
export interface DynamoPlatformOptions {
  /**
   * Dynamo release: chart versions and the operator image tag.
   * @default '1.6.1' (DEFAULT_DYNAMO_VERSION)
   */
  readonly version?: string;
  /**
   * Namespace of the platform release.
   * @default 'dynamo-system'
   */
  readonly namespace?: string;
  /**
   * Helm release name of the platform.
   * @default 'dynamo-platform'
   */
  readonly releaseName?: string;
  /**
   * Install the `dynamo-crds` chart too (release `dynamo-crds` in `default`);
   * false on a shared cluster where the CRDs exist. 0.x only: from 1.0 on the
   * operator installs and upgrades the CRDs itself.
   * @default - true on 0.x
   */
  readonly crds?: boolean;
  /**
   * Enable Grove, which coordinates multinode and gang-scheduled workers.
   * @default true (guide 1)
   */
  readonly grove?: boolean;
  /**
   * Enable the KAI scheduler for GPU scheduling.
   * @default true (guide 1)
   */
  readonly kaiScheduler?: boolean;
  /**
   * Where the planner queries metrics: a `PrometheusStack` or a URL. The operator
   * injects it as `PROMETHEUS_ENDPOINT`.
   * @default - none: planners fall back to their built-in default
   */
  readonly prometheus?: string | IPrometheusEndpoint;
  /**
   * Secrets for pulling the operator image.
   * @default - none
   */
  readonly imagePullSecrets?: readonly NameRef[];
  /**
   * NATS config reloader image tag, for a platform that installs NATS (0.8/0.9 by default; 1.x
   * only with `nats: { enabled: true }`, an error otherwise).
   * @default - the release's: the chart's own on 1.x and 0.8; 0.22.3 on 0.9.x, as guide 1 installs
   */
  readonly natsReloaderTag?: string;
  /** The bundled etcd, or an external one. @default - 1.x: no etcd; 0.8/0.9: the bundled one */
  readonly etcd?: PlatformEtcdOptions;
  /** The bundled NATS, or an external one. @default - 1.x: no NATS; 0.8/0.9: the bundled one */
  readonly nats?: PlatformNatsOptions;
  /** The operator's admission webhook. @default - the chart's (enabled, Fail) */
  readonly webhook?: PlatformWebhookOptions;
  /**
   * Restrict the operator to one namespace instead of the whole cluster. Deprecated
   * in 1.x, where it also stops the operator from upgrading CRDs (`upgradeCRD: false`).
   * @default - cluster-wide
   */
  readonly restrictToNamespace?: string;
  /** Ingress for frontends. @default - none */
  readonly ingress?: PlatformIngressOptions;
  /**
   * Also emit PodMonitors for every Dynamo frontend, worker and planner in the cluster,
   * for clusters where the platform chart's own monitors are off: the ones the release's
   * chart writes (1.x: every 5 s, the frontend's series labelled with `dynamo_namespace`,
   * workers of type worker, prefill and decode; 0.x: every 30 s), in every namespace or
   * in `restrictToNamespace`.
   * @default false
   */
  readonly podMonitors?: boolean;
  /**
   * More chart values, deep-merged over the library's (yours win): the escape hatch for
   * keys not modelled here.
   * @default - none
   */
  readonly values?: Readonly<Record<string, unknown>>;
  /**
   * Create the release namespace.
   * @default true
   */
  readonly createNamespace?: boolean;
  /**
   * How the releases reach the cluster.
   * @default HelmInstall.template()
   */
  readonly install?: HelmInstall;
}

const KEYS = optionKeys<DynamoPlatformOptions>()(
  'version',
  'namespace',
  'releaseName',
  'crds',
  'grove',
  'kaiScheduler',
  'prometheus',
  'imagePullSecrets',
  'natsReloaderTag',
  'etcd',
  'nats',
  'webhook',
  'restrictToNamespace',
  'ingress',
  'podMonitors',
  'values',
  'createNamespace',
  'install',
);

export const DYNAMO_CRDS_RELEASE = { releaseName: 'dynamo-crds', namespace: 'default' };

/** The API of PodMonitors and PrometheusRules. */
export const PROMETHEUS_OPERATOR_API = 'monitoring.coreos.com/v1';

export function checkDynamoPlatform(d: Diagnostics, o: DynamoPlatformOptions): DynamoRelease | undefined {
  checkKnownKeys(d, '', o, KEYS);
  const version = dynamoVersionOf({ dynamoVersion: o.version });
  const release = lookupRelease(d, 'version', version);
  if (release && !release.platform.crdsChart && o.crds === true) {
    d.error('crds', `is true, but Dynamo ${version} has no dynamo-crds chart: its operator installs and upgrades the CRDs; leave crds out`, 'unsupported-on-release');
  }
  if (release && !release.platform.webhookToggle && o.webhook?.enabled !== undefined) {
    d.error('webhook.enabled', `is set, but Dynamo ${version}'s chart always runs the admission webhook (the switch was removed in 1.0); leave it out`, 'unsupported-on-release');
  }
  if (release?.platform.namespaceRestriction.deprecated && o.restrictToNamespace !== undefined) {
    d.warn(
      'restrictToNamespace',
      `is deprecated in Dynamo ${release.line}.x, and a namespace-restricted operator does not upgrade CRDs (upgradeCRD: false is set): apply each release's CRDs yourself`,
      'deprecated',
    );
  }
  checkDnsLabel(d, 'namespace', o.namespace);
  checkDnsLabel(d, 'releaseName', o.releaseName);
  for (const key of ['crds', 'grove', 'kaiScheduler', 'createNamespace', 'podMonitors'] as const) checkBoolean(d, key, o[key]);
  checkPrometheusEndpoint(d, 'prometheus', o.prometheus);
  // the URL is written into the chart values: a password or a token in it would sit in the manifest
  if (typeof o.prometheus === 'string') checkLiteralSecrets(d, 'prometheus', o.prometheus, 'helm-values');
  checkNameRefs(d, 'imagePullSecrets', o.imagePullSecrets);
  checkString(d, 'natsReloaderTag', o.natsReloaderTag);
  const sub = (key: string, keys: readonly string[]) => {
    const v = (o as Record<string, unknown>)[key];
    if (v === undefined) return undefined;
    if (!isPlainObject(v)) {
      d.error(key, `must be an object, got ${show(v)}`, 'value-type');
      return undefined;
    }
    checkKnownKeys(d, key, v, keys);
    return v;
  };
  const etcd = sub('etcd', ['enabled', 'address', 'storageClass', 'size', 'replicas']) as PlatformEtcdOptions | undefined;
  if (etcd) {
    checkBoolean(d, 'etcd.enabled', etcd.enabled);
    checkUrl(d, 'etcd.address', etcd.address, ['http', 'https'], 'http://etcd.infra:2379');
    checkLiteralSecrets(d, 'etcd.address', etcd.address, 'helm-values');
    checkDnsLabel(d, 'etcd.storageClass', etcd.storageClass);
    checkQuantity(d, 'etcd.size', etcd.size);
    checkInteger(d, 'etcd.replicas', etcd.replicas, 1);
    if (etcd.address !== undefined && etcd.enabled === true) d.error('etcd.enabled', 'is true, but address points at an external etcd; install one or the other', 'option-conflict');
  }
  const nats = sub('nats', ['enabled', 'address', 'storageClass', 'storageSize']) as PlatformNatsOptions | undefined;
  if (nats) {
    checkBoolean(d, 'nats.enabled', nats.enabled);
    checkUrl(d, 'nats.address', nats.address, ['nats', 'tls'], 'nats://nats.infra:4222');
    checkLiteralSecrets(d, 'nats.address', nats.address, 'helm-values');
    checkDnsLabel(d, 'nats.storageClass', nats.storageClass);
    checkQuantity(d, 'nats.storageSize', nats.storageSize);
    if (nats.address !== undefined && nats.enabled === true) d.error('nats.enabled', 'is true, but address points at an external NATS; install one or the other', 'option-conflict');
  }
  const webhook = sub('webhook', ['enabled', 'failurePolicy', 'certManager']) as PlatformWebhookOptions | undefined;
  if (webhook) {
    checkBoolean(d, 'webhook.enabled', webhook.enabled);
    checkOneOf(d, 'webhook.failurePolicy', webhook.failurePolicy, ['Fail', 'Ignore']);
    checkBoolean(d, 'webhook.certManager', webhook.certManager);
    if (webhook.enabled === false && release?.platform.webhookToggle !== false) {
      d.warn('webhook.enabled', 'is false: the operator no longer rejects invalid graphs at kubectl apply; they fail during reconciliation instead', 'webhook-disabled');
    }
  }
  if (release && typeof o.natsReloaderTag === 'string') {
    const natsInstalled = isPlainObject(o.nats) && o.nats.address !== undefined ? false : ((o.nats as PlatformNatsOptions | undefined)?.enabled ?? release.platform.etcdAndNatsByDefault);
    if (!natsInstalled) {
      d.error('natsReloaderTag', `is set, but the platform installs no NATS (Dynamo ${release.line}.x installs it only with nats: { enabled: true })`, 'option-conflict');
    }
  }
  checkDnsLabel(d, 'restrictToNamespace', o.restrictToNamespace);
  const ingress = sub('ingress', ['enabled', 'className', 'tlsSecretName', 'hostSuffix']) as PlatformIngressOptions | undefined;
  if (ingress) {
    checkBoolean(d, 'ingress.enabled', ingress.enabled);
    checkString(d, 'ingress.className', ingress.className);
    checkString(d, 'ingress.tlsSecretName', ingress.tlsSecretName);
    checkString(d, 'ingress.hostSuffix', ingress.hostSuffix);
  }
  checkHelmValues(d, 'values', o.values);
  checkFiniteNumbers(d, 'values', o.values);
  checkHelmInstall(d, 'install', o.install);
  return release;
}

/** A resolved platform: its releases (CRDs first) and the values of the platform chart. */
export interface DynamoPlatformModel {
  readonly version: string;
  readonly namespace: string;
  readonly values: Record<string, unknown>;
  readonly releases: readonly HelmReleaseSpec[];
  /** Cluster-wide PodMonitors, when `podMonitors` is set. */
  readonly podMonitors: readonly KubeObject[];
}

/** The dynamo-platform chart values (validate first). */
export function dynamoPlatformValues(o: DynamoPlatformOptions): Record<string, unknown> {
  const version = dynamoVersionOf({ dynamoVersion: o.version });
  const release = releaseOf(version);
  const values: Record<string, unknown> = {};
  const set = (path: string, value: unknown) => {
    if (value !== undefined) setPath(values, path, value);
  };
  const platform = release.platform;
  const install = (part: keyof typeof platform.install, value: boolean | undefined) => {
    for (const path of platform.install[part]) set(path, value);
  };
  // the 0.9.0 chart defaults to an older operator image; always run the release's own
  set('dynamo-operator.controllerManager.manager.image.tag', version);
  const grove = o.grove ?? true;
  const kai = o.kaiScheduler ?? true;
  install('grove', grove);
  install('kaiScheduler', kai);
  if (grove && kai && platform.groveWithKai) Object.assign(values, mergeValues(values, platform.groveWithKai as Record<string, unknown>));
  const etcd = o.etcd ?? {};
  const nats = o.nats ?? {};
  const natsEnabled = nats.address !== undefined ? false : nats.enabled;
  // a reloader tag matters only where NATS is installed
  if (natsEnabled ?? platform.etcdAndNatsByDefault) set('nats.reloader.image.tag', o.natsReloaderTag ?? platform.natsReloaderTag);
  if (o.prometheus !== undefined) {
    const url = prometheusUrl(o.prometheus);
    for (const path of platform.prometheusEndpoint) set(path, url);
  }
  if (o.imagePullSecrets && o.imagePullSecrets.length > 0) set('dynamo-operator.imagePullSecrets', o.imagePullSecrets.map((s) => ({ name: nameOf(s) })));
  install('etcd', etcd.address !== undefined ? false : etcd.enabled);
  set('dynamo-operator.etcdAddr', etcd.address);
  set('etcd.persistence.storageClass', etcd.storageClass);
  set('etcd.persistence.size', etcd.size);
  set('etcd.replicaCount', etcd.replicas);
  install('nats', natsEnabled);
  set('dynamo-operator.natsAddr', nats.address);
  set('nats.config.jetstream.fileStore.pvc.storageClassName', nats.storageClass);
  set('nats.config.jetstream.fileStore.pvc.size', nats.storageSize);
  set('dynamo-operator.webhook.enabled', o.webhook?.enabled);
  set('dynamo-operator.webhook.failurePolicy', o.webhook?.failurePolicy);
  set('dynamo-operator.webhook.certManager.enabled', o.webhook?.certManager);
  if (o.restrictToNamespace !== undefined) {
    set('dynamo-operator.namespaceRestriction.enabled', true);
    set('dynamo-operator.namespaceRestriction.targetNamespace', o.restrictToNamespace);
    Object.assign(values, mergeValues(values, platform.namespaceRestriction.values as Record<string, unknown>));
  }
  set('dynamo-operator.dynamo.ingress.enabled', o.ingress?.enabled);
  set('dynamo-operator.dynamo.ingress.className', o.ingress?.className);
  set('dynamo-operator.dynamo.ingress.tlsSecretName', o.ingress?.tlsSecretName);
  set('dynamo-operator.dynamo.ingressHostSuffix', o.ingress?.hostSuffix);
  return mergeValues(values, o.values as Record<string, unknown> | undefined);
}

/** Resolves the platform's releases (validate first). */
export function dynamoPlatformModel(o: DynamoPlatformOptions): DynamoPlatformModel {
  const version = dynamoVersionOf({ dynamoVersion: o.version });
  const release = releaseOf(version);
  const namespace = o.namespace ?? 'dynamo-system';
  const values = dynamoPlatformValues(o);
  const chart = (name: string) => ({ repo: release.platform.chartRepo, repoName: 'ngc-ai-dynamo', chart: name, version });
  const crds: HelmReleaseSpec = { ...DYNAMO_CRDS_RELEASE, chart: chart('dynamo-crds'), values: {}, createNamespace: false };
  // With Prometheus, the chart adds PodMonitors for frontends, workers and planners, but only if the
  // monitoring API exists when it installs: install after the stack, and tell an offline render it exists.
  const stack = typeof o.prometheus === 'object' && o.prometheus !== null && typeof (o.prometheus as Partial<IPrometheusRelease>).releaseName === 'string'
    ? (o.prometheus as unknown as IPrometheusRelease)
    : undefined;
  const withCrds = release.platform.crdsChart && o.crds !== false;
  const dependsOn = [...(withCrds ? [DYNAMO_CRDS_RELEASE] : []), ...(stack ? [{ releaseName: stack.releaseName, namespace: stack.namespace }] : [])];
  const platform: HelmReleaseSpec = {
    releaseName: o.releaseName ?? 'dynamo-platform',
    namespace,
    chart: chart('dynamo-platform'),
    values,
    createNamespace: o.createNamespace ?? true,
    dependsOn: dependsOn.length > 0 ? dependsOn : undefined,
    apiVersions: o.prometheus !== undefined ? [PROMETHEUS_OPERATOR_API] : undefined,
  };
  return {
    version,
    namespace,
    values,
    releases: withCrds ? [crds, platform] : [platform],
    // a restricted operator runs graphs in its target namespace only: look there
    podMonitors: o.podMonitors ? renderPodMonitors({ namespace, dynamoVersion: version, podNamespaces: o.restrictToNamespace !== undefined ? [o.restrictToNamespace] : undefined }, stack) : [],
  };
}
