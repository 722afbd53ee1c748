import { App, Chart, Testing } from 'cdk8s';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { ConfigMap, Namespace, PersistentVolumeClaim, Secret } from 'kubernetes-models/v1';
import * as YAML from 'yaml';
import { crdErrors, isDynamoKind } from './crd';

const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Namespace': Namespace,
};

/** Kinds validated by @kubernetes-models packages that ship as ES modules only (run in a node subprocess). */
const ESM_KINDS = new Set([
  'helm.toolkit.fluxcd.io/v2/HelmRelease',
  'source.toolkit.fluxcd.io/v1/HelmRepository',
  'kustomize.toolkit.fluxcd.io/v1/Kustomization',
  'monitoring.coreos.com/v1/PodMonitor',
  'monitoring.coreos.com/v1/PrometheusRule',
]);

/** The errors of each object, validated by the ES-module model packages. */
export function esmModelErrors(objects: any[]): string[][] {
  const run = spawnSync(process.execPath, [path.join(__dirname, 'validate-models.mjs')], { input: JSON.stringify(objects), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`model validation failed to run: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/**
 * Schema violations of one object: Dynamo kinds against the CRDs, core kinds
 * with kubernetes-models, Flux and prometheus-operator kinds with their
 * @kubernetes-models packages.
 */
export function manifestErrors(obj: any): string[] {
  if (isDynamoKind(obj)) return crdErrors(obj);
  if (ESM_KINDS.has(`${obj?.apiVersion}/${obj?.kind}`)) return esmModelErrors([obj])[0];
  const Model = MODELS[`${obj?.apiVersion}/${obj?.kind}`];
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
/** Empty objects whose presence is the value: the v1beta1 `scalingAdapter: {}` marker (opts a component into a DGDSA). */
const MARKERS = /\.components\[\d+\]\.scalingAdapter$/;

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
    if (entries.length === 0) return MARKERS.test(path) ? [] : [`${path}: {}`];
    return entries.flatMap(([k, v]) => holes(v, path ? `${path}.${k}` : k));
  }
  return [];
}

/**
 * `holes` for the objects the library renders. Helm values are exempt: there
 * `{}` and `null` are meaningful (`podMonitorNamespaceSelector: {}` selects
 * every namespace, `matchLabels: null` deletes a chart default).
 */
export function renderedHoles(objects: any[]): string[] {
  return objects.flatMap((o) => {
    if (o.kind === 'HelmRelease') {
      const { values: _values, ...spec } = o.spec;
      return holes({ ...o, spec }, `${o.kind}/${o.metadata.name}`);
    }
    if (o.apiVersion === 'v1' && o.kind === 'Namespace') return [];
    return holes(o, `${o.kind}/${o.metadata.name}`);
  });
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
