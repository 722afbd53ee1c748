/**
 * Plain Kubernetes object shapes produced by core. Only the fields the
 * library writes are typed; everything is JSON.
 */

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A complete Kubernetes object: what a shell hands to cdk8s or Pulumi unchanged. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly [key: string]: unknown;
}

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: {
    readonly secretKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
    readonly configMapKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
    readonly fieldRef?: { readonly fieldPath: string };
  };
}

/** Something that has a Kubernetes name: a plain string, or an object such as a cdk8s-plus `ISecret`. */
export type NameRef = string | { readonly name: string };

export function nameOf(ref: NameRef): string {
  return typeof ref === 'string' ? ref : ref.name;
}

export type ImagePullPolicy = 'Always' | 'IfNotPresent' | 'Never';
export const IMAGE_PULL_POLICIES: readonly ImagePullPolicy[] = ['Always', 'IfNotPresent', 'Never'];

/** CPU and memory for a component, as in cdk8s-plus: each with an optional request and limit. */
export interface ComputeResources {
  /** CPU request and limit, e.g. `{ request: '8', limit: '10' }`. */
  readonly cpu?: { readonly request?: string; readonly limit?: string };
  /** Memory request and limit, e.g. `{ request: '40Gi', limit: '40Gi' }`. */
  readonly memory?: { readonly request?: string; readonly limit?: string };
}
