import { Diagnostics, show } from './errors';

/**
 * Small, reusable option checks. Each records a problem on `d` and returns
 * whether the value passed, so callers can skip dependent checks.
 */

const QUANTITY = /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function checkInteger(d: Diagnostics, path: string, value: unknown, min: number, what?: string): value is number {
  if (value === undefined) return true;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    const allowed = what ?? (min === 0 ? 'a whole number >= 0' : min === 1 ? 'a positive integer' : `an integer >= ${min}`);
    d.error(path, `must be ${allowed}, got ${show(value)}`, 'value-range');
    return false;
  }
  return true;
}

/** A TCP port number. */
export function checkPort(d: Diagnostics, path: string, value: unknown): value is number {
  if (value === undefined) return true;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
    d.error(path, `must be a port number (1-65535), got ${show(value)}`, 'value-range');
    return false;
  }
  return true;
}

export function checkNumber(
  d: Diagnostics,
  path: string,
  value: unknown,
  range: { min?: number; max?: number; exclusiveMin?: boolean },
): value is number {
  if (value === undefined) return true;
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (range.min === undefined || (range.exclusiveMin ? value > range.min : value >= range.min)) &&
    (range.max === undefined || value <= range.max);
  if (!ok) {
    d.error(path, `must be ${describeRange(range)}, got ${show(value)}`, 'value-range');
  }
  return ok;
}

function describeRange(range: { min?: number; max?: number; exclusiveMin?: boolean }): string {
  if (range.min !== undefined && range.max !== undefined) return `a number between ${range.min} and ${range.max}`;
  if (range.min !== undefined) return range.exclusiveMin ? `a number > ${range.min}` : `a number >= ${range.min}`;
  if (range.max !== undefined) return `a number <= ${range.max}`;
  return 'a finite number';
}

export function checkString(d: Diagnostics, path: string, value: unknown, required = false): value is string {
  if (value === undefined && !required) return true;
  if (value === undefined) {
    d.error(path, 'is required: a non-empty string', 'required');
    return false;
  }
  if (typeof value !== 'string' || value.trim() === '') {
    d.error(path, `must be a non-empty string, got ${show(value)}`, 'value-type');
    return false;
  }
  return true;
}

/** The model a graph serves: a Hugging Face model id or a path in the container. */
export function checkModel(d: Diagnostics, path: string, value: unknown): value is string {
  return checkString(d, path, value, true);
}

export function checkBoolean(d: Diagnostics, path: string, value: unknown): value is boolean {
  if (value === undefined || typeof value === 'boolean') return true;
  d.error(path, `must be true or false, got ${show(value)}`, 'value-type');
  return false;
}

export function checkOneOf<T extends string>(d: Diagnostics, path: string, value: unknown, allowed: readonly T[]): value is T {
  if (value === undefined) return true;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    d.error(path, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${show(value)}`, 'value-range');
    return false;
  }
  return true;
}

/** A Kubernetes resource quantity such as `100Gi`, `16Gi` or `500m`. */
export function checkQuantity(d: Diagnostics, path: string, value: unknown): value is string {
  if (value === undefined) return true;
  if (typeof value !== 'string' || !QUANTITY.test(value)) {
    d.error(path, `must be a Kubernetes quantity such as "16Gi" or "500m", got ${show(value)}`, 'quantity-format');
    return false;
  }
  return true;
}

/** A DNS-1123 label: the form of namespaces and most object names (max 63 characters). */
export function checkDnsLabel(d: Diagnostics, path: string, value: unknown, hint = ''): value is string {
  if (value === undefined) return true;
  if (typeof value !== 'string' || value.length > 63 || !DNS_LABEL.test(value)) {
    d.error(
      path,
      `must be a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters), got ${show(value)}${hint}`,
      'name-format',
    );
    return false;
  }
  return true;
}

/** A DNS-1123 subdomain: the form of Secret, ConfigMap and PVC names (max 253 characters). */
export function checkDnsSubdomain(d: Diagnostics, path: string, value: unknown, hint = ''): value is string {
  if (value === undefined) return true;
  if (typeof value !== 'string' || value.length > 253 || !DNS_SUBDOMAIN.test(value)) {
    d.error(
      path,
      `must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', at most 253 characters), got ${show(value)}${hint}`,
      'name-format',
    );
    return false;
  }
  return true;
}

