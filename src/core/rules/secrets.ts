import { isPlainObject } from '../base/checks';
import { Diagnostics } from '../base/errors';
import { findSecrets, findShapes, SecretHit } from '../base/secret-detector';
import { Findings } from './findings';
import { argField, GraphModel, Place, ServiceModel } from '../model/graph-model';

/**
 * No credential written into a manifest: every string of a graph, a request or
 * any object deployed beside them goes through the one secret detector. A
 * Secret's own data is where credentials belong and is left alone.
 */

/** The kind of place a string sits in; it decides the fix a finding gives. */
export type SecretPlace = 'env' | 'args' | 'model' | 'label' | 'config' | 'field' | 'helm-values';

const FIX: Record<SecretPlace, string> = {
  env: 'reference a Secret instead: hfTokenSecret / envFromSecret for HF_TOKEN, or EnvValue.fromSecret(name, key) (secretKeyRef)',
  args: 'pass it through the environment instead: a variable set from a Secret (EnvValue.fromSecret(name, key), secretKeyRef), written $(VAR) in the argument',
  model: 'keep it out of the model name: the engines read the Hugging Face token from HF_TOKEN, set from a Secret (hfTokenSecret / envFromSecret)',
  label: 'keep it out of labels and annotations, which anyone who can read the object reads: put it in a Secret and refer to the Secret by name',
  config:
    'keep it in a Secret instead (a Secret volume, or a variable set from a Secret with EnvValue.fromSecret(name, key)): a ConfigMap is neither encrypted nor access-controlled as a Secret is',
  field: 'keep it in a Secret instead and reference the Secret (secretKeyRef, envFrom or a Secret volume)',
  'helm-values': "keep it in a Secret instead and give the chart the Secret's name (charts take an existing Secret, e.g. grafana.admin.existingSecret)",
};

const URL_FIX: Record<SecretPlace, string> = {
  env: 'keep the credentials in a Secret, not in the URL: set the variable from a Secret (EnvValue.fromSecret(name, key), secretKeyRef)',
  args: 'keep the credentials in a Secret, not in the URL: pass the URL through a variable set from a Secret (EnvValue.fromSecret(name, key), secretKeyRef), written $(VAR) in the argument',
  model: 'name the model by its Hugging Face id or its path, and give the engines the token through HF_TOKEN, set from a Secret (hfTokenSecret / envFromSecret)',
  label: 'keep the credentials in a Secret, not in the URL, and out of labels and annotations',
  config: 'keep the credentials in a Secret, not in the URL: a Secret volume, or a variable set from a Secret',
  field: 'keep the credentials in a Secret, not in the URL, and reference the Secret',
  'helm-values': "keep the credentials in a Secret, not in the URL, and give the chart the Secret's name",
};

/**
 * What a finding says about a credential found at a place. `name` is the key,
 * variable or flag the place's whole value is set under.
 */
export function secretMessage(hit: SecretHit, place: SecretPlace, name: string | undefined): string {
  if (hit.evidence === 'name') {
    return hit.name === name ? `is a credential written as a literal value; ${FIX[place]}` : `sets ${hit.name} to a literal value, a credential in plain text; ${FIX[place]}`;
  }
  const fix = hit.evidence === 'url' ? URL_FIX[place] : FIX[place];
  return `holds ${hit.what} in plain text: anyone who can read the manifest (or its Git history) has it. Revoke it, and ${fix}`;
}

/** Where a string was found, and what was found in it. */
interface Found {
  readonly field: string;
  readonly place: SecretPlace;
  /** The key, variable or flag the string is set under. */
  readonly name?: string;
  /** The flag an argument belongs to (`--model` for the argument after it, or its own `--flag=`). */
  readonly flag?: string;
  readonly hits: readonly SecretHit[];
}

/** `field.key`, or `field[key]` for keys that are not plain words (`app.kubernetes.io/name`, `config.yaml`). */
function keyPath(field: string, key: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return `${field}[${key}]`;
  return field === '' ? key : `${field}.${key}`;
}

/** The annotation `kubectl apply` copies the whole object into: what it holds is reported where it sits. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** A list of `{ name, value }` entries: environment variables, HTTP headers. */
function isNameValueList(list: readonly unknown[]): list is Record<string, unknown>[] {
  return list.length > 0 && list.every((e) => isPlainObject(e) && typeof e.name === 'string') && list.some((e) => 'value' in (e as object) || 'valueFrom' in (e as object));
}

const FLAG = /^--?[A-Za-z][\w.-]*$/;
/** Flags and keys that name the model served. */
const MODEL_FLAGS = new Set(['--model', '--model-path', '--served-model-name', '--model-name']);
const MODEL_KEYS = new Set(['model', 'servedModelName', 'aicHfId', 'hfId']);

