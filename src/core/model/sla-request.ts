import { DynamoRelease } from '../releases/versions';

/** The GPUs profiling searches over (Dynamo 0.8/0.9), or describes (Dynamo 1.x; discovered when left out). */
export interface ProfilingHardware {
  /** 0.8/0.9: fewest GPUs per engine to try. @default - the profiler's choice */
  readonly minGpusPerEngine?: number;
  /** 0.8/0.9: most GPUs per engine to try. @default - the profiler's choice */
  readonly maxGpusPerEngine?: number;
  /** GPUs per node. @default - the profiler's choice (0.8/0.9), discovered (1.x) */
  readonly gpusPerNode?: number;
  /** 1.x: the GPU type to target, e.g. `h200_sxm` (selects the nodes and the performance model). @default - discovered */
  readonly gpuSku?: string;
  /** 1.x: VRAM per GPU in MiB. @default - discovered */
  readonly vramMb?: number;
  /** 1.x: the GPU budget for profiling and deployment. @default - the GPUs discovered, at most 32 */
  readonly totalGpus?: number;
  /** 1.x: the GPU interconnect within a node, e.g. `nvlink` or `pcie`. @default - discovered where possible */
  readonly interconnect?: string;
  /** 1.x: whether the cluster has RDMA networking for KV transfer. @default - discovered where possible */
  readonly rdma?: boolean;
}

/** The workload of a Dynamo 1.x request, beyond `sla.isl` and `sla.osl`. */
export interface ProfilingWorkload {
  /** Target concurrency; excludes `requestRate`. @default - neither: maximum throughput, or the planner's choice */
  readonly concurrency?: number;
  /** Target request rate (requests per second); excludes `concurrency`. @default - neither */
  readonly requestRate?: number;
}

/**
 * One DynamoGraphDeploymentRequest, whatever its API version: what to profile (model, backend,
 * SLA, workload, hardware), how (the profiler's image, pod and search), the planner the generated
 * graph runs, and what the generated graph is called and runs. Values are resolved (defaults,
 * images, rendered resources); each API version's writer only lays them out.
 */
export interface SlaRequestModel {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** The release the request is for, and its version string. */
  readonly release: DynamoRelease;
  readonly version: string;
  readonly model: string;
  readonly backend: string;
  readonly sla: { readonly isl: number; readonly osl: number; readonly ttftMs: number; readonly itlMs: number };
  readonly workload?: ProfilingWorkload;
  readonly hardware?: ProfilingHardware;
  readonly modelCache?: { readonly claimName: string; readonly mountPath: string };
  readonly aiConfigurator?: { readonly system: string; readonly backendVersion: string; readonly hfId: string };
  /** The profiler image the user chose, if any (each writer has its release's default). */
  readonly profilerImage?: string;
  /** The backend's runtime image for this release (0.x: the profiler's and the workers' default). */
  readonly runtimeImage: string;
  /** The planner, as each API version's profiler reads it. */
  readonly planner: {
    /** Given by the user (0.x writes planner keys only then). */
    readonly given: boolean;
    readonly minEndpoint?: number;
    readonly maxGpuBudget?: number;
    readonly adjustmentIntervalSeconds?: number;
    /** The load predictor's keys in the 0.x profiler config. */
    readonly predictorKeys?: Readonly<Record<string, unknown>>;
    /** The 1.x PlannerConfig (`features.planner`). */
    readonly config: Readonly<Record<string, unknown>>;
  };
  /** The profiling Job's pod and its inputs. */
  readonly profiling: {
    readonly resources: { readonly requests: Readonly<Record<string, string>>; readonly limits: Readonly<Record<string, string>> };
    readonly tolerations?: readonly unknown[];
    readonly imagePullSecrets?: readonly string[];
    readonly hfTokenSecret?: string;
    /** The user's Job spec fragment, merged under what the library sets. */
    readonly job?: Readonly<Record<string, unknown>>;
    readonly configMapRef?: { readonly name: string; readonly key?: string };
    readonly outputPvc?: string;
    readonly searchStrategy?: string;
    readonly enableGpuDiscovery?: boolean;
  };
  readonly autoApply: boolean;
  /** Whether the generated graph runs the mocker instead of the engine. */
  readonly mocker?: boolean;
  readonly kvRouter?: boolean;
  readonly trustRemoteCode?: boolean;
  /** The generated graph: its name, namespace and metadata, its workers' image, a spec fragment over it. */
  readonly generated: {
    readonly name?: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly workersImage?: string;
    readonly spec?: Readonly<Record<string, unknown>>;
  };
}
