import { SGLANG } from './backends/sglang';
import { TRTLLM } from './backends/trtllm';
import { VLLM } from './backends/vllm';
import { checkKnownKeys, checkString, join, optionKeys } from './checks';
import { Diagnostics, show } from './errors';
import { NixlBackend } from './fabric';
import { EnvVar } from './k8s';
import { BackendName, DynamoRelease } from './versions';

export { BackendName } from './versions';

/** CUDA major version of a runtime image. */
export type CudaVersion = 12 | 13;

export interface BackendOptions {
  /**
   * Container image of every service of the graph.
   * @default - `nvcr.io/nvidia/ai-dynamo/<backend>-runtime:<dynamoVersion>` (with the CUDA suffix of `cuda`)
   */
  readonly image?: string;
  /**
   * CUDA major version of the default runtime image; pick the one the node driver supports
   * (`nvidia-smi`). vLLM and SGLang publish CUDA 12 tags and `-cuda13` variants;
   * TensorRT-LLM tags are CUDA 13 only.
   * @default - the plain tag (CUDA 12 for vLLM and SGLang, 13 for TensorRT-LLM)
   */
  readonly cuda?: CudaVersion;
}

const BACKEND_KEYS = optionKeys<BackendOptions>()('image', 'cuda');

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

/** The inference engine that runs the model. */
export class Backend {
  /** vLLM (`python3 -m dynamo.vllm`). */
  public static vllm(options: BackendOptions = {}): Backend {
    return new Backend('vllm', options ?? {});
  }

  /** SGLang (`python3 -m dynamo.sglang`). */
  public static sglang(options: BackendOptions = {}): Backend {
    return new Backend('sglang', options ?? {});
  }

  /** TensorRT-LLM (`python3 -m dynamo.trtllm`) with a generated engine config. */
  public static trtllm(options: BackendOptions = {}): Backend {
    return new Backend('trtllm', options ?? {});
  }

  private constructor(
    /** `vllm`, `sglang` or `trtllm`: the DGD's `backendFramework`. */
    public readonly name: BackendName,
    /** The options it was created with. */
    public readonly options: BackendOptions,
  ) {}

  /** @internal */
  public get _renderer(): BackendRenderer {
    return RENDERERS[this.name];
  }

  /** The runtime image for `version`, or the image set in the options. @internal */
  public _image(release: DynamoRelease, version: string): string {
    if (this.options.image !== undefined) return this.options.image;
    const images = release.images[this.name];
    const cuda = this.options.cuda ?? images.plainCuda;
    const suffix = cuda === images.plainCuda ? '' : (images.variants[cuda] ?? '');
    return `${release.registry}/${this._renderer.imageName}:${version}${suffix}`;
  }

  /** @internal */
  public _validate(d: Diagnostics, path: string, release: DynamoRelease | undefined, version: string): void {
    checkKnownKeys(d, path, this.options, BACKEND_KEYS);
    if (!checkString(d, join(path, 'image'), this.options.image)) return;
    const cuda = this.options.cuda;
    if (cuda !== undefined && cuda !== 12 && cuda !== 13) {
      d.error(join(path, 'cuda'), `must be 12 or 13, got ${show(cuda)}`, 'value-range');
      return;
    }
    if (!release) return;
    if (cuda !== undefined && this.options.image !== undefined) {
      d.error(join(path, 'cuda'), `selects a default image, but image is set to ${show(this.options.image)}; remove one of them`, 'option-conflict');
      return;
    }
    const images = release.images[this.name];
    if (cuda !== undefined && cuda !== images.plainCuda && images.variants[cuda] === undefined) {
      const available = [images.plainCuda, ...Object.keys(images.variants).map(Number)].sort();
      d.error(
        join(path, 'cuda'),
        `${this._renderer.imageName} images of Dynamo ${release.line}.x are published for CUDA ${available.join(', ')}, got ${cuda}`,
        'image-unavailable',
      );
      return;
    }
    const tag = this._image(release, version).split('/').pop()!;
    const broken = release.brokenImages[tag];
    if (broken !== undefined && this.options.image === undefined) {
      d.error(path, `the default image ${tag} ${broken}`, 'image-unavailable');
    }
  }
}

export const BACKEND_NAMES: readonly BackendName[] = ['vllm', 'sglang', 'trtllm'];

export function checkBackend(d: Diagnostics, path: string, backend: unknown): backend is Backend {
  if (backend instanceof Backend) return true;
  if (backend === undefined) {
    d.error(path, 'is required: Backend.vllm(), Backend.sglang() or Backend.trtllm()', 'required');
  } else {
    d.error(path, `must be Backend.vllm(), Backend.sglang() or Backend.trtllm(), got ${show(backend)}`, 'value-type');
  }
  return false;
}

const RENDERERS: Record<BackendName, BackendRenderer> = { vllm: VLLM, sglang: SGLANG, trtllm: TRTLLM };
