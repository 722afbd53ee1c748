import { checkBoolean, checkDnsLabel, checkKnownKeys, checkString, checkStringArray, isPlainObject, join, optionKeys } from '../base/checks';
import { Diagnostics, show } from '../base/errors';
import { KubeObject } from '../base/k8s';
import { checkLiteralSecrets } from '../rules/secrets';

/** Where a chart comes from. */
export interface HelmChartRef {
  /** Chart repository URL. */
  readonly repo: string;
  /** Name for the repository object (Flux `HelmRepository`). */
  readonly repoName: string;
  /** Chart name in the repository. */
  readonly chart: string;
  /** Chart version; unpinned when undefined. */
  readonly version?: string;
}

/** One Helm release, engine-neutral: what any install method needs. */
export interface HelmReleaseSpec {
  readonly releaseName: string;
  readonly namespace: string;
  readonly chart: HelmChartRef;
  /** Values as Helm reads them; `{}` and `null` are meaningful here. */
  readonly values: Record<string, unknown>;
  readonly createNamespace: boolean;
  /** Releases this one is installed after (of this construct, or another one's such as a Prometheus stack). */
  readonly dependsOn?: readonly { readonly releaseName: string; readonly namespace: string }[];
  /**
   * API versions the chart checks with `.Capabilities.APIVersions` and should find
   * (e.g. `monitoring.coreos.com/v1`, without which the Dynamo chart skips its
   * PodMonitors); `helm template` has no cluster to ask.
   */
  readonly apiVersions?: readonly string[];
}

export interface TemplateInstallOptions {
  /**
   * The helm binary.
   * @default 'helm'
   */
  readonly helmExecutable?: string;
  /**
   * Render the charts' CRDs too (`--include-crds`); kube-prometheus-stack keeps its
   * operator CRDs there. Helm hooks (e.g. certificate jobs) become plain objects.
   * @default true
   */
  readonly includeCrds?: boolean;
  /**
   * Extra flags for `helm template`, e.g. `['--kube-version', '1.30']`.
   * @default - none
   */
  readonly helmFlags?: readonly string[];
}

export interface FluxInstallOptions {
  /**
   * Namespace of the HelmRepository and HelmRelease objects.
   * @default 'flux-system'
   */
  readonly namespace?: string;
  /**
   * How often Flux reconciles the releases.
   * @default '10m'
   */
  readonly interval?: string;
}

const TEMPLATE_KEYS = optionKeys<TemplateInstallOptions>()('helmExecutable', 'includeCrds', 'helmFlags');
const FLUX_KEYS = optionKeys<FluxInstallOptions>()('namespace', 'interval');
const DURATION = /^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$/;

export type HelmInstallKind = 'template' | 'flux' | 'none';

/** How a Helm release reaches the cluster. */
export class HelmInstall {
  /**
   * Render the chart at synth with `helm template` (the cdk8s `Helm` construct);
   * the chart's objects become part of the manifest. Needs the helm CLI when synthesizing.
   */
  public static template(options: TemplateInstallOptions = {}): HelmInstall {
    return new HelmInstall('template', options ?? {});
  }

  /** Emit Flux `HelmRepository` and `HelmRelease` objects, for GitOps. */
  public static flux(options: FluxInstallOptions = {}): HelmInstall {
    return new HelmInstall('flux', options ?? {});
  }

  /** Emit nothing for the chart; its values stay available (`.values`) for your own tooling. */
  public static none(): HelmInstall {
    return new HelmInstall('none', {});
  }

  private constructor(
    public readonly kind: HelmInstallKind,
    public readonly options: TemplateInstallOptions & FluxInstallOptions,
  ) {}

  /** @internal */
  public _validate(d: Diagnostics, path: string): void {
    const o = this.options;
    if (this.kind === 'template') {
      checkKnownKeys(d, path, o, TEMPLATE_KEYS);
      checkString(d, join(path, 'helmExecutable'), o.helmExecutable);
      checkBoolean(d, join(path, 'includeCrds'), o.includeCrds);
      checkStringArray(d, join(path, 'helmFlags'), o.helmFlags);
    } else if (this.kind === 'flux') {
      checkKnownKeys(d, path, o, FLUX_KEYS);
      checkDnsLabel(d, join(path, 'namespace'), o.namespace);
      checkFluxDuration(d, join(path, 'interval'), o.interval);
    }
  }
}

