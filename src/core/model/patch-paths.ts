import { Diagnostics, show } from '../base/errors';

/**
 * Where a service of the graph lives in the DynamoGraphDeployment object, per API version, so that
 * a patch written relative to a service, its pod or its main container lands in the same place on
 * every release: 1.x (v1beta1) keeps services in the `spec.components` list, the pod in
 * `podTemplate.spec` and the main container first in its containers; 0.8/0.9 (v1alpha1) keeps
 * them in the `spec.services` map, the pod in `extraPodSpec` and the container in `mainContainer`.
 */
const LAYOUTS = {
  'nvidia.com/v1beta1': { service: (_name: string, index: number) => `/spec/components/${index}`, pod: '/podTemplate/spec', container: '/podTemplate/spec/containers/0' },
  'nvidia.com/v1alpha1': { service: (name: string) => `/spec/services/${escapePointer(name)}`, pod: '/extraPodSpec', container: '/extraPodSpec/mainContainer' },
} as const;

export type GraphApiVersion = keyof typeof LAYOUTS;

/** What a patch is relative to: the service itself (its fields differ per API version), its pod, or its main container. */
export type PatchScope = 'component' | 'pod' | 'container';

/** A JSON pointer segment for `name` (RFC 6901). */
function escapePointer(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The JSON pointer of the service `name`, the `index`th of the graph, in a graph of `apiVersion`. */
export function servicePointer(apiVersion: GraphApiVersion, name: string, index: number): string {
  return LAYOUTS[apiVersion].service(name, index);
}

/**
 * The absolute JSON pointer of `relative` (a pointer within the scope, such as `/hostNetwork`) for
 * the service at `servicePath`; a `relative` that is no JSON pointer is an error on `d`, at `field`.
 */
export function patchPointer(d: Diagnostics, apiVersion: GraphApiVersion, servicePath: string, scope: PatchScope, relative: unknown, field = 'path'): string {
  if (typeof relative !== 'string' || !/^(\/([^~]|~[01])*)+$/.test(relative)) {
    const within = scope === 'component' ? 'component' : scope === 'pod' ? "component's pod spec" : "component's main container";
    d.error(field, `must be a JSON pointer relative to the ${within}, starting with "/" (e.g. "/hostNetwork"), got ${show(relative)}`, 'value-format');
    return '';
  }
  const base = scope === 'component' ? '' : LAYOUTS[apiVersion][scope];
  return `${servicePath}${base}${relative}`;
}