/** A command line: each argument alone, and with the flag before it as its name (`--api-key <key>`). */
function scanArgs(out: Found[], args: readonly unknown[], field: string): void {
  args.forEach((arg, i) => {
    if (typeof arg !== 'string') return;
    const previous = args[i - 1];
    const flag = typeof previous === 'string' && FLAG.test(previous) && !arg.startsWith('-') ? previous : undefined;
    const hits = findSecrets(arg, flag);
    if (hits.length === 0) return;
    const own = flag ?? /^(--?[A-Za-z][\w.-]*)=/.exec(arg)?.[1];
    // no `name`: the message names the flag, which the field (an index) does not
    out.push({ field: `${field}[${i}]`, place: own !== undefined && MODEL_FLAGS.has(own) ? 'model' : 'args', flag: own, hits });
  });
}

/**
 * Every string under `value`, at `field`. `name` is the key `value` sits under;
 * it names a list's elements too. Labels and annotations, environment lists
 * and command lines are recognized wherever they are (pod templates, sidecars,
 * init containers, Jobs); a nested Secret's data is skipped.
 */
function scan(out: Found[], value: unknown, field: string, place: SecretPlace, name: string | undefined): void {
  if (typeof value === 'string') {
    const hits = findSecrets(value, name);
    if (hits.length > 0) out.push({ field, place, name, hits });
    return;
  }
  if (Array.isArray(value)) {
    if (isNameValueList(value)) {
      const env = name === 'env' || name === 'envs';
      for (const e of value) {
        const entry = `${field}[${String(e.name)}]`;
        if (typeof e.value === 'string') scan(out, e.value, entry, env ? 'env' : place, String(e.name));
      }
    } else if ((name === 'args' || name === 'command') && value.every((a) => typeof a === 'string')) {
      scanArgs(out, value, field);
    } else {
      value.forEach((v, i) => scan(out, v, `${field}[${isPlainObject(v) && typeof v.name === 'string' ? v.name : i}]`, place, name));
    }
    return;
  }
  if (!isPlainObject(value)) return;
  const object = typeof value.apiVersion === 'string' && typeof value.kind === 'string';
  const secret = object && value.kind === 'Secret';
  const configMap = object && value.kind === 'ConfigMap';
  for (const [key, v] of Object.entries(value)) {
    // what a cluster writes into an object it returns (`kubectl get -o yaml`) is not the manifest's
    if ((object && key === 'status') || key === 'managedFields' || key === LAST_APPLIED) continue;
    if ((secret && (key === 'data' || key === 'stringData')) || (configMap && key === 'binaryData')) continue;
    const child = keyPath(field, key);
    const inKey = findShapes(key);
    if (inKey.length > 0) out.push({ field: child, place, hits: inKey });
    const childPlace: SecretPlace =
      (key === 'labels' || key === 'annotations') && isPlainObject(v) ? 'label' : configMap && key === 'data' ? 'config' : MODEL_KEYS.has(key) && typeof v === 'string' ? 'model' : place;
    scan(out, v, child, childPlace, key);
  }
}

/** Every string of `value` with the credentials found in it; fields are relative to `field`. */
function scanned(value: unknown, field = '', place: SecretPlace = 'field', name?: string): Found[] {
  const out: Found[] = [];
  scan(out, value, field, place, name);
  return out;
}

function report(f: Findings, service: ServiceModel | string | undefined, found: readonly Found[], option: (x: Found) => string | undefined): void {
  for (const x of found) {
    const place: Place = { field: x.field, option: option(x) };
    for (const hit of x.hits) f.report('literal-secret', service, place, secretMessage(hit, x.place, x.name));
  }
}

/** Flags the library renders from an option, and that option. */
const FLAG_OPTIONS: Record<string, string> = {
  '--model': 'graph:model',
  '--model-path': 'graph:model',
  '--served-model-name': 'graph:servedModelName',
  '--model-name': 'graph:servedModelName',
  '--metric-pulling-prometheus-endpoint': 'prometheusEndpoint',
};

