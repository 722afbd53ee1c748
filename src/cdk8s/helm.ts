import { ApiObject, Helm } from 'cdk8s';
import { Construct } from 'constructs';
import { HelmInstall, HelmReleaseSpec, namespaceObject, renderFluxObjects, templateFlags } from '../core/internal';
import { apiObjectFromCore } from './api-object';

/**
 * Puts Helm releases into the manifest the way `install` says: rendered by
 * `helm template` (cdk8s `Helm`), as Flux objects, or not at all. Returns the
 * constructs created, in order.
 */
export function installReleases(scope: Construct, releases: readonly HelmReleaseSpec[], install: HelmInstall | undefined): Construct[] {
  const how = install ?? HelmInstall.template();
  if (how.kind === 'none') return [];
  if (how.kind === 'flux') {
    return renderFluxObjects(releases, how.options).map((o) => apiObjectFromCore(scope, `${o.kind}-${o.metadata.name}`, o));
  }
  const created: Construct[] = [];
  let previous: Construct | undefined;
  let previousName: string | undefined;
  for (const r of releases) {
    const ns = r.createNamespace ? apiObjectFromCore(scope, `Namespace-${r.namespace}`, namespaceObject(r.namespace)) : undefined;
    const chart = new Helm(scope, `Release-${r.releaseName}`, {
      chart: r.chart.chart,
      repo: r.chart.repo,
      version: r.chart.version,
      releaseName: r.releaseName,
      namespace: r.namespace,
      values: r.values,
      helmExecutable: how.options.helmExecutable,
      helmFlags: templateFlags(r, how.options),
    });
    // the namespace first, and each release after the ones it depends on
    if (ns) chart.node.addDependency(ns);
    if (previous && r.dependsOn?.some((dep) => dep.releaseName === previousName)) chart.node.addDependency(previous);
    if (ns) created.push(ns);
    created.push(chart);
    previous = chart;
    previousName = r.releaseName;
  }
  return created;
}

/** The ApiObjects among constructs (a `Helm` include holds several). */
export function apiObjectsOf(constructs: readonly Construct[]): ApiObject[] {
  return constructs.flatMap((c) => (ApiObject.isApiObject(c) ? [c] : c.node.findAll().filter(ApiObject.isApiObject)));
}
