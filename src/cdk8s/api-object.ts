import { ApiObject, ApiObjectProps, Chart, JsonPatch } from 'cdk8s';
import { Construct } from 'constructs';
import { KubeObject, NameRef, nameOf } from '../core/internal';

/**
 * An ApiObject whose content is rendered by core when synthesized. `prepare`
 * runs first, outside cdk8s's error wrapping, so that a `DynamoValidationError`
 * reaches the user unchanged.
 */
export class RenderedApiObject extends ApiObject {
  constructor(scope: Construct, id: string, props: ApiObjectProps, private readonly prepare: () => void) {
    super(scope, id, props);
  }

  public toJson(): any {
    this.prepare();
    return super.toJson();
  }
}

/** The namespace of a construct's objects: the one given (a name or a named object), else the chart's. */
export function namespaceOf(scope: Construct, namespace: NameRef | undefined): string | undefined {
  return namespace !== undefined && namespace !== null ? nameOf(namespace) : Chart.of(scope).namespace;
}

/** JSON pointers of every `null` in a value (Helm values use `null` to delete a chart default). */
function nullPointers(value: unknown, pointer = ''): string[] {
  if (value === null) return [pointer];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullPointers(v, `${pointer}/${i}`));
  if (typeof value === 'object' && value !== undefined) {
    return Object.entries(value as object).flatMap(([k, v]) => nullPointers(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
  }
  return [];
}

/**
 * An ApiObject holding a core object exactly. cdk8s drops `null` values when it
 * synthesizes; they are put back with JSON patches, so that what core rendered
 * is what reaches the manifest.
 */
export function apiObjectFromCore(scope: Construct, id: string, object: KubeObject): ApiObject {
  const { apiVersion, kind, ...rest } = object;
  const apiObject = new ApiObject(scope, id, { apiVersion, kind, ...rest });
  for (const pointer of nullPointers(rest)) apiObject.addJsonPatch(JsonPatch.add(pointer, null));
  return apiObject;
}
