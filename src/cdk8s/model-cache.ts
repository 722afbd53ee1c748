import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import {
  checkExistingModelCache,
  DEFAULT_MODEL_CACHE_MOUNT_PATH,
  Diagnostics,
  IModelCache,
  ModelCacheOptions,
  NameRef,
  nameOf,
  renderModelCachePvc,
  ValidationWarning,
} from '../core/internal';
import { apiObjectFromCore, namespaceOf } from './api-object';
import { reportWarningsOnSynth, StrictOptions } from './warnings';

export interface ModelCacheProps extends ModelCacheOptions, StrictOptions {
  /**
   * Name of the PersistentVolumeClaim.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Namespace of the claim, by name or as an object (e.g. a cdk8s-plus `Namespace`).
   * @default - the chart's namespace
   */
  readonly namespace?: NameRef;
}

export interface ExistingModelCacheProps {
  /** The existing claim, by name or as an object (e.g. a cdk8s-plus `IPersistentVolumeClaim`). */
  readonly claimName: NameRef;
  /**
   * Where services mount it; `HF_HOME` points here.
   * @default '/opt/models'
   */
  readonly mountPath?: string;
}

class ExistingModelCache extends Construct implements IModelCache {
  public readonly claimName: string;
  public readonly mountPath: string;
  /** An existing claim creates no objects. */
  public readonly apiObjects: ApiObject[] = [];

  constructor(scope: Construct, id: string, props: ExistingModelCacheProps) {
    super(scope, id);
    const claimName = props?.claimName !== undefined && props.claimName !== null ? nameOf(props.claimName) : (undefined as unknown as string);
    const d = new Diagnostics();
    checkExistingModelCache(d, '', { claimName, mountPath: props?.mountPath });
    d.throwIfErrors();
    this.claimName = claimName;
    this.mountPath = props.mountPath ?? DEFAULT_MODEL_CACHE_MOUNT_PATH;
  }
}

/**
 * A PersistentVolumeClaim that caches model weights (ReadWriteMany by default).
 * Give it to a graph as `modelCache`: the graph mounts it on the frontend and workers and
 * points `HF_HOME` at it (1.x: a pod volume of the claim in each `podTemplate`; 0.8/0.9: the
 * claim listed in `spec.pvcs` with `create: false`).
 */
export class ModelCache extends Construct implements IModelCache {
  /** Uses an existing PersistentVolumeClaim as the model cache; creates nothing. */
  public static fromClaim(scope: Construct, id: string, props: ExistingModelCacheProps): IModelCache {
    return new ExistingModelCache(scope, id, props);
  }

  public readonly claimName: string;
  public readonly mountPath: string;
  /** The PersistentVolumeClaim. */
  public readonly apiObject: ApiObject;
  /** Warnings about the claim (e.g. ReadWriteMany without a storage class). */
  public readonly warnings: readonly ValidationWarning[];

  constructor(scope: Construct, id: string, props: ModelCacheProps) {
    super(scope, id);
    const { name, namespace, strict, ...options } = props ?? ({} as typeof props);
    this.claimName = name ?? id;
    this.mountPath = options.mountPath ?? DEFAULT_MODEL_CACHE_MOUNT_PATH;
    const rendered = renderModelCachePvc(this.claimName, namespaceOf(this, namespace), options);
    this.warnings = rendered.warnings;
    this.apiObject = apiObjectFromCore(this, 'Resource', rendered.object);
    reportWarningsOnSynth(this, strict, () => this.warnings);
  }

  /** Every object this construct creates. */
  public get apiObjects(): ApiObject[] {
    return [this.apiObject];
  }
}