/** The option a graph-level field comes from (constructs render the normalized layout). */
function graphOption(x: Found): string | undefined {
  const env = /^spec\.envs\[(.*)\]$/.exec(x.field);
  if (env) return `graph:env.${env[1]}`;
  const meta = /^metadata\.(labels|annotations)([.[].*)$/.exec(x.field);
  return meta ? `graph:${meta[1]}${meta[2]}` : undefined;
}

/** The option a field of a service comes from: its environment, or the flag an argument belongs to. */
function serviceOption(x: Found): string | undefined {
  const env = /^(?:envs|extraPodSpec\.mainContainer\.env)\[(.*)\]$/.exec(x.field);
  if (env) return `env.${env[1]}`;
  if (/^extraPodSpec\.mainContainer\.(args|command)\[\d+\]$/.test(x.field)) return (x.flag !== undefined ? FLAG_OPTIONS[x.flag] : undefined) ?? 'extraArgs';
  return undefined;
}

/** The planner config key the `prometheusEndpoint` option is written to. */
const PLANNER_PROMETHEUS_KEY = 'metric_pulling_prometheus_endpoint';

/**
 * Credentials in a DynamoGraphDeployment of either API version, as written
 * (`graph`): its metadata, graph-level environment and every field of every
 * service; and in the files its services mount from ConfigMaps among the
 * objects (TensorRT-LLM engine configs, 1.x planner configs), read from the model.
 */
export function graphSecretRules(graph: Readonly<Record<string, unknown>>, g: GraphModel, f: Findings): void {
  const { spec, ...rest } = graph;
  report(f, undefined, scanned(rest), graphOption);
  if (isPlainObject(spec)) {
    for (const [k, v] of Object.entries(spec)) {
      if (k === 'services' && isPlainObject(v)) {
        for (const [name, service] of Object.entries(v)) report(f, name, scanned(service), serviceOption);
      } else if (k === 'components' && Array.isArray(v)) {
        v.forEach((c, i) => {
          if (isPlainObject(c) && typeof c.name === 'string') report(f, c.name, scanned(c), serviceOption);
          else report(f, undefined, scanned(c, `spec.components[${i}]`), graphOption);
        });
      } else {
        report(f, undefined, scanned(v, `spec.${k}`, 'field', k), graphOption);
      }
    }
  }
  for (const s of g.services) {
    if (s.engineConfig) report(f, s, scanned(s.engineConfig, 'engineConfig', 'config'), (x) => x.field);
    // an inline planner config is an argument, scanned with the others
    const planner = s.plannerConfig;
    if (planner && planner.field !== argField('--config')) {
      report(f, s, scanned(planner.values, planner.field, 'config'), (x) => (x.field === `${planner.field}.${PLANNER_PROMETHEUS_KEY}` ? 'prometheusEndpoint' : undefined));
    }
  }
}

/** Request fields the options of an SLA-planned deployment set, by prefix. */
const REQUEST_OPTIONS: readonly (readonly [RegExp, string])[] = [
  [/^metadata\.(labels|annotations)/, '$1'],
  [/^spec\.deploymentOverrides\.(labels|annotations)/, 'deploymentOverrides.$1'],
  [/^spec\.overrides\.dgd\.metadata\.(labels|annotations)/, 'deploymentOverrides.$1'],
  [/^spec\.overrides\.dgd\.spec/, 'graphOverride'],
  [/^spec\.overrides\.profilingJob/, 'profilingJob'],
  [/^spec\.model$/, 'model'],
  [/^spec\.(image|profilingConfig\.profilerImage)$/, 'profilerImage'],
  [/^spec\.deploymentOverrides\.workersImage$/, 'deploymentOverrides.workersImage'],
  [/^spec\.profilingConfig\.config\.sweep\.aicHfId$/, 'aiConfigurator.hfId'],
];

/**
 * Credentials in a DynamoGraphDeploymentRequest: its metadata, the model, the
 * profiler's config and Job, and the graph it generates (overrides).
 */
export function requestSecretRules(request: Readonly<Record<string, unknown>>, f: Findings): void {
  report(f, undefined, scanned(request), (x) => {
    const match = REQUEST_OPTIONS.find(([prefix]) => prefix.test(x.field));
    return match ? x.field.replace(match[0], match[1]) : undefined;
  });
}

/**
 * Credentials in any other object: labels and annotations, ConfigMap data
 * (an engine config, an env file, a script), pod templates of every kind,
 * Helm values of a Flux HelmRelease. A Secret's `data` and `stringData` are
 * where credentials belong.
 */
export function objectSecretRules(object: Readonly<Record<string, unknown>>, f: Findings): void {
  report(f, undefined, scanned(object), () => undefined);
}

/**
 * Reports the credentials in an option's value (a string, or an object of them such
 * as chart values or a dashboard) as `literal-secret` errors under `path`.
 */
export function checkLiteralSecrets(d: Diagnostics, path: string, value: unknown, place: SecretPlace = 'field'): void {
  const f = new Findings();
  report(f, undefined, scanned(value, '', place), () => undefined);
  for (const x of f.all) d.error(x.field === '' ? path : x.field.startsWith('[') ? `${path}${x.field}` : `${path}.${x.field}`, x.message, 'literal-secret');
}
