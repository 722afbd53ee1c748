import { checkBoolean, checkDnsSubdomain, checkEnvName, checkString, isPlainObject, join } from './checks';
import { Diagnostics, show } from './errors';
import { EnvVar } from './k8s';

/**
 * The value of an environment variable: a literal, or a reference to a Secret,
 * a ConfigMap or a field of the Pod. Secrets are only ever referenced, never
 * copied into a manifest.
 */
export class EnvValue {
  /** A literal value. Never use this for tokens or passwords: use `fromSecret`. */
  public static fromValue(value: string): EnvValue {
    return new EnvValue({ value });
  }

  /** A key of an existing Secret (`secretKeyRef`). */
  public static fromSecret(secretName: string, key: string, opts: { optional?: boolean } = {}): EnvValue {
    return new EnvValue({ valueFrom: { secretKeyRef: { name: secretName, key, ...(opts.optional !== undefined ? { optional: opts.optional } : {}) } } });
  }

  /** A key of an existing ConfigMap (`configMapKeyRef`). */
  public static fromConfigMap(configMapName: string, key: string, opts: { optional?: boolean } = {}): EnvValue {
    return new EnvValue({ valueFrom: { configMapKeyRef: { name: configMapName, key, ...(opts.optional !== undefined ? { optional: opts.optional } : {}) } } });
  }

  /** A field of the Pod, e.g. `metadata.uid` or `status.podIP` (`fieldRef`). */
  public static fromFieldRef(fieldPath: string): EnvValue {
    return new EnvValue({ valueFrom: { fieldRef: { fieldPath } } });
  }

  private constructor(private readonly source: Omit<EnvVar, 'name'>) {}

  /** Checks what the factory was given. @internal */
  public _validate(d: Diagnostics, path: string): void {
    const s = this.source as { value?: unknown; valueFrom?: Record<string, Record<string, unknown>> };
    if (!s.valueFrom) {
      if (typeof s.value !== 'string') d.error(path, `must be a string value, got ${show(s.value)}`, 'value-type');
      return;
    }
    const [kind, ref] = Object.entries(s.valueFrom)[0];
    if (kind === 'fieldRef') {
      checkString(d, join(path, 'fieldPath'), ref.fieldPath, true);
      return;
    }
    const what = kind === 'secretKeyRef' ? 'Secret' : 'ConfigMap';
    if (ref.name === undefined) d.error(join(path, 'name'), `is required: the ${what} to read`, 'required');
    else checkDnsSubdomain(d, join(path, 'name'), ref.name);
    if (ref.key === undefined) d.error(join(path, 'key'), `is required: the key of the ${what} to read`, 'required');
    else if (typeof ref.key !== 'string' || !/^[-._a-zA-Z0-9]+$/.test(ref.key)) {
      d.error(join(path, 'key'), `must be a ${what} key (letters, digits, '-', '_', '.'), got ${show(ref.key)}`, 'value-format');
    }
    checkBoolean(d, join(path, 'optional'), ref.optional);
  }

  /** @internal */
  public _toEnvVar(name: string): EnvVar {
    return { name, ...this.source };
  }
}

/**
 * Environment variables as users write them: `{ NAME: 'value' }` or
 * `{ NAME: EnvValue.fromSecret('s', 'k') }`. Insertion order is kept.
 */
export type EnvMap = Readonly<Record<string, string | EnvValue>>;

export function checkEnvMap(d: Diagnostics, path: string, env: unknown): void {
  if (env === undefined) return;
  if (!isPlainObject(env)) {
    d.error(path, `must be an object of NAME: value pairs, got ${show(env)}`, 'value-type');
    return;
  }
  for (const [name, value] of Object.entries(env)) {
    const p = join(path, name);
    checkEnvName(d, p, name);
    if (typeof value === 'string') continue;
    if (value instanceof EnvValue) {
      value._validate(d, p);
      continue;
    }
    checkString(d, p, value, true);
  }
}

export function envMapToList(env: EnvMap | undefined): EnvVar[] {
  if (!env) return [];
  return Object.entries(env).map(([name, value]) =>
    typeof value === 'string' ? { name, value } : value._toEnvVar(name),
  );
}

/**
 * Merges layers of environment variables. A later layer replaces a variable of
 * the same name from an earlier one in place, so that the order of first
 * appearance is kept and the output is deterministic.
 */
export function mergeEnv(...layers: readonly EnvVar[][]): EnvVar[] {
  const out: EnvVar[] = [];
  const index = new Map<string, number>();
  for (const layer of layers) {
    for (const v of layer) {
      const at = index.get(v.name);
      if (at === undefined) {
        index.set(v.name, out.length);
        out.push(v);
      } else {
        out[at] = v;
      }
    }
  }
  return out;
}

/** The Pod fields of guide 1 step 9, exposed to every service by default. */
export type PodInfoField = 'POD_UID' | 'POD_NAME' | 'POD_NAMESPACE' | 'POD_IP';

export const POD_INFO_FIELDS: readonly PodInfoField[] = ['POD_UID', 'POD_NAME', 'POD_NAMESPACE', 'POD_IP'];

const POD_INFO_PATHS: Record<PodInfoField, string> = {
  POD_UID: 'metadata.uid',
  POD_NAME: 'metadata.name',
  POD_NAMESPACE: 'metadata.namespace',
  POD_IP: 'status.podIP',
};

export function podInfoEnv(fields: readonly PodInfoField[]): EnvVar[] {
  return fields.map((f) => ({ name: f, valueFrom: { fieldRef: { fieldPath: POD_INFO_PATHS[f] } } }));
}

export function checkPodInfoFields(d: Diagnostics, path: string, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    d.error(path, `must be a list of ${POD_INFO_FIELDS.join(', ')}, got ${show(value)}`, 'value-type');
    return;
  }
  const seen = new Set<string>();
  value.forEach((f, i) => {
    if (!(POD_INFO_FIELDS as readonly unknown[]).includes(f)) {
      d.error(join(path, i), `must be one of ${POD_INFO_FIELDS.join(', ')}, got ${show(f)}`, 'value-range');
    } else if (seen.has(f)) {
      d.error(join(path, i), `lists ${f} twice`, 'duplicate-env');
    }
    seen.add(f);
  });
}
