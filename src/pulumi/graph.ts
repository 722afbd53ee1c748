import * as pulumi from '@pulumi/pulumi';
import {
  applyJsonPatch,
  checkComponent,
  DynamoRelease,
  JsonPatchOperation,
  KubeObject,
  servicePointer,
  checkGraphOptions,
  ComponentSpec,
  componentConfigMapName,
  Diagnostics,
  dynamoVersionOf,
  GraphOptions,
  GraphSpec,
  IObservable,
  isChecked,
  ObservedGraph,
  observedGraphOf,
  releaseOf,
  renderGraph,
  RenderedGraph,
} from '../core/internal';
import { childOptions, registerObject, reportWarnings, resourcesOf, StrictArgs, typeToken } from './common';

export interface DynamoGraphArgs extends GraphOptions, StrictArgs {
  /**
   * `metadata.name` of the DynamoGraphDeployment.
   * @default - the component name
   */
  readonly name?: string;
  /**
   * Namespace of the graph and the objects it creates.
   * @default - the provider's namespace
   */
  readonly namespace?: string;
}

/**
 * One NVIDIA Dynamo graph: a DynamoGraphDeployment in its release's API version
 * (`nvidia.com/v1beta1` for 1.x, 1.6.1 included; `nvidia.com/v1alpha1` for 0.8/0.9)
 * rendered from the components added to it (`Frontend`, `PrefillWorker`,
 * `DecodeWorker`, `Worker`, `Planner`, each given `graph` in its args).
 *
 * Components are collected while the program builds them; the graph renders
 * (and validates the rules that cross components) once the program has
 * added them, before the graph object is registered.
 */
export class DynamoGraph extends pulumi.ComponentResource implements IObservable {
  /** `metadata.name` of the DynamoGraphDeployment. */
  public readonly name: string;
  public readonly namespace?: string;
  /** The graph-wide options. */
  public readonly options: GraphOptions;
  /** The DynamoGraphDeployment. */
  public readonly resource: pulumi.CustomResource;
  /** The rendered graph; rejects with `DynamoValidationError` when the graph is invalid. */
  public readonly rendered: Promise<RenderedGraph>;

  /** The Dynamo release the graph is for. */
  public readonly release: DynamoRelease;

  private readonly components: ComponentSpec[] = [];
  /** The components' patches, at absolute pointers, with the service each came from. */
  private readonly patches: { readonly field: string; readonly op: JsonPatchOperation }[] = [];
  private readonly patchCount = new Map<string, number>();
  private readonly componentResources: pulumi.Resource[] = [];
  private closed = false;

  constructor(name: string, args: DynamoGraphArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('DynamoGraph'), name, {}, opts);
    const { name: objectName, namespace, strict, ...options } = args ?? ({} as DynamoGraphArgs);
    this.name = objectName ?? name;
    this.namespace = namespace;
    this.options = options;
    if (!isChecked(args)) {
      const d = new Diagnostics();
      checkGraphOptions(d, '', options, ['name', 'namespace', 'strict'] satisfies readonly (keyof DynamoGraphArgs)[]);
      d.throwIfErrors();
    }
    const release = releaseOf(dynamoVersionOf(options));
    this.release = release;

    // Render once the program has added its components (they are built synchronously after the graph).
    this.rendered = new Promise<RenderedGraph>((resolve, reject) =>
      setImmediate(() => {
        this.closed = true;
        try {
          // the graph's options and each component's were checked as they were created
          const r = renderGraph(this.spec, { partsChecked: true });
          reportWarnings(this, strict, r.warnings);
          resolve(this.patches.length === 0 ? r : { ...r, graph: this.patched(r.graph) });
        } catch (e) {
          reject(e);
        }
      }),
    );
    // what the graph mounts or references is applied before it: the cache claim, Secrets created here
    const referenced = resourcesOf([options.modelCache, options.hfTokenSecret, ...(options.imagePullSecrets ?? [])]);
    const object = this.rendered.then((r) => r.graph);
    const mounted = this.rendered.then((): pulumi.Resource[] => [...referenced, ...this.componentResources]);
    this.resource = registerObject(name, object, { apiVersion: release.apiVersion, kind: 'DynamoGraphDeployment' }, childOptions(this, opts, mounted));
    this.registerOutputs({ name: this.name, namespace: this.namespace });
  }

  /** @internal */
  public _observedGraph(): ObservedGraph {
    return observedGraphOf(this.spec);
  }

  /** The graph as core sees it. */
  public get spec(): GraphSpec {
    return { name: this.name, namespace: this.namespace, path: '', options: this.options, components: [...this.components] };
  }

  /**
   * Checks a component on its own (unless a deployment validated `args`
   * already); throws `DynamoValidationError`. @internal
   */
  public _checkComponent(component: ComponentSpec, args?: object): void {
    if (this.closed) {
      throw new Error(`component ${component.name} was added to graph ${this.name} after it rendered; add components in the same synchronous block that creates the graph`);
    }
    if (isChecked(args)) return;
    const d = new Diagnostics();
    checkComponent(d, component, this.options.backend, releaseOf(dynamoVersionOf(this.options)));
    d.throwIfErrors();
  }

  /**
   * The ConfigMap the component mounts beside the graph (`componentConfigMapName`), registered as
   * `name` with the rendered graph's data; undefined when it mounts none. @internal
   */
  public _componentConfigMap(name: string, component: ComponentSpec, opts: pulumi.CustomResourceOptions): pulumi.CustomResource | undefined {
    const configMapName = componentConfigMapName(this.options, this.name, component);
    if (configMapName === undefined) return undefined;
    const object = this.rendered.then((r) => {
      const found = r.configMaps.find((c) => c.metadata.name === configMapName);
      if (!found) throw new Error(`graph ${this.name} rendered no ConfigMap ${configMapName} for ${component.name}`);
      return found;
    });
    return registerObject(name, object, { apiVersion: 'v1', kind: 'ConfigMap' }, opts);
  }

  /**
   * JSON pointer the next component added will have in the graph object: `/spec/services/<name>`
   * (v1alpha1), or its index in `/spec/components` (v1beta1). @internal
   */
  public _nextServicePath(name: string): string {
    return servicePointer(this.release.apiVersion, name, this.components.length);
  }

  /** Keeps a component's patches (absolute pointers) for the rendered graph. @internal */
  public _addPatches(service: string, ops: readonly JsonPatchOperation[]): void {
    if (this.closed) {
      throw new Error(`patches of ${service} were added to graph ${this.name} after it rendered; add them in the same synchronous block that creates the graph`);
    }
    for (const op of ops) {
      const index = this.patchCount.get(service) ?? 0;
      this.patchCount.set(service, index + 1);
      this.patches.push({ field: `${service}.patches[${index}]`, op });
    }
  }

  /** The rendered graph with the components' patches applied in the order they were added. */
  private patched(graph: KubeObject): KubeObject {
    const d = new Diagnostics();
    const out = applyJsonPatch(d, graph, this.patches.map((p) => p.op), (i) => this.patches[i].field);
    d.throwIfErrors();
    return out;
  }

  /** Adds a component `_checkComponent` accepted, with the resources the graph waits for. @internal */
  public _addComponent(component: ComponentSpec, resources: readonly pulumi.Resource[] = []): void {
    this.components.push(component);
    this.componentResources.push(...resources);
  }

  /** Where each service's options came from, when a deployment built the graph. @internal */
  public readonly _optionPaths = new Map<string, string>();
}
