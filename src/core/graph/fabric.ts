import type { Backend } from '../engines/backend';
import type { NixlBackend } from '../engines/renderer';
import { checkBoolean, checkInteger, checkKnownKeys, checkString, join, optionKeys } from '../base/checks';
import { EnvMap, checkEnvMap, envMapToList, mergeEnv } from '../base/env';
import { Diagnostics, show } from '../base/errors';
import { EnvVar } from '../base/k8s';
import type { DynamoRelease } from '../releases/versions';

/** The network KV cache blocks travel over between prefill and decode workers. */
export type FabricKind = 'rdma' | 'efa' | 'tcp';

/** InfiniBand / RoCE through UCX (guide 2). */
export interface RdmaFabricOptions {
  /**
   * Extended resource the RDMA device plugin advertises.
   * @default 'rdma/hca_shared_devices'
   */
  readonly resourceName?: string;
  /**
   * RDMA devices requested per worker pod (limits and requests).
   * @default - the GPUs of each worker pod (guide 2: match the tensor parallel size)
   */
  readonly deviceCount?: number;
  /**
   * UCX transports (`UCX_TLS`).
   * @default 'rc_x,rc,dc_x,dc,cuda_copy,cuda_ipc'
   */
  readonly ucxTls?: string;
  /**
   * UCX rendezvous scheme (`UCX_RNDV_SCHEME`); `get_zcopy` is zero-copy RDMA.
   * @default 'get_zcopy'
   */
  readonly ucxRndvScheme?: string;
  /**
   * UCX rendezvous threshold in bytes (`UCX_RNDV_THRESH`); 0 uses RDMA for every message size.
   * @default '0'
   */
  readonly ucxRndvThresh?: string;
  /**
   * More environment for the workers, e.g. `{ UCX_IB_GID_INDEX: '3' }` on RoCE v2.
   * A name set here replaces the default of the same name.
   * @default - none
   */
  readonly env?: EnvMap;
}

/** AWS Elastic Fabric Adapter through NIXL's LIBFABRIC backend (guide 4). */
export interface EfaFabricOptions {
  /**
   * Extended resource the EFA device plugin advertises.
   * @default 'vpc.amazonaws.com/efa'
   */
  readonly resourceName?: string;
  /**
   * EFA devices requested per worker pod (limits and requests).
   * @default - the GPUs of each worker pod
   */
  readonly deviceCount?: number;
  /**
   * Let libfabric hand same-node transfers to its shm provider. Off by default:
   * with it on, a prefill and a decode worker on the same node fall back to
   * staged copies through host memory (SAR) and KV transfer is ~9x slower
   * (guide 4: 1,776 ms vs 196 ms). Sets `FI_EFA_ENABLE_SHM_TRANSFER`.
   * @default false
   */
  readonly shmTransfer?: boolean;
  /**
   * More environment for the workers; a name set here replaces the default of the same name.
   * @default - none
   */
  readonly env?: EnvMap;
}

const RDMA_KEYS = optionKeys<RdmaFabricOptions>()('resourceName', 'deviceCount', 'ucxTls', 'ucxRndvScheme', 'ucxRndvThresh', 'env');
const EFA_KEYS = optionKeys<EfaFabricOptions>()('resourceName', 'deviceCount', 'shmTransfer', 'env');

/** What a fabric adds to each worker pod. @internal */
export interface FabricContribution {
  readonly env: EnvVar[];
  readonly capabilities: string[];
  readonly devices: Record<string, string>;
  readonly nixlBackend?: NixlBackend;
}

const EXTENDED_RESOURCE = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** The network used for KV cache transfer between disaggregated workers. */
export class Fabric {
  /**
   * InfiniBand or RoCE over UCX: an RDMA device request on each worker (count =
   * GPUs per worker pod), IPC_LOCK, and guide 2's UCX environment.
   */
  public static rdma(options: RdmaFabricOptions = {}): Fabric {
    return new Fabric('rdma', options ?? {});
  }

  /**
   * AWS EFA: an EFA device request, NIXL's LIBFABRIC backend, and
   * `FI_EFA_ENABLE_SHM_TRANSFER=0` (guide 4 explains why).
   *
   * Engine workers run the release's EFA runtime image when the graph uses the default image:
   * Dynamo publishes `<backend>-runtime:<version>-efa` for vLLM, SGLang and TensorRT-LLM on the
   * 1.x lines (1.6.1 renders `nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.1-efa`; 1.4 and 1.5 the
   * same with their version). The plain tag has no aws-ofi-nccl, so NCCL cannot use EFA in it.
   * Dynamo 0.8 and 0.9 publish no EFA images (the variants came with 1.0.0): their workers keep the
   * plain runtime image. The frontend and planner keep their images; a graph `image` (or the
   * backend's) is used as given.
   */
  public static efa(options: EfaFabricOptions = {}): Fabric {
    return new Fabric('efa', options ?? {});
  }

