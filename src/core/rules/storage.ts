import { isPlainObject } from '../base/checks';
import { Findings } from './findings';
import { at, GraphModel } from '../model/graph-model';

/** Mounts name claims the graph lists. */
export function storageRules(g: GraphModel, f: Findings): void {
  const pvcs = Array.isArray(g.spec.pvcs) ? g.spec.pvcs.filter(isPlainObject) : [];
  const listed = new Set(pvcs.map((p) => p.name).filter((n): n is string => typeof n === 'string'));
  for (const s of g.services) {
    const mounts = Array.isArray(s.spec.volumeMounts) ? s.spec.volumeMounts.filter(isPlainObject) : [];
    mounts.forEach((m, i) => {
      if (typeof m.name === 'string' && !listed.has(m.name)) {
        f.report(
          'pvc-reference',
          s,
          { field: `volumeMounts[${i}].name`, option: 'graph:modelCache' },
          `is ${JSON.stringify(m.name)}, which spec.pvcs does not list${listed.size > 0 ? ` (it lists ${[...listed].join(', ')})` : ''}; the operator mounts only listed claims. Add { name: ${m.name}, create: false } to spec.pvcs`,
        );
      }
    });
  }
}

/** A claim for model weights that many pods mount has a class that can bind it. */
export function claimRules(claim: Readonly<Record<string, unknown>>, f: Findings): void {
  const modes = at(claim, 'spec.accessModes');
  const rwx = Array.isArray(modes) && modes.includes('ReadWriteMany');
  if (rwx && at(claim, 'spec.storageClassName') === undefined) {
    f.report(
      'rwx-without-storage-class',
      undefined,
      { field: 'spec.storageClassName', option: 'storageClassName' },
      'is not set on a ReadWriteMany claim: it binds only if the cluster default StorageClass supports RWX (NFS, CephFS, EFS...); otherwise it stays Pending and no worker starts. Set storageClassName',
    );
  }
}
