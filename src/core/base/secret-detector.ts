/**
 * Credentials written as plain text, wherever a string of a manifest or of the
 * options goes: one detector for the constructs and for `lint`. It judges a
 * string three ways: by the shape of a known token (`hf_...`, `AKIA...`, a
 * JWT...), by a URL that carries a password or a token, and by the name a value
 * is set under (`*_PASSWORD`, `--api-key`, `apiKey:`), also for names and
 * values inside a longer text (a shell line, a config file in a ConfigMap).
 *
 * A name alone proves nothing, so values that cannot be a credential are let
 * through: references (`$(VAR)`, `${VAR}`), paths, numbers, booleans, the name
 * of another variable, placeholders and special tokens such as `<|eos|>`.
 * A hit never carries the value it found; messages describe it.
 */

/** How a credential was recognized. */
export type SecretEvidence = 'shape' | 'url' | 'name';

/** A credential found in a string. */
export interface SecretHit {
  /** What it is, for a message (`a Hugging Face token`); never the value itself. */
  readonly what: string;
  readonly evidence: SecretEvidence;
  /** The variable, flag or key it is set under, when that name is what gave it away. */
  readonly name?: string;
  /** Where it sits in the string: `[start, end)`. */
  readonly start: number;
  readonly end: number;
}

interface Shape {
  readonly what: string;
  readonly pattern: RegExp;
  /** A further test of the match, against words and other lookalikes. */
  readonly accept?: (match: string) => boolean;
}

/** Letters of both cases and digits: the body of a random key, not a word. */
function random(body: string): boolean {
  return /[a-z]/.test(body) && /[A-Z]/.test(body) && /[0-9]/.test(body);
}

/** A JWT's header is base64url JSON naming its algorithm. */
function jwtHeader(token: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

/** Token shapes, the most specific first. */
const SHAPES: readonly Shape[] = [
  { what: 'a PEM private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g },
  // user access tokens: `hf_` and 34 letters and digits
  { what: 'a Hugging Face token', pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9_])/g },
  // NGC personal and service keys, build.nvidia.com keys
  { what: 'an NVIDIA API key', pattern: /(?<![A-Za-z0-9_-])nvapi-[A-Za-z0-9_-]{30,}/g },
  {
    what: 'an OpenAI-style API key',
    pattern: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,}/g,
    accept: (m) => random(m.slice(3)),
  },
  { what: 'an AWS access key id', pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g },
  { what: 'a GitHub token', pattern: /(?<![A-Za-z0-9_])(?:gh[oprsu]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})(?![A-Za-z0-9_])/g },
  { what: 'a Slack token', pattern: /(?<![A-Za-z0-9-])xox[abprs]-[A-Za-z0-9-]{10,}/g, accept: (m) => /[0-9]/.test(m) },
  { what: 'a JSON Web Token', pattern: /(?<![A-Za-z0-9_.-])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, accept: jwtHeader },
];

/** Text without any of these holds no token shape, or no credential name: most strings of a manifest, passed over at once. */
const SHAPE_HINT = /hf_|nvapi-|sk-|AKIA|ASIA|gh[oprsu]_|github_pat_|xox[abprs]-|eyJ|-----BEGIN/;
const NAME_HINT = /pass|secret|token|key|credential|authorization/i;

/** The words of a variable, flag or key name: `AWS_SECRET_ACCESS_KEY`, `--api-key`, `apiKey`, `X-Amz-Signature`. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** A name ending in one of these holds a credential: `DB_PASSWORD`, `CLIENT_SECRET`, `apikey`. */
const CREDENTIAL_WORDS = new Set([
  'password', 'passwd', 'passphrase', 'pass', 'secret', 'credential', 'credentials', 'authorization',
  'apikey', 'accesskey', 'secretkey', 'privatekey', 'accesstoken', 'authtoken', 'apitoken', 'clientsecret',
]);
/** `<kind>_KEY` names that hold a key rather than name one: `API_KEY`, `privateKey`, `SIGNING_KEY`. */
const KEY_KINDS = new Set(['api', 'access', 'private', 'secret', 'auth', 'signing', 'encryption', 'master', 'client', 'session']);
/** Words that may follow `SECRET` in a credential's name: `AWS_SECRET_ACCESS_KEY`, `SECRET_VALUE`. */
const AFTER_SECRET = new Set(['key', 'value', 'access', 'token', 'string', 'data', 'b64', 'base64', 'password']);
/** `<word>_token` keys of tokenizers and chat templates, whose values are vocabulary: `eos_token: "</s>"`. */
const VOCABULARY_TOKENS = new Set([
  'bos', 'eos', 'pad', 'unk', 'sep', 'cls', 'mask', 'start', 'end', 'stop', 'special', 'image', 'video', 'audio',
  'think', 'eot', 'eom', 'additional', 'placeholder', 'vision', 'sentinel', 'decoder', 'prefix', 'suffix', 'middle',
]);

