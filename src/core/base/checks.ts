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

/**
 * The largest 32-bit signed integer. Kubernetes stores replicas, node counts and most
 * counts as int32 (the Dynamo CRDs say `format: int32`), a GPU or device request must fit
 * the scheduler's counts, and the engines parse sizes and lengths into C ints; so every
 * whole-number option stays at or below it unless a tighter bound is known.
 */
export const INT32_MAX = 2_147_483_647;

/** How far a number option may go, beyond its lower bound. */
export interface UpperBound {
  /** The largest allowed value. @default INT32_MAX */
  readonly max?: number;
  /** Why the bound is there, for the message. @default - the int32 reason */
  readonly why?: string;
}

const INT32_WHY = 'the largest 32-bit integer, the type Kubernetes and the engines read it into';
const NUMBER_WHY = 'the largest 32-bit integer: no count, duration, rate or weight means anything beyond it';

/**
 * A whole number from `min` up to `INT32_MAX` (or `bound.max`). `what` words the lower
 * bound in messages (`'a whole number of tokens > 0'`).
 */
export function checkInteger(d: Diagnostics, path: string, value: unknown, min: number, what?: string, bound: UpperBound = {}): value is number {
  if (value === undefined) return true;
  const allowed = what ?? (min === 0 ? 'a whole number >= 0' : min === 1 ? 'a positive integer' : `an integer >= ${min}`);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    d.error(path, `must be ${allowed}, got ${show(value)}`, 'value-range');
    return false;
  }
  return checkUpperBound(d, path, value, allowed, bound);
}

function checkUpperBound(d: Diagnostics, path: string, value: number, allowed: string, bound: UpperBound, defaultWhy = INT32_WHY): boolean {
  const max = bound.max ?? INT32_MAX;
  if (value <= max) return true;
  const why = bound.why ?? (bound.max === undefined ? defaultWhy : undefined);
  d.error(path, `must be ${allowed} no larger than ${max}${why ? ` (${why})` : ''}, got ${show(value)}`, 'value-range');
  return false;
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

/**
 * A finite number in `range`. Without a `max`, the number stays at or below `INT32_MAX`
 * like every count: no latency, weight, rate or duration option means anything beyond it,
 * and a larger one (`1e308`) overflows what the engines compute from it.
 */
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
    return false;
  }
  if (range.min === undefined && value < -INT32_MAX) {
    d.error(path, `must be ${describeRange(range)} no smaller than ${-INT32_MAX}, got ${show(value)}`, 'value-range');
    return false;
  }
  return range.max !== undefined || checkUpperBound(d, path, value, describeRange(range), {}, NUMBER_WHY);
}

function describeRange(range: { min?: number; max?: number; exclusiveMin?: boolean }): string {
  if (range.min !== undefined && range.max !== undefined) return `a number between ${range.min} and ${range.max}`;
  if (range.min !== undefined) return range.exclusiveMin ? `a number > ${range.min}` : `a number >= ${range.min}`;
  if (range.max !== undefined) return `a number <= ${range.max}`;
  return 'a finite number';
}

/**
 * Plain data that reaches a manifest as the user wrote it (an engine config, chart values,
 * a JobSpec fragment): every number in it must be finite, since YAML would carry NaN and
 * Infinity on as `.nan` and `.inf`, which Kubernetes, Helm and the engines' JSON refuse or
 * misread. Reports each one at its key path; a value that contains itself is reported too.
 */
export function checkFiniteNumbers(d: Diagnostics, path: string, value: unknown): void {
  const ancestors = new Set<object>();
  const walk = (v: unknown, at: string): void => {
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) d.error(at, `must be a finite number, got ${show(v)}: YAML would carry it on as ${Number.isNaN(v) ? '.nan' : v > 0 ? '.inf' : '-.inf'}`, 'value-range');
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    if (ancestors.has(v)) {
      d.error(at, 'contains itself; give plain data (objects, lists, strings, numbers, booleans)', 'value-type');
      return;
    }
    ancestors.add(v);
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, join(at, i)));
    else for (const key of Object.keys(v)) walk((v as Record<string, unknown>)[key], join(at, key));
    ancestors.delete(v);
  };
  walk(value, path);
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

/**
 * Control characters (C0, DEL, C1) and invisible formatting ones (bidirectional overrides,
 * zero-width spaces), and the line and paragraph separators: what makes text read
 * differently in a terminal or an editor than it is.
 */
const CONTROL = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
/** A URL scheme at the start (`https://`, `s3://`, `hf://`). */
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/**
 * One part of a Hugging Face repository id, as the hub accepts it (huggingface_hub's
 * `validate_repo_id`): letters, digits, '-', '_' and '.', starting and ending with a letter,
 * digit or '_', without '--' or '..'.
 */
const HF_PART = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;
/** The hub's limit on a repository name. */
const HF_NAME_MAX = 96;
/** Linux's PATH_MAX. */
const PATH_MAX = 4096;
const HF_ID_RULE = `a Hugging Face model id ("org/name": letters, digits, '-', '_' and '.', not starting or ending with '-' or '.', without '--' or '..', the name at most ${HF_NAME_MAX} characters)`;
const PATH_RULE = 'a path in the container (absolute such as "/models/llama", or relative such as "./models/llama", without \'..\' segments)';

