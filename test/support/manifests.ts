import { App, Chart, Testing } from 'cdk8s';
import { ConfigMap, PersistentVolumeClaim, Secret } from 'kubernetes-models/v1';
import * as YAML from 'yaml';
import { crdErrors, isDynamoKind } from './crd';

const CORE_MODELS: Record<string, new (data: any) => { validate(): void }> = {
  PersistentVolumeClaim,
  ConfigMap,
  Secret,
};

/** Schema violations of one object: Dynamo kinds against the CRDs, core kinds with kubernetes-models. */
export function manifestErrors(obj: any): string[] {
  if (isDynamoKind(obj)) return crdErrors(obj);
  const Model = obj?.apiVersion === 'v1' ? CORE_MODELS[obj.kind] : undefined;
  if (!Model) return [`no validator for ${obj?.apiVersion} ${obj?.kind}`];
  try {
    new Model(obj).validate();
    return [];
  } catch (e) {
    return [String((e as Error).message)];
  }
}

/**
 * Paths where a rendered value is missing or empty: `undefined`, `null`,
 * `NaN`, or an object or list with nothing in it.
 */
export function holes(value: unknown, path = ''): string[] {
  if (value === undefined) return [`${path}: undefined`];
  if (value === null) return [`${path}: null`];
  if (typeof value === 'number' && !Number.isFinite(value)) return [`${path}: ${value}`];
  if (typeof value === 'string' && (value === 'undefined' || value === 'NaN' || value === 'null')) return [`${path}: "${value}"`];
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${path}: []`];
    return value.flatMap((v, i) => holes(v, `${path}[${i}]`));
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as object);
    if (entries.length === 0) return [`${path}: {}`];
    return entries.flatMap(([k, v]) => holes(v, path ? `${path}.${k}` : k));
  }
  return [];
}

export function synthChart(build: (chart: Chart) => void, namespace?: string): any[] {
  const chart = new Chart(Testing.app(), 'test', { namespace });
  build(chart);
  return Testing.synth(chart);
}

export function toYaml(objects: any[]): string {
  return objects.map((o) => YAML.stringify(o)).join('---\n');
}

export function newApp(): App {
  return Testing.app();
}

export function byKind(objects: any[], kind: string): any[] {
  return objects.filter((o) => o.kind === kind);
}

export function dgdOf(objects: any[]): any {
  const found = byKind(objects, 'DynamoGraphDeployment');
  if (found.length !== 1) throw new Error(`expected one DynamoGraphDeployment, found ${found.length}`);
  return found[0];
}
