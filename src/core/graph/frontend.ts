import { checkInteger, checkKnownKeys, checkPort, join, optionKeys } from '../base/checks';
import { GraphContext } from './context';
import { checkEnvMap, checkPodInfoFields, EnvMap, PodInfoField } from '../base/env';
import { Diagnostics, show } from '../base/errors';
import { ComputeResources, PodPlacementOptions } from '../base/k8s';
import { Router } from './router';
import {
  checkPodPlacement,
  checkResources,
  DgdService,
  imagePullSecrets,
  modelCacheVolumeMounts,
  POD_PLACEMENT_KEYS,
  podPlacement,
  renderResources,
  serviceEnv,
} from './service';
import { prune } from '../base/util';
import { DynamoRelease } from '../releases/versions';
import { FRONTEND_HTTP_PORT } from '../model/dgd';

export { FRONTEND_HTTP_PORT } from '../model/dgd';

/**
 * The OpenAI-compatible HTTP frontend and its router. With a graph `hfTokenSecret`, the frontend
 * gets the Secret as `envFrom` where the release's own manifests give it (Dynamo 1.x, 1.6.1
 * included: it fetches the model's tokenizer, which a gated model keeps behind the token);
 * 0.8/0.9 give it to the workers only.
 */
export interface FrontendOptions extends PodPlacementOptions {
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

const FRONTEND_KEYS = optionKeys<FrontendOptions>()('replicas', 'router', 'httpPort', 'env', 'podInfoEnv', 'resources', ...POD_PLACEMENT_KEYS);

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
  checkPodPlacement(d, path, o, release);
}

export function renderFrontend(ctx: GraphContext, o: FrontendOptions): DgdService {
  const args = ctx.router._frontendArgs(ctx.routerBlockSize, ctx.release);
  if (o.httpPort !== undefined && o.httpPort !== FRONTEND_HTTP_PORT) args.push('--http-port', String(o.httpPort));
  const resources = renderResources(o.resources);
  return prune<DgdService>({
    envFromSecret: ctx.release.hfTokenSecret.frontend ? ctx.hfTokenSecret : undefined,
    componentType: 'frontend',
    replicas: o.replicas ?? 1,
    resources,
    volumeMounts: modelCacheVolumeMounts(ctx),
    envs: serviceEnv(ctx, o.podInfoEnv, [], o.env),
    topologyConstraint: o.topologyConstraint,
    extraPodSpec: {
      imagePullSecrets: imagePullSecrets(ctx),
      ...podPlacement(ctx, o),
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