/** The value with the userinfo of a URL (`user:password@`) masked, for messages. */
function maskUserinfo(value: string): string {
  return value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^/?#@]*@/, '$1***@');
}

function hfIdProblem(value: string): boolean {
  const parts = value.split('/');
  if (parts.length > 2 || value.includes('--') || value.includes('..') || value.endsWith('.git')) return true;
  return parts.some((p) => !HF_PART.test(p)) || parts[parts.length - 1].length > HF_NAME_MAX;
}

/**
 * The model a graph serves: a Hugging Face model id (`org/name`) or, unless `idOnly`, a
 * path in the container (absolute, or relative without '..' segments). It lands on the
 * engines' command lines and in the profiler's downloads, so it carries no whitespace, no
 * control characters, no URL (and so no credentials), and does not start with '-'.
 */
export function checkModel(d: Diagnostics, path: string, value: unknown, o: { readonly required?: boolean; readonly idOnly?: boolean } = {}): value is string {
  if (!checkString(d, path, value, o.required ?? true) || value === undefined) return value === undefined && o.required === false;
  const allowed = o.idOnly ? HF_ID_RULE : `${HF_ID_RULE} or ${PATH_RULE}`;
  const fail = (why: string, shown = value) => {
    d.error(path, `${why}; it must be ${allowed}, got ${show(shown)}`, 'value-format');
    return false;
  };
  if (CONTROL.test(value) || /\s/.test(value)) return fail('holds whitespace or control characters');
  if (URL_SCHEME.test(value)) return fail('is a URL (which may carry credentials); put the weights in a model cache and give their path', maskUserinfo(value));
  // `host:path` and `user:password@host:path` (scp's form) are no models either
  if (!value.startsWith('/') && !value.startsWith('./') && value.split('/')[0].includes(':')) return fail("names a host or a scheme before ':'", maskUserinfo(value));
  if (value.startsWith('-')) return fail("starts with '-', which the engine would read as a flag");
  if (value.split('/').includes('..')) return fail("has a '..' segment, which climbs out of the directory it names");
  if (value.length > PATH_MAX) return fail(`is ${value.length} characters long`, `${value.slice(0, 64)}...`);
  // two or more slashes, a leading '/' or './': a path; otherwise it names a repository on the hub
  const isPath = value.startsWith('/') || value.startsWith('./') || value.split('/').length > 2;
  if (isPath && o.idOnly) return fail('is a path');
  if (!isPath && hfIdProblem(value)) return fail('is not a Hugging Face model id');
  return true;
}

/**
 * The model name clients send (`--served-model-name`): any non-empty text, without control
 * characters, not starting with '-' (the engine would read it as a flag).
 */
export function checkServedModelName(d: Diagnostics, path: string, value: unknown): value is string {
  if (!checkString(d, path, value) || value === undefined) return value === undefined;
  if (CONTROL.test(value)) {
    d.error(path, `holds control characters; it must be a name clients can send, got ${show(value)}`, 'value-format');
    return false;
  }
  if (value.startsWith('-')) {
    d.error(path, `starts with '-', which the engine would read as a flag, got ${show(value)}`, 'value-format');
    return false;
  }
  return true;
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

/**
 * Reports option keys the library does not know, so that a typo is never silently ignored:
 * each names the closest known option (`closestNames`) and lists every option `known` holds,
 * which is everything the object accepts at that level.
 */
export function checkKnownKeys(d: Diagnostics, path: string, value: unknown, known: readonly string[]): void {
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const near = closestNames(key, known);
    const hint = near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : '';
    d.error(path === '' ? key : `${path}.${key}`, `is not a known option${hint}; known options are ${known.join(', ')}`, 'unknown-option');
  }
}

/**
 * The names in `known` closest to `given`, for a "did you mean": fewest edits, where an edit
 * is a letter added, removed or replaced, or two neighbouring letters swapped (`frontned`),
 * and case is ignored (`FrontEnd`). Only names at most a third of `given`'s length away (one
 * edit below six letters) are offered: further away, a suggestion is a guess. Names equally
 * close come in the order of `known`; none when nothing is close.
 */
export function closestNames(given: string, known: readonly string[]): string[] {
  const limit = Math.max(1, Math.floor(given.length / 3));
  const lower = given.toLowerCase();
  const distances = known.map((name) => editDistance(lower, name.toLowerCase()));
  const best = Math.min(...distances);
  return best <= limit ? known.filter((_, i) => distances[i] === best) : [];
}

/** Edits from `a` to `b`: insertions, deletions, substitutions and swaps of adjacent letters (optimal string alignment). */
function editDistance(a: string, b: string): number {
  // rows i-2, i-1 and i of the table of distances between prefixes
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      current.push(d);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length];
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
    // a URL that is refused may still carry a password: the message never repeats it
    d.error(path, `must be a URL (${schemes.join(' or ')}) such as "${example}", got ${show(typeof value === 'string' ? maskUserinfo(value) : value)}`, 'value-format');
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
