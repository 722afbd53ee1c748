import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { HelmReleaseSpec } from '../core';
import { childOptions } from './common';

/**
 * Registers Helm releases as `kubernetes.helm.v3.Release`s with the values
 * core computed; each release waits for the ones it depends on, and for what
 * the owning component depends on.
 */
export function registerReleases(
  parent: pulumi.Resource,
  opts: pulumi.ResourceOptions | undefined,
  releases: readonly HelmReleaseSpec[],
): k8s.helm.v3.Release[] {
  const byName = new Map<string, k8s.helm.v3.Release>();
  for (const r of releases) {
    const after = (r.dependsOn ?? []).flatMap((dep) => (byName.has(dep.releaseName) ? [byName.get(dep.releaseName)!] : []));
    byName.set(
      r.releaseName,
      new k8s.helm.v3.Release(
        r.releaseName,
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
      ),
    );
  }
  return [...byName.values()];
}
