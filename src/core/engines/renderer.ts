import { EnvVar } from '../base/k8s';
import { BackendName, DynamoRelease } from '../releases/versions';

/**
 * The contract between the graph and an engine: what a worker is, what an engine needs to render
 * its command line, and what it renders. Each engine (vLLM, SGLang, TensorRT-LLM) implements it.
 */

/** The NIXL transfer backend a fabric needs. */
export type NixlBackend = 'UCX' | 'LIBFABRIC';

/** What a worker is in a graph. */
export type WorkerRole = 'prefill' | 'decode' | 'aggregated';

/** Whether a worker should publish KV cache events. */
export type KvEventsMode = 'publish' | 'suppress' | 'backend-default';

/** Everything a backend needs to render one worker's command line. @internal */
export interface WorkerLaunch {
  readonly role: WorkerRole;
  readonly model: string;
  readonly servedModelName?: string;
  readonly trustRemoteCode: boolean;
  readonly tensorParallelSize: number;
  readonly pipelineParallelSize?: number;
  readonly maxNumSeqs?: number;
  readonly kvCacheDtype?: string;
  readonly blockSize?: number;
  readonly maxModelLen?: number;
  readonly kvEvents: KvEventsMode;
  readonly nixlBackend?: NixlBackend;
  /** TensorRT-LLM: where the engine config file is mounted. */
  readonly engineConfigPath?: string;
  /** TensorRT-LLM: user keys deep-merged over the generated engine config. */
  readonly engineConfig?: Readonly<Record<string, unknown>>;
  /** Nodes one engine spans, when more than one. */
  readonly nodeCount?: number;
  readonly release: DynamoRelease;
}

/** A backend's rendering of one worker. @internal */
export interface WorkerCommand {
  readonly command: string[];
  readonly args: string[];
  readonly env: EnvVar[];
  /** TensorRT-LLM engine config (YAML content of the mounted ConfigMap). */
  readonly engineConfig?: Record<string, unknown>;
}

/** Per-backend knowledge. @internal */
export interface BackendRenderer {
  readonly name: BackendName;
  /** Image repository name under the Dynamo registry. */
  readonly imageName: string;
  /** Default service names of the worker roles (Grove limits graph + service name to 45 characters). */
  readonly serviceNames: Readonly<Record<WorkerRole, string>>;
  /** Default `/dev/shm` size of a worker. */
  readonly sharedMemory: string;
  /** KV cache block size the engine uses when none is set (announced to a KV router). */
  readonly defaultBlockSize: number;
  /** Whether the worker takes an engine config file (TensorRT-LLM). */
  readonly usesEngineConfigFile: boolean;
  readonly workingDir: string;
  /**
   * Flags the library owns on every worker of this backend, rendered or not:
   * `extraArgs` may not set them (e.g. a vLLM role flag on the other role's worker).
   */
  readonly ownedFlags: readonly string[];
  /** Engine config keys rendered from worker options, by dotted path, with the option to use instead. */
  readonly engineKeysFromOptions: Readonly<Record<string, string>>;
  /** Checks a block size the engine of `release` accepts; returns what is allowed, or undefined when `size` is fine. */
  blockSizeProblem(size: number, release: DynamoRelease | undefined): string | undefined;
  /** Checks `extraArgs` combinations the engine of `release` rejects at start; returns the problem, or undefined. */
  extraArgsProblem(extraArgs: readonly string[], release: DynamoRelease): string | undefined;
  renderWorker(launch: WorkerLaunch): WorkerCommand;
}