/**
 * Whether a variable, flag, key or query parameter name is one credentials are
 * set under. Case and style do not matter (`HF_TOKEN`, `--hf-token`,
 * `hfToken`); counts and settings about tokens are no credentials
 * (`MAX_TOKENS`, `TOKEN_LIMIT`, `tokens_per_block`, `--use-server-token-count`).
 */
export function isSecretName(name: string): boolean {
  if (!NAME_HINT.test(name)) return false;
  const w = words(name);
  if (w.length === 0) return false;
  const last = w[w.length - 1];
  const before = w[w.length - 2];
  if (last === 'token') return before === undefined || !VOCABULARY_TOKENS.has(before);
  if (CREDENTIAL_WORDS.has(last)) return true;
  if (last === 'key' && before !== undefined && KEY_KINDS.has(before)) return true;
  const secret = w.lastIndexOf('secret');
  return secret >= 0 && w.slice(secret + 1).every((x) => AFTER_SECRET.has(x));
}

/** Names of the AWS secret access key: `AWS_SECRET_ACCESS_KEY`, `aws_secret_access_key`, `secretAccessKey`. */
function isAwsSecretName(name: string): boolean {
  const w = words(name).join('_');
  return /(^|_)secret_access_key$/.test(w) || /(^|_)aws_secret(_key)?$/.test(w);
}

/** Query parameters that carry credentials, besides the names `isSecretName` knows. */
const QUERY_CREDENTIALS = new Set([
  'key', 'sig', 'signature', 'auth', 'jwt', 'pwd', 'x-amz-signature', 'x-amz-credential', 'x-amz-security-token', 'private_token',
]);

