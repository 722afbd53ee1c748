import type { Backend } from '../engines/backend';
import type { PodInfoField } from '../base/env';
import type { Fabric } from './fabric';
import type { ImagePullPolicy } from '../base/k8s';
import type { ModelCacheMount } from './model-cache';
import type { Router } from './router';
import type { DynamoRelease } from '../releases/versions';

/** Graph-wide settings every component renders with, after defaults are applied. */
export interface GraphContext {
  readonly name: string;
  readonly namespace?: string;
  readonly model: string;
  readonly servedModelName?: string;
  readonly backend: Backend;
  readonly dynamoVersion: string;
  readonly release: DynamoRelease;
  readonly image: string;
  /**
   * The image of the engine workers: the graph's image, or with `Fabric.efa()` and the default
   * image, the release's EFA runtime image where it publishes one (`<backend>-runtime:<version>-efa`, 1.x).
   */
  readonly workerImage: string;
  /** The PriorityClass of every pod whose component sets none (`priorityClassName`). */
  readonly priorityClassName?: string;
  readonly imagePullPolicy: ImagePullPolicy;
  readonly imagePullSecrets: readonly string[];
  readonly hfTokenSecret?: string;
  readonly modelCache?: ModelCacheMount;
  readonly fabric: Fabric;
  readonly trustRemoteCode: boolean;
  readonly podInfoEnv: readonly PodInfoField[];
  /** The frontend's router (round-robin when the graph has no frontend). */
  readonly router: Router;
  /** The KV block size the router announces, derived from the workers when not set. */
  readonly routerBlockSize?: number;
  /** Whether a planner scales the workers (it then owns their replica counts). */
  readonly planned: boolean;
  /** Workers run Dynamo's mocker in place of their engine (`rehearsal`). */
  readonly rehearsal: boolean;
  /** The security context every pod gets (`podSecurity`). */
  readonly podSecurity: PodSecurity;
}

/** How hardened a graph's pods are (see `GraphOptions.podSecurity`). */
export type PodSecurity = 'hardened' | 'restricted' | 'none';
