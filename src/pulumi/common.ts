import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { Diagnostics, DynamoValidationError, KubeObject, ValidationWarning } from '../core/internal';

/** The type token of a component: `dynamo-constructs:index:<ClassName>`. */
export function typeToken(className: string): string {
  return `dynamo-constructs:index:${className}`;
}

/** Options shared by the components that validate a deployment. */
export interface StrictArgs {
  /**
   * Treat validation warnings (e.g. disaggregation over TCP) as errors.
   * @default false
   */
  readonly strict?: boolean;
}

/**
 * Registers one core object as its typed Kubernetes resource, unchanged:
 * core `v1` kinds as their `core.v1` classes, everything else as a CustomResource.
 */
export function registerObject(
  name: string,
  object: KubeObject | Promise<KubeObject>,
  known: { apiVersion: string; kind: string },
  opts: pulumi.CustomResourceOptions,
): pulumi.CustomResource {
  const { apiVersion, kind } = known;
  // an object rendered already goes in as it is; one still rendering, as outputs
  const field = (key: string) =>
    object instanceof Promise ? pulumi.output(object.then((o) => (o as Record<string, any>)[key])) : (object as Record<string, any>)[key];
  if (apiVersion === 'v1' && kind === 'PersistentVolumeClaim') {
    return new k8s.core.v1.PersistentVolumeClaim(name, { metadata: field('metadata'), spec: field('spec') }, opts);
  }
  if (apiVersion === 'v1' && kind === 'ConfigMap') {
    return new k8s.core.v1.ConfigMap(name, { metadata: field('metadata'), data: field('data') }, opts);
  }
  if (apiVersion === 'v1' && kind === 'Secret') {
    return new k8s.core.v1.Secret(name, { metadata: field('metadata'), type: field('type'), data: field('data'), stringData: field('stringData') }, opts);
  }
  return new k8s.apiextensions.CustomResource(name, { apiVersion, kind, metadata: field('metadata'), spec: field('spec') } as k8s.apiextensions.CustomResourceArgs, opts);
}

/** Reports warnings through `pulumi.log.warn`, or fails in strict mode. */
export function reportWarnings(resource: pulumi.Resource, strict: boolean | undefined, warnings: readonly ValidationWarning[]): void {
  if (warnings.length === 0) return;
  if (strict) throw new DynamoValidationError(warnings);
  for (const w of warnings) void pulumi.log.warn(`${w.path}: ${w.message} [${w.rule}]`, resource);
}

/**
 * What a component's own `dependsOn` asks for, as a list: its Kubernetes
 * objects wait for the same resources (Pulumi does not pass a component's
 * `dependsOn` on to its children).
 */
export async function dependsOnOf(opts: pulumi.ResourceOptions | undefined): Promise<pulumi.Input<pulumi.Resource>[]> {
  const value = await (opts?.dependsOn as unknown);
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]) as pulumi.Input<pulumi.Resource>[];
}

/** Options for a Kubernetes object a component creates: its parent, and what the component depends on. */
/** A resource a construct waits for (the model cache claim, a Secret created here, a platform release). */
export interface HasResource {
  readonly resource?: pulumi.Resource;
}

/** The Pulumi resources among references (names and plain objects have none). */
export function resourcesOf(refs: readonly unknown[]): pulumi.Resource[] {
  return refs
    .map((r) => (typeof r === 'object' && r !== null ? (r as HasResource).resource : undefined))
    .filter((r): r is pulumi.Resource => r !== undefined);
}

export function childOptions(
  parent: pulumi.Resource,
  opts: pulumi.ResourceOptions | undefined,
  more: Promise<pulumi.Resource[]> | pulumi.Resource[] = [],
): pulumi.CustomResourceOptions {
  const deps = Promise.all([dependsOnOf(opts), more]).then(([inherited, own]) => [...inherited, ...own]);
  return { parent, dependsOn: deps as pulumi.Input<pulumi.Input<pulumi.Resource>[]> };
}

/** `install` chooses how cdk8s ships a chart; with Pulumi a chart is always a helm.v3.Release. */
export function rejectInstall(d: Diagnostics, args: object): void {
  if ((args as { install?: unknown }).install !== undefined) {
    d.error('install', 'is cdk8s only: with Pulumi a release is always a kubernetes.helm.v3.Release', 'option-conflict');
  }
}
