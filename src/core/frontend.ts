import { checkInteger, checkKnownKeys, checkPort, join, optionKeys } from './checks';
import { GraphContext } from './context';
import { checkEnvMap, checkPodInfoFields, EnvMap, PodInfoField } from './env';
import { Diagnostics, show } from './errors';
import { ComputeResources } from './k8s';
import { Router } from './router';
import { checkResources, DgdService, imagePullSecrets, modelCacheVolumeMounts, renderResources, serviceEnv } from './service';
import { prune } from './util';
import { DynamoRelease } from './versions';

/** The port the Dynamo operator gives the frontend's container, Service and probes. */
export const FRONTEND_HTTP_PORT = 8000;

/** The OpenAI-compatible HTTP frontend and its router. */
export interface FrontendOptions {
  /**
   * Frontend pods.
   * @default 1
   */
  readonly replicas?: number;
  /**
   * How requests are routed to workers.
   * @default Router.roundRobin()
   */
  readonly router?: Router;
  /**
   * Port the frontend listens on (`--http-port`). The operator's Service and
   * probes use 8000, so another port needs matching patches.
   * @default 8000
   */
  readonly httpPort?: number;
  /**
   * Environment of the frontend; replaces generated variables of the same name.
   * @default - none
   */
  readonly env?: EnvMap;
  /**
   * Pod fields exposed as environment variables.
   * @default - the graph's `podInfoEnv`
   */
  readonly podInfoEnv?: readonly PodInfoField[];
  /**
   * CPU and memory.
   * @default - the operator's defaults
   */
  readonly resources?: ComputeResources;
}

const FRONTEND_KEYS = optionKeys<FrontendOptions>()('replicas', 'router', 'httpPort', 'env', 'podInfoEnv', 'resources');

export function checkFrontend(d: Diagnostics, path: string, o: FrontendOptions, release?: DynamoRelease): void {
  checkKnownKeys(d, path, o, FRONTEND_KEYS);
  checkInteger(d, join(path, 'replicas'), o.replicas, 0);
  if (o.router !== undefined) {
    if (o.router instanceof Router) {
      o.router._validate(d, join(path, 'router'), release);
    } else {
      d.error(join(path, 'router'), `must be Router.kv(), Router.roundRobin() or Router.random(), got ${show(o.router)}`, 'value-type');
    }
  }
  checkPort(d, join(path, 'httpPort'), o.httpPort);
  checkEnvMap(d, join(path, 'env'), o.env);
  checkPodInfoFields(d, join(path, 'podInfoEnv'), o.podInfoEnv);
  checkResources(d, join(path, 'resources'), o.resources);
}

export function renderFrontend(ctx: GraphContext, o: FrontendOptions): DgdService {
  const args = ctx.router._frontendArgs(ctx.routerBlockSize, ctx.release);
  if (o.httpPort !== undefined && o.httpPort !== FRONTEND_HTTP_PORT) args.push('--http-port', String(o.httpPort));
  const resources = renderResources(o.resources);
  return prune<DgdService>({
    componentType: 'frontend',
    replicas: o.replicas ?? 1,
    resources,
    volumeMounts: modelCacheVolumeMounts(ctx),
    envs: serviceEnv(ctx, o.podInfoEnv, [], o.env),
    extraPodSpec: {
      imagePullSecrets: imagePullSecrets(ctx),
      mainContainer: {
        image: ctx.image,
        imagePullPolicy: ctx.imagePullPolicy,
        // Only when there are flags: otherwise the operator's default command runs unchanged.
        command: args.length > 0 ? ['python3', '-m', 'dynamo.frontend'] : undefined,
        args: args.length > 0 ? args : undefined,
      },
    },
  });
}