/** A Flux duration (Go's `time.ParseDuration` units Flux's CRDs accept), such as `10m` or `1h30m`. */
export function checkFluxDuration(d: Diagnostics, path: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'string' || !DURATION.test(value))) {
    d.error(path, `must be a duration such as "10m" or "1h", got ${show(value)}`, 'value-format');
  }
}

export function checkHelmInstall(d: Diagnostics, path: string, install: unknown): void {
  if (install === undefined) return;
  if (install instanceof HelmInstall) install._validate(d, path);
  else d.error(path, `must be HelmInstall.template(), HelmInstall.flux() or HelmInstall.none(), got ${show(install)}`, 'value-type');
}

/**
 * Chart values: an object, with no credential written into it. Values end up in
 * the manifest (a Flux HelmRelease) or in the objects the chart renders.
 */
export function checkHelmValues(d: Diagnostics, path: string, values: unknown): void {
  if (values === undefined) return;
  if (!isPlainObject(values)) {
    d.error(path, `must be an object of chart values, got ${show(values)}`, 'value-type');
    return;
  }
  checkLiteralSecrets(d, path, values, 'helm-values');
}

export function checkCreateNamespace(d: Diagnostics, path: string, value: unknown): void {
  checkBoolean(d, path, value);
}

/**
 * Deep merge for Helm values: objects merge, everything else (lists, scalars,
 * `null`, `{}`) replaces. Unlike `deepMerge`, an explicit `{}` or `null` from
 * `override` is kept, since Helm gives both a meaning.
 */
export function mergeValues(base: Record<string, unknown>, override: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!override) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(override)) {
    const b = out[k];
    out[k] = isPlainObject(b) && isPlainObject(v) && Object.keys(v).length > 0 ? mergeValues(b, v) : v;
  }
  return out;
}

/** Sets `value` at a dotted path of nested objects, creating them as needed. */
export function setPath(values: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let at = values;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(at[part])) at[part] = {};
    at = at[part] as Record<string, unknown>;
  }
  at[parts[parts.length - 1]] = value;
}

export const FLUX_HELM_REPOSITORY_API = 'source.toolkit.fluxcd.io/v1';
export const FLUX_HELM_RELEASE_API = 'helm.toolkit.fluxcd.io/v2';

/** Flux objects for releases: one HelmRepository per repository, one HelmRelease per release. */
export function renderFluxObjects(releases: readonly HelmReleaseSpec[], options: FluxInstallOptions = {}): KubeObject[] {
  const namespace = options.namespace ?? 'flux-system';
  const interval = options.interval ?? '10m';
  const repositories = new Map<string, KubeObject>();
  for (const r of releases) {
    repositories.set(r.chart.repoName, {
      apiVersion: FLUX_HELM_REPOSITORY_API,
      kind: 'HelmRepository',
      metadata: { name: r.chart.repoName, namespace },
      spec: { url: r.chart.repo, interval: '1h' },
    });
  }
  const helmReleases: KubeObject[] = releases.map((r) => ({
    apiVersion: FLUX_HELM_RELEASE_API,
    kind: 'HelmRelease',
    metadata: { name: r.releaseName, namespace },
    spec: {
      interval,
      releaseName: r.releaseName,
      targetNamespace: r.namespace,
      // the release is recorded where `helm list -n <namespace>` finds it
      storageNamespace: r.namespace,
      chart: {
        spec: {
          chart: r.chart.chart,
          ...(r.chart.version !== undefined ? { version: r.chart.version } : {}),
          sourceRef: { kind: 'HelmRepository', name: r.chart.repoName, namespace },
        },
      },
      install: { createNamespace: r.createNamespace, crds: 'CreateReplace' },
      upgrade: { crds: 'CreateReplace' },
      ...(r.dependsOn && r.dependsOn.length > 0 ? { dependsOn: r.dependsOn.map((dep) => ({ name: dep.releaseName, namespace })) } : {}),
      values: r.values,
    },
  }));
  return [...repositories.values(), ...helmReleases];
}

/** The `helm template` flags of a release beyond chart, repo, version and namespace. */
export function templateFlags(r: HelmReleaseSpec, options: TemplateInstallOptions): string[] {
  return [
    ...(options.includeCrds === false ? [] : ['--include-crds']),
    ...(r.apiVersions ?? []).flatMap((v) => ['--api-versions', v]),
    ...(options.helmFlags ?? []),
  ];
}

/** A Namespace object, for releases rendered with `helm template` into a namespace that may not exist. */
export function namespaceObject(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}
