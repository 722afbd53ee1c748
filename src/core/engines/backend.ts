import { SGLANG } from './sglang';
import { TRTLLM } from './trtllm';
import { VLLM } from './vllm';
import { checkKnownKeys, checkString, join, optionKeys } from '../base/checks';
import { Diagnostics, show } from '../base/errors';
import { BackendName, DynamoRelease } from '../releases/versions';

export { BackendName } from '../releases/versions';
export type { KvEventsMode, WorkerRole, NixlBackend } from './renderer';
import type { BackendRenderer } from './renderer';

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