/** A value made from a reference that Kubernetes, a shell or a template fills in. */
const REFERENCE = /\$\(|\$\{|\$[A-Za-z_]|\{\{|<<|%\(|%[A-Za-z_]+%/;
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
/** Values that say there is no credential: booleans, switches, and the placeholders OpenAI clients are given for local servers. */
const NO_CREDENTIAL = new Set([
  'true', 'false', 'yes', 'no', 'on', 'off', 'none', 'null', 'nil', 'undefined', 'auto', 'enabled', 'disabled', 'required', 'optional',
  'empty', 'dummy', 'unused', 'fake', 'placeholder', 'redacted', 'not-needed', 'not_needed', 'notneeded', 'not-used', 'not_used',
]);
const FILE_NAME = /^[\w.-]+\.(json|ya?ml|txt|pem|key|crt|cert|cer|der|p12|pfx|jks|cfg|conf|toml|ini|env|creds|nk)$/i;
/** A Kubernetes object name (a Secret's, under names such as `envFromSecret` or `existingSecret`). */
const OBJECT_NAME = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
/** An HTTP authorization scheme before the credential: `Bearer <token>`. */
const AUTH_SCHEME = /^(Bearer|Basic|Token|Bot|Digest)\s+/i;

/** Whether `value`, set under the credential name `name`, is itself a credential written out. */
function literalCredential(value: string, name: string): boolean {
  const v = value.trim().replace(AUTH_SCHEME, '');
  if (v.length < 4 || /\s/.test(v) || !/[A-Za-z0-9]/.test(v)) return false;
  if (REFERENCE.test(v) || /[<>{}[\]()]/.test(v)) return false;
  if (NUMBER.test(v) || NO_CREDENTIAL.has(v.toLowerCase())) return false;
  if (/^(\/|\.\.?\/|~\/|file:)/.test(v) || FILE_NAME.test(v)) return false;
  // a URL is judged by what it carries (userinfo, query)
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(v)) return false;
  // the name of another variable or of a key (`api_key: OPENAI_API_KEY`, `secretKey: password`)
  if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(v) || isSecretName(v)) return false;
  // a placeholder (`xxxx`, `****`)
  if (/^(.)\1*$/.test(v)) return false;
  const w = words(name);
  if (w[w.length - 1] === 'secret' && OBJECT_NAME.test(v) && (/[-.]/.test(v) || ['from', 'existing', 'pull', 'tls', 'ca', 'cert'].includes(w[w.length - 2]))) return false;
  return true;
}

/** A hit for `value` under `name`, when the name is a credential's and the value one written out. */
function byName(name: string, value: string, start: number): SecretHit | undefined {
  if (!isSecretName(name) || !literalCredential(value, name)) return undefined;
  const end = start + value.length;
  if (isAwsSecretName(name) && /^[A-Za-z0-9/+]{40}$/.test(value.trim())) return { what: 'an AWS secret access key', evidence: 'shape', name, start, end };
  return { what: `a literal ${name}`, evidence: 'name', name, start, end };
}

const URL_PATTERN = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*):\/\/([^\s'"<>`\\]+)/g;

/** A URL's credentials: a password in its userinfo, a token in its query. */
function urlHit(scheme: string, rest: string, start: number, end: number): SecretHit | undefined {
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const at = authority.lastIndexOf('@');
  const host = authority.slice(at + 1);
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(':');
    const password = colon < 0 ? '' : userinfo.slice(colon + 1);
    if (password !== '' && !REFERENCE.test(password)) return { what: `a URL with a password (${scheme}://…@${host})`, evidence: 'url', start, end };
  }
  const q = rest.indexOf('?');
  if (q < 0) return undefined;
  const query = rest.slice(q + 1).split('#')[0];
  for (const pair of query.split(/[&;]/)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    let key = pair.slice(0, eq);
    try {
      key = decodeURIComponent(key);
    } catch {
      // kept as written
    }
    const value = pair.slice(eq + 1);
    if (!(QUERY_CREDENTIALS.has(key.toLowerCase()) || isSecretName(key))) continue;
    if (value === '' || REFERENCE.test(value) || NUMBER.test(value) || NO_CREDENTIAL.has(value.toLowerCase())) continue;
    return { what: `a URL with a credential in its query (${scheme}://${host}/…?${key}=…)`, evidence: 'url', start, end };
  }
  return undefined;
}

/**
 * `name=value`, `--flag=value`, `--flag value`, `name: value` and `"name": "value"`
 * inside a text: a shell line, an env file, a YAML, JSON or INI document.
 */
const ASSIGNMENTS: readonly RegExp[] = [
  /(?<![\w.-])(-{0,2}[A-Za-z_][\w.-]*)[ \t]*=[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'`;&|)]+))/dg,
  /(?<![\w-])(--[A-Za-z][\w-]*)[ \t]+(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'`;&|)-][^\s"'`;&|)]*))/dg,
  /(?<![\w.-])["']?([A-Za-z_][\w.-]*)["']?[ \t]*:[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"',}#]+))/dg,
];

function overlaps(hits: readonly SecretHit[], start: number, end: number): boolean {
  return hits.some((h) => start < h.end && h.start < end);
}

/**
 * Enough to name every kind of credential a string holds: a text with thousands
 * of them (a generated ConfigMap) costs no more than one pass per pattern.
 */
const MAX_HITS = 16;

/**
 * The credentials written in a string. `name` is the variable, flag or key the
 * whole string is set under, when there is one. Hits do not overlap: a token's
 * shape wins over the URL it sits in, and both over the name it is set under.
 */
export function findSecrets(text: string, name?: string): SecretHit[] {
  const hits = findShapes(text);
  const add = (hit: SecretHit | undefined) => {
    if (hit && !overlaps(hits, hit.start, hit.end)) hits.push(hit);
  };
  if (text.includes('://')) {
    for (const m of text.matchAll(URL_PATTERN)) {
      if (hits.length >= MAX_HITS) break;
      add(urlHit(m[1], m[2], m.index!, m.index! + m[0].length));
    }
  }
  if (name !== undefined) add(byName(name, text, 0));
  if (NAME_HINT.test(text)) {
    for (const pattern of ASSIGNMENTS) {
      for (const m of text.matchAll(pattern)) {
        if (hits.length >= MAX_HITS) break;
        const group = [2, 3, 4].find((g) => m[g] !== undefined)!;
        add(byName(m[1], m[group], m.indices![group][0]));
      }
    }
  }
  return hits.sort((a, b) => a.start - b.start);
}

/** The token shapes in a string alone (a map key, a name): no URL or name to go by. */
export function findShapes(text: string): SecretHit[] {
  const hits: SecretHit[] = [];
  if (!SHAPE_HINT.test(text)) return hits;
  for (const shape of SHAPES) {
    for (const m of text.matchAll(shape.pattern)) {
      if (hits.length >= MAX_HITS) return hits;
      const start = m.index!;
      const end = start + m[0].length;
      if ((!shape.accept || shape.accept(m[0])) && !overlaps(hits, start, end)) hits.push({ what: shape.what, evidence: 'shape', start, end });
    }
  }
  return hits;
}
