import * as pulumi from '@pulumi/pulumi';
import { checkJsonPatch, Diagnostics, JsonPatchOperation, PatchScope, rebasePatches } from '../core/internal';
import { typeToken } from './common';
import type { DynamoGraph } from './graph';

/**
 * A service of a `DynamoGraph` (frontend, worker pool, planner). It lives inside the graph's
 * DynamoGraphDeployment; its patches are written relative to it and land in the right place on
 * every release, so that they survive an upgrade from 0.8/0.9 (v1alpha1) to 1.x (v1beta1).
 * Patches are plain JSON Patch operations (`{ op: 'add', path: '/hostNetwork', value: true }`),
 * added in the same synchronous block that creates the graph.
 */
export abstract class GraphComponent extends pulumi.ComponentResource {
  /** The service name (1.x: `spec.components[].name`; 0.8/0.9: the key under `spec.services`). */
  public readonly serviceName: string;
  /**
   * JSON pointer of this service in the graph object (1.x: `/spec/components/<index>`; 0.8/0.9:
   * `/spec/services/<name>`). Prefer `addPodPatch` and `addContainerPatch`, which do not change
   * with the release.
   */
  public readonly servicePath: string;

  protected constructor(className: string, name: string, private readonly graph: DynamoGraph, serviceName: string, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken(className), name, {}, { parent: graph, ...opts });
    this.serviceName = serviceName;
    this.servicePath = graph._nextServicePath(serviceName);
  }

  /**
   * Patches the service's pod spec, with pointers relative to it (`{ op: 'add', path: '/hostNetwork', value: true }`):
   * 1.x `podTemplate.spec`, 0.8/0.9 `extraPodSpec`.
   */
  public addPodPatch(...patches: JsonPatchOperation[]): void {
    this.patch('pod', patches);
  }

  /**
   * Patches the service's main container, with pointers relative to it
   * (`{ op: 'add', path: '/stdin', value: true }`): 1.x the container named `main`, 0.8/0.9 `extraPodSpec.mainContainer`.
   */
  public addContainerPatch(...patches: JsonPatchOperation[]): void {
    this.patch('container', patches);
  }

  /**
   * Patches the service entry itself, with pointers relative to it. Its fields are the API
   * version's (1.x `env`, 0.8/0.9 `envs`...): a patch here may need rewriting on upgrade.
   */
  public addComponentPatch(...patches: JsonPatchOperation[]): void {
    this.patch('component', patches);
  }

  private patch(scope: PatchScope, patches: readonly JsonPatchOperation[]): void {
    const apiVersion = this.graph.release.apiVersion;
    // every patch checked before any is kept
    const d = new Diagnostics();
    if (!checkJsonPatch(d, 'patches', patches)) d.throwIfErrors();
    const absolute = rebasePatches(d, apiVersion, this.servicePath, scope, patches);
    d.throwIfErrors();
    this.graph._addPatches(this.serviceName, absolute);
  }
}
