import { ApiObject, JsonPatch } from 'cdk8s';
import { Construct } from 'constructs';
import { Diagnostics, JsonPatchOperation, PatchScope, rebasePatches } from '../core/internal';
import type { DynamoGraph } from './graph';

/**
 * A service of a `DynamoGraph` (frontend, worker pool, planner). It lives inside the graph's
 * DynamoGraphDeployment; its patches are written relative to it and land in the right place on
 * every release, so that they survive an upgrade from 0.8/0.9 (v1alpha1) to 1.x (v1beta1).
 */
export abstract class GraphComponent extends Construct {
  /** The service name (1.x: `spec.components[].name`; 0.8/0.9: the key under `spec.services`). */
  public readonly serviceName: string;
  /**
   * JSON pointer of this service in the graph object (1.x: `/spec/components/<index>`; 0.8/0.9:
   * `/spec/services/<name>`). Prefer `addPodPatch` and `addContainerPatch`, which do not change
   * with the release.
   */
  public readonly servicePath: string;
  /** Objects this service adds beside the graph (a TensorRT-LLM engine config, a 1.x PlannerConfig). */
  public readonly apiObjects: ApiObject[] = [];

  protected constructor(
    private readonly graph: DynamoGraph,
    id: string,
    serviceName: string,
  ) {
    super(graph, id);
    this.serviceName = serviceName;
    this.servicePath = graph._nextServicePath(serviceName);
  }

  /**
   * Patches the service's pod spec, with pointers relative to it (`JsonPatch.add('/hostNetwork', true)`):
   * 1.x `podTemplate.spec`, 0.8/0.9 `extraPodSpec`.
   */
  public addPodPatch(...patches: JsonPatch[]): void {
    this.patch('pod', patches);
  }

  /**
   * Patches the service's main container, with pointers relative to it
   * (`JsonPatch.add('/stdin', true)`): 1.x the container named `main`, 0.8/0.9 `extraPodSpec.mainContainer`.
   */
  public addContainerPatch(...patches: JsonPatch[]): void {
    this.patch('container', patches);
  }

  /**
   * Patches the service entry itself, with pointers relative to it. Its fields are the API
   * version's (1.x `env`, 0.8/0.9 `envs`...): a patch here may need rewriting on upgrade.
   */
  public addComponentPatch(...patches: JsonPatch[]): void {
    this.patch('component', patches);
  }

  private patch(scope: PatchScope, patches: readonly JsonPatch[]): void {
    const apiVersion = this.graph.release.apiVersion;
    // every patch checked before any is applied
    const d = new Diagnostics();
    const ops = patches.map((p) => (p as unknown as { _toJson(): JsonPatchOperation })._toJson());
    const absolute = rebasePatches(d, apiVersion, this.servicePath, scope, ops);
    d.throwIfErrors();
    for (const op of absolute) this.graph.apiObject.addJsonPatch(rebased(op));
  }
}

/** A cdk8s patch of the operation. */
function rebased(o: JsonPatchOperation): JsonPatch {
  switch (o.op) {
    case 'add':
      return JsonPatch.add(o.path, o.value);
    case 'replace':
      return JsonPatch.replace(o.path, o.value);
    case 'remove':
      return JsonPatch.remove(o.path);
    case 'test':
      return JsonPatch.test(o.path, o.value);
    case 'copy':
      return JsonPatch.copy(o.from, o.path);
    default:
      return JsonPatch.move(o.from, o.path);
  }
}
