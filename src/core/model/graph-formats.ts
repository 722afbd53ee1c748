import { KubeObject } from '../base/k8s';
import { writeV1alpha1 } from './dgd-v1alpha1';
import { readV1beta1, v1beta1GraphField, v1beta1ServiceField, writeV1beta1 } from './dgd-v1beta1';

/**
 * Everything that differs between the API versions of the DynamoGraphDeployment, in one registry:
 * the library renders one normalized graph (the 0.8/0.9 v1alpha1 layout, `DgdService` per
 * service) and each API version has one writer from it and one reader into it, the pointers of a
 * service, its pod and its main container, and the way a finding's normalized field is named in
 * its own layout.
 */
export interface GraphFormat {
  /** The normalized graph in this API version. */
  write(normalized: KubeObject, o: { readonly runtimeVersion?: string }): KubeObject;
  /** A graph of this API version in the normalized layout. */
  read(graph: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>>;
  /** The JSON pointer of the service `name`, the `index`th of the graph. */
  servicePointer(name: string, index: number): string;
  /** The pod spec, relative to a service. */
  readonly podPointer: string;
  /** The main container, relative to a service. */
  readonly containerPointer: string;
  /** A normalized service field (as the rules report it) in this layout. */
  serviceField(field: string): string;
  /** A normalized graph-level field in this layout. */
  graphField(field: string): string;
}

/** A JSON pointer segment for `name` (RFC 6901). */
function escapePointer(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

const same = (field: string) => field;

/** The DynamoGraphDeployment API versions the library writes and reads: `v1beta1` for 1.x, `v1alpha1` for 0.8/0.9. */
export type GraphApiVersion = 'nvidia.com/v1beta1' | 'nvidia.com/v1alpha1';

export const GRAPH_FORMATS = {
  // 1.x: components in a list, the pod in podTemplate.spec, the main container first in it
  'nvidia.com/v1beta1': {
    write: (normalized, o) => writeV1beta1(normalized, o),
    read: readV1beta1,
    servicePointer: (_name, index) => `/spec/components/${index}`,
    podPointer: '/podTemplate/spec',
    containerPointer: '/podTemplate/spec/containers/0',
    serviceField: v1beta1ServiceField,
    graphField: v1beta1GraphField,
  },
  // 0.8/0.9: the normalized layout itself, services in a map
  'nvidia.com/v1alpha1': {
    write: (normalized) => writeV1alpha1(normalized),
    read: (graph) => graph,
    servicePointer: (name) => `/spec/services/${escapePointer(name)}`,
    podPointer: '/extraPodSpec',
    containerPointer: '/extraPodSpec/mainContainer',
    serviceField: same,
    graphField: same,
  },
} as const satisfies Record<GraphApiVersion, GraphFormat>;

/** The format of a graph object by its `apiVersion`; anything else is read as the normalized (v1alpha1) layout. */
export function graphFormatOf(apiVersion: unknown): GraphFormat {
  return apiVersion === 'nvidia.com/v1beta1' ? GRAPH_FORMATS['nvidia.com/v1beta1'] : GRAPH_FORMATS['nvidia.com/v1alpha1'];
}
