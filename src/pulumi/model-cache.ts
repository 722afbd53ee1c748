import * as pulumi from '@pulumi/pulumi';
import {
  checkExistingModelCache,
  DEFAULT_MODEL_CACHE_MOUNT_PATH,
  Diagnostics,
  ExistingModelCacheOptions,
  IModelCache,
  ModelCacheOptions,
  renderModelCachePvc,
} from '../core/internal';
import { childOptions, registerObject, reportWarnings, StrictArgs, typeToken } from './common';

export interface ModelCacheArgs extends ModelCacheOptions, StrictArgs {
  /**
   * Name of the PersistentVolumeClaim.
   * @default - the component name
   */
  readonly name?: string;
  /**
   * Namespace of the claim.
   * @default - the provider's namespace
   */
  readonly namespace?: string;
}

/**
 * A PersistentVolumeClaim that caches model weights (ReadWriteMany by default);
 * give it to a graph as `modelCache`, which then waits for the claim.
 */
export class ModelCache extends pulumi.ComponentResource implements IModelCache {
  /** Uses an existing PersistentVolumeClaim as the model cache; creates nothing. */
  public static fromClaim(_name: string, args: ExistingModelCacheOptions): IModelCache {
    const d = new Diagnostics();
    checkExistingModelCache(d, '', args ?? ({} as ExistingModelCacheOptions));
    d.throwIfErrors();
    return { claimName: args.claimName, mountPath: args.mountPath ?? DEFAULT_MODEL_CACHE_MOUNT_PATH };
  }

  public readonly claimName: string;
  public readonly mountPath: string;
  /** The PersistentVolumeClaim. */
  public readonly resource: pulumi.CustomResource;

  constructor(name: string, args: ModelCacheArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('ModelCache'), name, {}, opts);
    const { name: claimName, namespace, strict, ...options } = args ?? ({} as ModelCacheArgs);
    this.claimName = claimName ?? name;
    this.mountPath = options.mountPath ?? DEFAULT_MODEL_CACHE_MOUNT_PATH;
    const rendered = renderModelCachePvc(this.claimName, namespace, options);
    reportWarnings(this, strict, rendered.warnings);
    this.resource = registerObject(name, rendered.object, rendered.object, childOptions(this, opts));
    this.registerOutputs({ claimName: this.claimName });
  }
}
