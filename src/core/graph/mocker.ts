import { WorkerRole } from '../engines/backend';
import { GraphContext } from './context';
import { renderResources, imagePullSecrets, modelCacheVolumeMounts, serviceEnv, DgdService, RenderedWorker, workerIdentity } from './service';
import type { EnvMap, PodInfoField } from '../base/env';
import type { ComputeResources } from '../base/k8s';
import { prune } from '../base/util';

/** The command of Dynamo's mocker engine. */
export const MOCKER_COMMAND = ['python3', '-m', 'dynamo.mocker'];

/** `registry/path/<name>:tag` with another name, as Dynamo's profiler derives one image from another. */
function withImageName(image: string, name: string): string {
  const m = /^(.*\/)?([^/:@]+)((?::[^/]+)?(?:@.+)?)$/.exec(image);
  return m ? `${m[1] ?? ''}${name}${m[3]}` : image;
}

/** The mocker's image: the release's mocker image (1.x, from the graph's registry and tag), else the graph's. */
export function mockerImage(ctx: GraphContext): string {
  const m = ctx.release.mocker;
  return m.image ? withImageName(ctx.image, m.image) : ctx.image;
}

/**
 * A worker pool as a rehearsal renders it: Dynamo's mocker in the engine's role, with the
 * engine's model, served name, block size (what the router announces), sequence limits and
 * replicas, and none of its GPU, fabric or engine settings.
 */
/** What a mocker takes of a worker pool's options (`WorkerOptions` has them all). */
export interface MockerPoolOptions {
  readonly replicas?: number;
  readonly blockSize?: number;
  readonly maxNumSeqs?: number;
  readonly maxModelLen?: number;
  readonly resources?: ComputeResources;
  readonly env?: EnvMap;
  readonly podInfoEnv?: readonly PodInfoField[];
}

export function renderMockerWorker(ctx: GraphContext, role: WorkerRole, o: MockerPoolOptions): RenderedWorker {
  const m = ctx.release.mocker;
  const args = [
    '--model-path',
    ctx.model,
    ...(ctx.servedModelName !== undefined ? ['--model-name', ctx.servedModelName] : []),
    ...(m.engineTypeFlag ? [m.engineTypeFlag, ctx.backend.name] : []),
    '--block-size',
    String(o.blockSize ?? ctx.backend._renderer.defaultBlockSize),
    ...(o.maxNumSeqs !== undefined ? ['--max-num-seqs', String(o.maxNumSeqs)] : []),
    ...(m.maxModelLen && o.maxModelLen !== undefined ? ['--max-model-len', String(o.maxModelLen)] : []),
    ...(role === 'aggregated' ? [] : m.roleFlags[role]),
    ...(m.clusterFlags ?? []),
  ];
  const resources = renderResources(o.resources);
  const service = prune<DgdService>({
    ...workerIdentity(ctx, role, o.replicas),
    resources: { requests: resources.requests, limits: resources.limits },
    volumeMounts: modelCacheVolumeMounts(ctx),
    envs: serviceEnv(ctx, o.podInfoEnv, [], o.env),
    extraPodSpec: {
      imagePullSecrets: imagePullSecrets(ctx),
      mainContainer: {
        image: mockerImage(ctx),
        workingDir: '/workspace',
        imagePullPolicy: ctx.imagePullPolicy,
        command: MOCKER_COMMAND,
        args,
      },
    },
  });
  return { service, generatedArgs: args };
}