  /**
   * Plain TCP: no RDMA. Fine for aggregated serving; for disaggregated serving
   * it is a validation warning (guide 2: TTFT ~40x worse).
   */
  public static tcp(): Fabric {
    return new Fabric('tcp', {});
  }

  private constructor(
    /** The kind of fabric. */
    public readonly kind: FabricKind,
    /** The options it was created with. */
    public readonly options: RdmaFabricOptions | EfaFabricOptions,
  ) {}

  /** @internal */
  public _validate(d: Diagnostics, path: string): void {
    if (this.kind === 'tcp') return;
    const o = this.options;
    checkKnownKeys(d, path, o, this.kind === 'rdma' ? RDMA_KEYS : EFA_KEYS);
    if (o.resourceName !== undefined && (typeof o.resourceName !== 'string' || !EXTENDED_RESOURCE.test(o.resourceName))) {
      d.error(join(path, 'resourceName'), `must be an extended resource name such as "rdma/hca_shared_devices", got ${show(o.resourceName)}`, 'value-format');
    }
    checkInteger(d, join(path, 'deviceCount'), o.deviceCount, 1);
    checkEnvMap(d, join(path, 'env'), o.env);
    if (this.kind === 'rdma') {
      const r = o as RdmaFabricOptions;
      checkString(d, join(path, 'ucxTls'), r.ucxTls);
      checkString(d, join(path, 'ucxRndvScheme'), r.ucxRndvScheme);
      checkString(d, join(path, 'ucxRndvThresh'), r.ucxRndvThresh);
    } else {
      checkBoolean(d, join(path, 'shmTransfer'), (o as EfaFabricOptions).shmTransfer);
    }
  }

  /**
   * Environment, capabilities and device requests for one worker pod that uses `gpusPerPod` GPUs.
   * @internal
   */
  public _contribution(gpusPerPod: number): FabricContribution {
    if (this.kind === 'tcp') return { env: [], capabilities: [], devices: {} };
    const o = this.options;
    // NIXL registers GPU memory with the NIC, which needs locked memory
    const capabilities = ['IPC_LOCK'];
    const count = String(o.deviceCount ?? gpusPerPod);
    if (this.kind === 'rdma') {
      const r = o as RdmaFabricOptions;
      const env = mergeEnv(
        [
          { name: 'UCX_TLS', value: r.ucxTls ?? 'rc_x,rc,dc_x,dc,cuda_copy,cuda_ipc' },
          { name: 'UCX_RNDV_SCHEME', value: r.ucxRndvScheme ?? 'get_zcopy' },
          { name: 'UCX_RNDV_THRESH', value: r.ucxRndvThresh ?? '0' },
        ],
        envMapToList(r.env),
      );
      return { env, capabilities, devices: { [r.resourceName ?? 'rdma/hca_shared_devices']: count }, nixlBackend: 'UCX' };
    }
    const e = o as EfaFabricOptions;
    const env = mergeEnv(
      [
        { name: 'FI_PROVIDER', value: 'efa' },
        { name: 'FI_EFA_USE_DEVICE_RDMA', value: '1' },
        ...(e.shmTransfer ? [] : [{ name: 'FI_EFA_ENABLE_SHM_TRANSFER', value: '0' }]),
      ],
      envMapToList(e.env),
    );
    return { env, capabilities, devices: { [e.resourceName ?? 'vpc.amazonaws.com/efa']: count }, nixlBackend: 'LIBFABRIC' };
  }
}

/**
 * The image of a graph's engine workers: the graph's image, or (with `Fabric.efa()` and the
 * release's default runtime image) its EFA variant where the release publishes one.
 */
export function workerImageOf(fabric: unknown, backend: Backend, image: string | undefined, release: DynamoRelease, version: string): string {
  const own = image ?? backend.options.image;
  if (own !== undefined) return own;
  const runtime = backend._image(release, version);
  const efa = release.images[backend.name].efa;
  return fabric instanceof Fabric && fabric.kind === 'efa' && efa !== undefined ? `${runtime}${efa}` : runtime;
}
