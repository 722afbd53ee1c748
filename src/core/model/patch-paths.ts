import { Diagnostics, show } from '../base/errors';
import { JsonPatchOperation } from '../base/json-patch';

/**
 * Patches relative to a service, its pod or its main container, resolved per API version (the
 * pointers are in `GRAPH_FORMATS`), so that they land in the same place on every release.
 */
import { GRAPH_FORMATS, GraphApiVersion } from './graph-formats';

export type { GraphApiVersion } from './graph-formats';

/** What a patch is relative to: the service itself (its fields differ per API version), its pod, or its main container. */
export type PatchScope = 'component' | 'pod' | 'container';

/** The JSON pointer of the service `name`, the `index`th of the graph, in a graph of `apiVersion`. */
export function servicePointer(apiVersion: GraphApiVersion, name: string, index: number): string {
  return GRAPH_FORMATS[apiVersion].servicePointer(name, index);
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
  const base = scope === 'component' ? '' : GRAPH_FORMATS[apiVersion][scope === 'pod' ? 'podPointer' : 'containerPointer'];
  return `${servicePath}${base}${relative}`;
}

/**
 * Patch operations relative to a service's `scope`, rebased to absolute pointers in a graph of
 * `apiVersion` (`path`, and `from` for move and copy); each pointer that is no JSON pointer is an
 * error on `d` at `patches[i].path` or `.from`. Both shells' release-proof patches go through here.
 */
export function rebasePatches(d: Diagnostics, apiVersion: GraphApiVersion, servicePath: string, scope: PatchScope, ops: readonly JsonPatchOperation[]): JsonPatchOperation[] {
  return ops.map((p, i): JsonPatchOperation => {
    const path = patchPointer(d, apiVersion, servicePath, scope, p.path, `patches[${i}].path`);
    if (p.op === 'move' || p.op === 'copy') return { op: p.op, from: patchPointer(d, apiVersion, servicePath, scope, p.from, `patches[${i}].from`), path };
    return { ...p, path };
  });
}
