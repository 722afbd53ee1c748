import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { HelmReleaseSpec } from '../core/internal';
import { childOptions } from './common';

/**
 * Registers Helm releases as `kubernetes.helm.v3.Release`s with the values
 * core computed; each release waits for the ones it depends on, and for what
 * the owning component depends on.
 */
export function registerReleases(
  parent: pulumi.Resource,
  componentName: string,
  opts: pulumi.ResourceOptions | undefined,
  releases: readonly HelmReleaseSpec[],
  external: ReadonlyMap<string, pulumi.Resource> = new Map(),
): k8s.helm.v3.Release[] {
  const byName = new Map<string, pulumi.Resource>(external);
  const created: k8s.helm.v3.Release[] = [];
  for (const r of releases) {
    const after = (r.dependsOn ?? []).flatMap((dep) => (byName.has(dep.releaseName) ? [byName.get(dep.releaseName)!] : []));
    // Pulumi names are unique per stack: derive them from the component's name
    const resourceName = componentName === r.releaseName ? componentName : `${componentName}-${r.releaseName}`;
    const release = new k8s.helm.v3.Release(
        resourceName,
        {
          name: r.releaseName,
          namespace: r.namespace,
          createNamespace: r.createNamespace,
          chart: r.chart.chart,
          version: r.chart.version,
          repositoryOpts: { repo: r.chart.repo },
          values: r.values,
        },
        childOptions(parent, opts, after),
    );
    byName.set(r.releaseName, release);
    created.push(release);
  }
  return created;
}
