import { isPlainObject } from '../checks';
import { Findings } from './findings';
import { GraphModel, Place, ServiceModel } from './graph-model';

/**
 * Environment lists as the operator's webhook accepts them (no name twice in
 * one list), and no credentials written into the manifest.
 */

/** Token shapes: Hugging Face user access tokens, NVIDIA API keys (NGC, build.nvidia.com). */
const TOKEN_PATTERNS: { what: string; pattern: RegExp }[] = [
  { what: 'a Hugging Face token', pattern: /\bhf_[A-Za-z0-9]{30,}\b/ },
  { what: 'an NVIDIA API key', pattern: /\bnvapi-[A-Za-z0-9_-]{30,}/ },
];

/** Variables that hold credentials: a literal value in them is a secret in the manifest. */
const SECRET_NAMES = /^(HF_TOKEN|HUGGING_FACE_HUB_TOKEN|HUGGINGFACE_HUB_TOKEN|HUGGINGFACE_TOKEN|NGC_API_KEY|NVIDIA_API_KEY|NGC_CLI_API_KEY)$/;

function tokenIn(value: string): string | undefined {
  return TOKEN_PATTERNS.find((t) => t.pattern.test(value))?.what;
}

const FIX = 'reference a Secret instead: hfTokenSecret / envFromSecret for HF_TOKEN, or EnvValue.fromSecret(name, key) (secretKeyRef)';

function checkList(f: Findings, service: ServiceModel | undefined, list: unknown, field: string, option: (name: string) => string): void {
  if (!Array.isArray(list)) return;
  const seen = new Set<string>();
  for (const e of list) {
    if (!isPlainObject(e) || typeof e.name !== 'string') continue;
    const place: Place = { field: `${field}[${e.name}]`, option: option(e.name) };
    if (seen.has(e.name)) f.report('duplicate-env', service, place, `is listed twice; the operator's webhook refuses duplicate names in one list. Keep one entry`);
    seen.add(e.name);
    if (typeof e.value !== 'string' || e.value === '' || tokenIn(e.value)) continue;
    if (SECRET_NAMES.test(e.name)) f.report('literal-secret', service, place, `is a credential written as a literal value; ${FIX}`);
  }
}

/**
 * Token-shaped strings anywhere: environment lists (by variable), command
 * lines (`--hf-token`, `huggingface-cli login --token`, `export HF_TOKEN=` in a
 * shell line), init containers and sidecars.
 */
function scanTokens(f: Findings, service: ServiceModel | undefined, value: unknown, field: string, option: string | undefined): void {
  if (typeof value === 'string') {
    const token = tokenIn(value);
    if (token) f.report('literal-secret', service, { field, option }, `holds ${token} in plain text: anyone who can read the manifest (or its Git history) has it. Revoke it, and ${FIX}`);
  } else if (Array.isArray(value)) {
    const envList = /(^|\.)(envs|env)$/.test(field);
    value.forEach((v, i) => {
      if (envList && isPlainObject(v) && typeof v.name === 'string') {
        scanTokens(f, service, v.value, `${field}[${v.name}]`, field === 'spec.envs' ? `graph:env.${v.name}` : `env.${v.name}`);
      } else {
        scanTokens(f, service, v, `${field}[${i}]`, /(^|\.)(args|command)$/.test(field) ? 'extraArgs' : option);
      }
    });
  } else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) scanTokens(f, service, v, field === '' ? k : `${field}.${k}`, option);
  }
}

export function envRules(g: GraphModel, f: Findings): void {
  checkList(f, undefined, g.spec.envs, 'spec.envs', (name) => `graph:env.${name}`);
  scanTokens(f, undefined, g.spec.envs, 'spec.envs', undefined);
  for (const s of g.services) {
    checkList(f, s, s.spec.envs, 'envs', (name) => `env.${name}`);
    checkList(f, s, s.container.env, 'extraPodSpec.mainContainer.env', (name) => `env.${name}`);
    scanTokens(f, s, s.spec, '', undefined);
  }
}
