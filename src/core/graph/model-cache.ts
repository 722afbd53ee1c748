import { checkClaimManifest, reportFindings } from '../rules';
import { checkDnsSubdomain, checkKnownKeys, checkOneOf, checkQuantity, checkString, join, optionKeys } from '../base/checks';
import { Diagnostics, show, validate, ValidationWarning } from '../base/errors';
import { EnvVar, KubeObject } from '../base/k8s';
import { prune } from '../base/util';

export type AccessMode = 'ReadWriteMany' | 'ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteOncePod';
export const ACCESS_MODES: readonly AccessMode[] = ['ReadWriteMany', 'ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteOncePod'];

/** Where model weights are cached: the default mount path of a model cache. */
export const DEFAULT_MODEL_CACHE_MOUNT_PATH = '/opt/models';

/** A new PersistentVolumeClaim that caches model weights for a graph's frontend and workers. */
export interface ModelCacheOptions {
  /** Capacity of the claim, e.g. `'100Gi'`. */
  readonly size: string;
  /**
   * Access mode. Every worker pod mounts the cache, so it must be shared.
   * @default 'ReadWriteMany'
   */
  readonly accessMode?: AccessMode;
  /**
   * StorageClass of the claim; it must support the access mode (NFS, CephFS, EFS, Filestore...).
   * @default - the cluster's default StorageClass
   */
  readonly storageClassName?: string;
  /**
   * Where services mount the cache; `HF_HOME` points here.
   * @default '/opt/models'
   */
  readonly mountPath?: string;
}

/** An existing claim used as the model cache. */
export interface ExistingModelCacheOptions {
  /** Name of the existing PersistentVolumeClaim. */
  readonly claimName: string;
  /**
   * Where services mount the cache; `HF_HOME` points here.
   * @default '/opt/models'
   */
  readonly mountPath?: string;
}

const NEW_KEYS = optionKeys<ModelCacheOptions>()('size', 'accessMode', 'storageClassName', 'mountPath');
const EXISTING_KEYS = optionKeys<ExistingModelCacheOptions>()('claimName', 'mountPath');

/**
 * How a graph uses a model cache: the claim and where the frontend and workers mount it
 * (1.x: a pod volume of the claim in each component's `podTemplate`; 0.8/0.9: the claim listed
 * in `spec.pvcs` with `create: false`, mounted through the service's `volumeMounts`).
 */
export interface ModelCacheMount {
  readonly claimName: string;
  readonly mountPath: string;
}

function checkMountPath(d: Diagnostics, path: string, value: unknown): void {
  if (value === undefined) return;
  if (!checkString(d, path, value)) return;
  if (!value.startsWith('/')) {
    d.error(path, `must be an absolute path, got ${show(value)}`, 'value-format');
  } else if (value.split('/').includes('..') || /[\p{Cc}\p{Cf}]/u.test(value)) {
    // the runtime resolves '..': "/opt/models/../../etc" would mount the cache over /etc
    d.error(path, `must be an absolute path without '..' segments or control characters, got ${show(value)}`, 'value-format');
  }
}

/** Validates a new model cache; `name` is the claim name. */
export function checkModelCache(d: Diagnostics, path: string, name: string, o: ModelCacheOptions): void {
  checkKnownKeys(d, path, o, NEW_KEYS);
  checkDnsSubdomain(d, join(path, 'name'), name, '; pass `name` to choose the claim name');
  if (o.size === undefined) d.error(join(path, 'size'), 'is required, e.g. "100Gi"', 'required');
  checkQuantity(d, join(path, 'size'), o.size);
  checkOneOf(d, join(path, 'accessMode'), o.accessMode, ACCESS_MODES);
  checkDnsSubdomain(d, join(path, 'storageClassName'), o.storageClassName);
  checkMountPath(d, join(path, 'mountPath'), o.mountPath);
}

export function checkExistingModelCache(d: Diagnostics, path: string, o: ExistingModelCacheOptions): void {
  checkKnownKeys(d, path, o, EXISTING_KEYS);
  if (checkString(d, join(path, 'claimName'), o.claimName, true)) checkDnsSubdomain(d, join(path, 'claimName'), o.claimName);
  checkMountPath(d, join(path, 'mountPath'), o.mountPath);
}

/** Renders the PersistentVolumeClaim of a new model cache. */
export function renderModelCachePvc(name: string, namespace: string | undefined, o: ModelCacheOptions): { object: KubeObject; warnings: ValidationWarning[] } {
  const optionWarnings = validate((d) => checkModelCache(d, '', name, o));
  const object: KubeObject = prune({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace },
    spec: {
      accessModes: [o.accessMode ?? 'ReadWriteMany'],
      resources: { requests: { storage: o.size } },
      storageClassName: o.storageClassName,
    },
  });
  // the claim rules `dynamo-constructs lint` runs, reported at the options
  const warnings = validate((d) => reportFindings(d, checkClaimManifest(object), (f) => f.option ?? f.field));
  return { object, warnings: [...optionWarnings, ...warnings] };
}

export function modelCacheMount(claimName: string, mountPath: string | undefined): ModelCacheMount {
  return { claimName, mountPath: mountPath ?? DEFAULT_MODEL_CACHE_MOUNT_PATH };
}

/** The environment that points Hugging Face libraries at the cache. */
export function modelCacheEnv(mount: ModelCacheMount): EnvVar[] {
  return [{ name: 'HF_HOME', value: mount.mountPath }];
}
