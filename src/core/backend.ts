import { SGLANG } from './backends/sglang';
import { TRTLLM } from './backends/trtllm';
import { VLLM } from './backends/vllm';
import { checkKnownKeys, checkString, join, optionKeys } from './checks';
import { Diagnostics, show } from './errors';
import { NixlBackend } from './fabric';
import { EnvVar } from './k8s';
import { BackendName, DynamoRelease } from './versions';

export { BackendName } from './versions';

/** CUDA major version of a runtime image: 13 on 1.x (1.6.1 included), whose runtime images are CUDA 13 only; 12 or 13 on 0.8/0.9. */
export type CudaVersion = 12 | 13;

export interface BackendOptions {
  /**
   * Container image of the graph's frontend and engine workers, used as given. The planner runs
   * it on 0.8/0.9 only: the 1.x planner runs the release's `dynamo-planner` image (and a 1.x
   * rehearsal's mockers `dynamo-planner` of this image's registry and tag).
   * @default - the backend's runtime image of `dynamoVersion`: on 1.6.1 `nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.1`
   * (`sglang-runtime:1.6.1`, `tensorrtllm-runtime:1.6.1`), with `Fabric.efa()` its `-efa` variant for the workers;
   * on 0.8/0.9 the tag of `cuda` (`vllm-runtime:0.9.0-cuda13` for `cuda: 13`)
   */
  readonly image?: string;
  /**
   * CUDA major version of the default runtime image; pick the one the node driver supports
   * (`nvidia-smi`). 1.x (1.6.1 included): every runtime image is CUDA 13 only, so 13 is the
   * only value and `cuda: 12` is an error. 0.8/0.9: vLLM and SGLang publish CUDA 12 tags and
   * `-cuda13` variants; TensorRT-LLM tags are CUDA 13 only.
   * @default - the plain tag: CUDA 13 on 1.x; on 0.8/0.9 CUDA 12 for vLLM and SGLang, 13 for TensorRT-LLM
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
    if (cuda !== undefined && this.options.image !== undefined) {
      d.error(join(path, 'cuda'), `selects a default image, but image is set to ${show(this.options.image)}; remove one of them`, 'option-conflict');
      return;
    }
    if (!release) return;
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