export function checkEnvName(d: Diagnostics, path: string, value: unknown): value is string {
  if (typeof value !== 'string' || !ENV_NAME.test(value)) {
    d.error(path, `must be a valid environment variable name (letters, digits, '_', '-', '.'; not starting with a digit), got ${show(value)}`, 'name-format');
    return false;
  }
  return true;
}

const SERVICE_NAME = /^[A-Za-z][A-Za-z0-9-]*$/;

/** The name of a service in a graph (a key under `spec.services`). */
export function checkServiceName(d: Diagnostics, path: string, name: unknown): void {
  if (typeof name !== 'string' || !SERVICE_NAME.test(name) || name.length > 63) {
    d.error(path, `must start with a letter and contain only letters, digits and '-' (at most 63 characters), got ${show(name)}`, 'name-format');
  }
}

export function checkStringArray(d: Diagnostics, path: string, value: unknown): value is string[] {
  if (value === undefined) return true;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    d.error(path, `must be a list of strings, got ${show(value)}`, 'value-type');
    return false;
  }
  return true;
}

/** Reports option keys the library does not know, so that a typo is never silently ignored. */
export function checkKnownKeys(d: Diagnostics, path: string, value: unknown, known: readonly string[]): void {
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      d.error(path === '' ? key : `${path}.${key}`, `is not a known option; known options are ${known.join(', ')}`, 'unknown-option');
    }
  }
}

export function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/**
 * The keys of an options interface, checked by the compiler to be complete,
 * for `checkKnownKeys`. Usage: `optionKeys<FrontendOptions>()('replicas', ...)`.
 */
export function optionKeys<T>() {
  return <K extends readonly (keyof T & string)[]>(
    ...keys: K & (Exclude<keyof T, K[number]> extends never ? unknown : { missing: Exclude<keyof T, K[number]> })
  ): readonly string[] => keys;
}

/**
 * A reference to a named object (a Secret, a ConfigMap, a claim): a name, or
 * an object with a `name` such as a cdk8s-plus `ISecret`. Object names are
 * DNS-1123 subdomains.
 */
export function checkNameRef(d: Diagnostics, path: string, ref: unknown): void {
  if (ref === undefined) return;
  const name = typeof ref === 'string' ? ref : typeof ref === 'object' && ref !== null ? (ref as { name?: unknown }).name : undefined;
  if (typeof name !== 'string') {
    d.error(path, `must be a name or an object with a name (such as a Secret), got ${show(ref)}`, 'value-type');
    return;
  }
  checkDnsSubdomain(d, path, name);
}

/** A list of `checkNameRef`s. */
export function checkNameRefs(d: Diagnostics, path: string, refs: unknown): void {
  if (refs === undefined) return;
  if (!Array.isArray(refs)) {
    d.error(path, `must be a list of names, got ${show(refs)}`, 'value-type');
    return;
  }
  const seen = new Set<string>();
  refs.forEach((r, i) => {
    checkNameRef(d, join(path, i), r);
    const name = typeof r === 'string' ? r : (r as { name?: unknown } | null)?.name;
    if (typeof name === 'string' && seen.has(name)) d.error(join(path, i), `names ${show(name)} a second time; list each once`, 'option-conflict');
    if (typeof name === 'string') seen.add(name);
  });
}

/** Labels or annotations: an object of string values. */
export function checkStringMap(d: Diagnostics, path: string, value: unknown): void {
  if (value === undefined) return;
  if (!isPlainObject(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    d.error(path, `must be an object of string values, got ${show(value)}`, 'value-type');
  }
}

/** A URL with one of `schemes`, e.g. `http://prometheus.monitoring:9090`. */
export function checkUrl(d: Diagnostics, path: string, value: unknown, schemes: readonly string[], example: string): value is string {
  if (value === undefined) return true;
  const m = typeof value === 'string' ? /^([a-z][a-z0-9+.-]*):\/\/[^\s/]+(\/\S*)?$/.exec(value) : null;
  if (!m || !schemes.includes(m[1])) {
    d.error(path, `must be a URL (${schemes.join(' or ')}) such as "${example}", got ${show(value)}`, 'value-format');
    return false;
  }
  return true;
}

/** An object of options; anything else is reported. Returns whether it is one. */
export function checkObject(d: Diagnostics, path: string, value: unknown, what: string): value is Record<string, unknown> {
  if (value === undefined) return false;
  if (!isPlainObject(value)) {
    d.error(path, `must be ${what}, got ${show(value)}`, 'value-type');
    return false;
  }
  return true;
}
