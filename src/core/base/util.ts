let yamlModule: typeof import('yaml') | undefined;

/**
 * The `yaml` package, loaded on first use: only TensorRT-LLM engine configs
 * need it, and importing the library should stay cheap.
 */
export function yaml(): typeof import('yaml') {
  return (yamlModule ??= require('yaml') as typeof import('yaml'));
}

/**
 * Removes `undefined` values, and objects and arrays left empty by that, so
 * that rendered manifests carry only what was set. Use only where an empty
 * object means "not set" (not for Helm values, where `{}` is meaningful).
 */
export function prune<T>(value: T): T {
  return pruneValue(value) as T;
}

function pruneValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const v of value) {
      const pv = pruneValue(v);
      if (pv !== undefined) items.push(pv);
    }
    return items.length === 0 ? undefined : items;
  }
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const k of Object.keys(value)) {
    const pv = pruneValue((value as Record<string, unknown>)[k]);
    if (pv !== undefined) {
      // defined, not assigned: a key named `__proto__` (a component's name) stays a key
      if (k === '__proto__') Object.defineProperty(out, k, { value: pv, enumerable: true, writable: true, configurable: true });
      else out[k] = pv;
      kept++;
    }
  }
  return kept === 0 ? undefined : out;
}

/**
 * Deep merge of plain objects: `override` wins; arrays and scalars are
 * replaced, not concatenated. Neither input is modified.
 */
export function deepMerge<T extends Record<string, unknown>>(base: T, override: Record<string, unknown> | undefined): T {
  if (!override) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(override)) {
    const b = out[k];
    if (isObject(b) && isObject(v)) {
      out[k] = deepMerge(b, v);
    } else {
      out[k] = v;
    }
  }
  return out as T;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Kubernetes object names are lowercase: `VllmDecodeWorker` -> `vllmdecodeworker`. */
export function toKubeName(...parts: string[]): string {
  return parts
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}
