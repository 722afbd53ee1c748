import { ApiObject, Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import {
  checkComponent,
  checkGraphOptions,
  ComponentSpec,
  componentConfigMapName,
  dynamoVersionOf,
  Diagnostics,
  DynamoRelease,
  GraphOptions,
  GraphSpec,
  IObservable,
  isChecked,
  NameRef,
  ObservedGraph,
  observedGraphOf,
  releaseOf,
  graphAnnotations,
  renderGraph,
  RenderedGraph,
  servicePointer,
  ValidationWarning,
} from '../core/internal';
import { namespaceOf, RenderedApiObject } from './api-object';
import { reportWarningsOnSynth, StrictOptions } from './warnings';

export interface DynamoGraphProps extends GraphOptions, StrictOptions {
  /**
   * `metadata.name` of the DynamoGraphDeployment.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Namespace of the graph and the objects it creates, by name or as an object (e.g. a cdk8s-plus `Namespace`).
   * @default - the chart's namespace
   */
  readonly namespace?: NameRef;
}

/**
 * One NVIDIA Dynamo graph: renders a DynamoGraphDeployment in its release's API
 * version (`nvidia.com/v1beta1` for 1.x, `nvidia.com/v1alpha1` for 0.8/0.9)
 * from its child components (`Frontend`, `PrefillWorker`, `DecodeWorker`, `Worker`).
 * The construct id of each child is its service name.
 */
export class DynamoGraph extends Construct implements IObservable {
  /** `metadata.name` of the DynamoGraphDeployment. */
  public readonly name: string;
  /** Namespace of the graph's objects. */
  public readonly namespace?: string;
  /** The graph-wide options. */
  public readonly options: GraphOptions;
  /** The DynamoGraphDeployment object; patch it with `addJsonPatch` for what the library does not model. */
  public readonly apiObject: ApiObject;

  /** The Dynamo release the graph runs. */
  public readonly release: DynamoRelease;

  private readonly components: ComponentSpec[] = [];
  private readonly componentObjects: ApiObject[] = [];
  private rendered?: RenderedGraph;
  private renderedCount = -1;

  constructor(scope: Construct, id: string, props: DynamoGraphProps) {
    super(scope, id);
    const { name, namespace, strict, ...options } = props ?? ({} as DynamoGraphProps);
    this.name = name ?? id;
    this.namespace = namespaceOf(this, namespace);
    this.options = options;
    if (!isChecked(props)) {
      const d = new Diagnostics();
      checkGraphOptions(d, '', options, ['name', 'namespace', 'strict'] satisfies readonly (keyof DynamoGraphProps)[]);
      d.throwIfErrors();
    }
    const release = releaseOf(dynamoVersionOf(options));
    this.release = release;
    this.apiObject = new RenderedApiObject(
      this,
      'Resource',
      {
        apiVersion: release.apiVersion,
        kind: 'DynamoGraphDeployment',
        metadata: { name: this.name, namespace: this.namespace, labels: options.labels, annotations: graphAnnotations(options) },
        spec: Lazy.any({ produce: () => this.render().graph.spec }),
      },
      () => this.render(),
    );
    const cache = options.modelCache as unknown as { apiObject?: unknown };
    if (cache && ApiObject.isApiObject(cache.apiObject)) this.apiObject.addDependency(cache.apiObject);
    reportWarningsOnSynth(this, strict, () => this.warnings);
  }

  /** Every object this graph synthesizes: the DynamoGraphDeployment and the ConfigMaps its workers mount. */
  public get apiObjects(): ApiObject[] {
    return [this.apiObject, ...this.componentObjects];
  }

  /** The graph as core sees it. */
  public get spec(): GraphSpec {
    return { name: this.name, namespace: this.namespace, path: '', options: this.options, components: [...this.components] };
  }

  /** Validates the whole graph and renders its objects; throws `DynamoValidationError` listing every problem. */
  public render(): RenderedGraph {
    // Components are only ever added, so the rendering stays valid until the next one is.
    if (!this.rendered || this.renderedCount !== this.components.length) {
      // the graph's options and each component's were checked as they were created
      this.rendered = renderGraph(this.spec, { partsChecked: true });
      this.renderedCount = this.components.length;
    }
    return this.rendered;
  }

  /** @internal */
  public _observedGraph(): ObservedGraph {
    return observedGraphOf(this.spec);
  }

  /** Warnings about the graph (legal but probably wrong). */
  public get warnings(): readonly ValidationWarning[] {
    return this.render().warnings;
  }

  /**
   * Where each service's options came from, by service name, when a
   * deployment construct built the graph (`prefill`, `decode`...). @internal
   */
  public readonly _optionPaths = new Map<string, string>();

  /**
   * Checks a component on its own (unless a deployment validated `props`
   * already); throws `DynamoValidationError`. @internal
   */
  public _checkComponent(component: ComponentSpec, props: object): void {
    if (isChecked(props)) return;
    const d = new Diagnostics();
    checkComponent(d, component, this.options.backend, releaseOf(dynamoVersionOf(this.options)));
    d.throwIfErrors();
  }

  /**
   * JSON pointer the next component added will have in the graph object: `/spec/services/<name>`
   * (v1alpha1), or its index in `/spec/components` (v1beta1). @internal
   */
  public _nextServicePath(name: string): string {
    return servicePointer(this.release.apiVersion, name, this.components.length);
  }

  /**
   * The ConfigMap the component mounts beside the graph (`componentConfigMapName`), as an object
   * of `scope` whose data comes from the rendered graph; none when it mounts none. @internal
   */
  public _componentConfigMaps(scope: Construct, id: string, component: ComponentSpec): ApiObject[] {
    const name = componentConfigMapName(this.options, this.name, component);
    if (name === undefined) return [];
    const rendered = () => {
      const found = this.render().configMaps.find((c) => c.metadata.name === name);
      if (!found) throw new Error(`graph ${this.name} rendered no ConfigMap ${name} for ${component.name}`);
      return found;
    };
    const metadata = { name, namespace: this.namespace };
    return [new RenderedApiObject(scope, id, { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: Lazy.any({ produce: () => rendered().data }) }, () => this.render())];
  }

  /** @internal */
  public _addComponent(component: ComponentSpec, objects: readonly ApiObject[] = []): void {
    this.components.push(component);
    for (const o of objects) {
      this.componentObjects.push(o);
      // mounted objects are applied before the graph that mounts them
      this.apiObject.addDependency(o);
    }
  }
}
