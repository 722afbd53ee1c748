import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { FileNotRead, readRegularFile as readBoundedFile } from './sources';

/**
 * A small Kubernetes API client for what `dynamo-constructs lint --server` and the cluster
 * tests need: discovery, server-side apply (dry-run or for real) with strict field
 * validation, get, list and delete. It reads the current context of a kubeconfig (or of the
 * `KUBECONFIG` list, merged as kubectl merges it): a server with its CA (or
 * insecure-skip-tls-verify), and a client certificate or a bearer token.
 *
 * Manifests, kubeconfigs and the server's answers are read as hostile. `referenceProblems`
 * checks what would go into a request path against Kubernetes' own grammar (lint sends nothing
 * that fails it); the client builds every path from percent-encoded segments and refuses one
 * that would still change its shape (a dot segment, an encoded slash, a query or fragment). A
 * client sends only discovery GETs and `dryRun=All` requests unless made `read-write`, and
 * neither the server URL's userinfo nor a token is ever part of a message.
 */

// ---------------------------------------------------------------------------
// Kubernetes' grammar for what names a request path

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** The API machinery's kinds are Go type names: a letter, then letters and digits. */
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;
/**
 * RBAC objects are named like path segments (`system:controller:job-controller`), not DNS
 * subdomains; kept to the characters such names use, so nothing that a URL reads as syntax
 * (`/`, `%`, `?`, `#`, a dot segment) can be one.
 */
const RBAC_NAME = /^[A-Za-z0-9]([A-Za-z0-9._:@-]*[A-Za-z0-9])?$/;
const RBAC_GROUP = 'rbac.authorization.k8s.io';

const DNS_LABEL_RULE = 'a DNS label: lowercase letters, digits and "-", starting and ending with a letter or digit, at most 63 characters';
const DNS_SUBDOMAIN_RULE = 'a DNS subdomain: lowercase letters, digits, "-" and ".", each dot-separated part starting and ending with a letter or digit, at most 253 characters';

const isDnsLabel = (s: string) => s.length <= 63 && DNS_LABEL.test(s);
const isDnsSubdomain = (s: string) => s.length <= 253 && DNS_SUBDOMAIN.test(s);

/** A value as a message shows it: quoted, control characters escaped, long values cut. */
function shown(v: unknown): string {
  if (typeof v !== 'string') return (JSON.stringify(v) ?? String(v)).slice(0, 80);
  return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}...` : v);
}

/** An apiVersion's group (empty for the core group) and version, when it is one. */
function splitApiVersion(apiVersion: unknown): { group: string; version: string } | undefined {
  if (typeof apiVersion !== 'string') return undefined;
  const parts = apiVersion.split('/');
  if (parts.length === 1 && isDnsLabel(parts[0])) return { group: '', version: parts[0] };
  if (parts.length === 2 && isDnsSubdomain(parts[0]) && isDnsLabel(parts[1])) return { group: parts[0], version: parts[1] };
  return undefined;
}

/** One field of an object that cannot name a request path, and why. */
export interface ReferenceProblem {
  readonly field: 'apiVersion' | 'kind' | 'metadata.namespace' | 'metadata.name';
  /** The value given and what Kubernetes allows. */
  readonly message: string;
}

/**
 * Every field of `obj` that would go into a request path and breaks Kubernetes' grammar:
 * apiVersion (`<version>` or `<group>/<version>`), kind, metadata.namespace and metadata.name.
 * An object with none is safe to send.
 */
export function referenceProblems(obj: unknown): ReferenceProblem[] {
  const o = (typeof obj === 'object' && obj !== null ? obj : {}) as Record<string, unknown>;
  const problems: ReferenceProblem[] = [];
  const gv = splitApiVersion(o.apiVersion);
  if (!gv) {
    problems.push({
      field: 'apiVersion',
      message: `${shown(o.apiVersion)} is not an API version: <version> or <group>/<version>, the group a DNS subdomain (apps, nvidia.com) and the version a DNS label (v1, v1beta1)`,
    });
  }
  const kind = o.kind;
  if (typeof kind !== 'string' || kind.length > 63 || !KIND.test(kind)) {
    problems.push({ field: 'kind', message: `${shown(kind)} is not a kind: a letter followed by letters and digits (ConfigMap, DynamoGraphDeployment), at most 63 characters` });
  }
  const metadata = (typeof o.metadata === 'object' && o.metadata !== null ? o.metadata : {}) as Record<string, unknown>;
  const namespace = metadata.namespace;
  if (namespace !== undefined && namespace !== null && namespace !== '' && (typeof namespace !== 'string' || !isDnsLabel(namespace))) {
    problems.push({ field: 'metadata.namespace', message: `${shown(namespace)} is not a namespace: ${DNS_LABEL_RULE}` });
  }
  const name = metadata.name;
  if (name === undefined || name === null || name === '') {
    problems.push({ field: 'metadata.name', message: 'is missing: a server-side apply names the object' });
  } else if (gv?.group === RBAC_GROUP) {
    if (typeof name !== 'string' || name.length > 253 || !RBAC_NAME.test(name)) {
      problems.push({
        field: 'metadata.name',
        message: `${shown(name)} is not an RBAC object name: letters, digits, "-", ".", ":" and "@", starting and ending with a letter or digit, at most 253 characters`,
      });
    }
  } else if (typeof name !== 'string' || !isDnsSubdomain(name)) {
    problems.push({ field: 'metadata.name', message: `${shown(name)} is not a name: ${DNS_SUBDOMAIN_RULE}` });
  }
  return problems;
}

/** `/seg/seg/...`, each segment percent-encoded, so that no value can add a segment, a query or a fragment. */
function segments(...parts: readonly string[]): string {
  return parts.map((p) => `/${encodeURIComponent(p)}`).join('');
}

// ---------------------------------------------------------------------------
// Kubeconfig

/** Where and how to reach an API server. */
export interface KubeConnection {
  /** `https://host[:port][/path]`: never a user name, password, query or fragment. */
  readonly server: string;
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly token?: string;
  readonly insecure?: boolean;
  /** The context's namespace, for namespaced objects that name none. */
  readonly namespace: string;
}

/** A kubeconfig that cannot be used, and why. Its message holds no password or token. */
export class KubeconfigError extends Error {}

type Obj = Record<string, any>;

/** Kubeconfigs, certificates, keys and token files are small; a device or a huge file is not one. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** A regular file's bytes, read as lint reads files; anything else (missing, a device, a FIFO, too large) is a KubeconfigError. */
function readRegularFile(p: string, what: string): Buffer {
  let real: string;
  try {
    real = fs.realpathSync(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new KubeconfigError(code === 'ENOENT' ? `${what} ${p} does not exist` : `${what} ${p} cannot be read (${code ?? (e as Error).message})`);
  }
  try {
    return readBoundedFile(real, MAX_FILE_BYTES);
  } catch (e) {
    if (e instanceof FileNotRead) throw new KubeconfigError(`${what} ${p} ${e.message}`);
    throw e;
  }
}

/**
 * Text that does not parse as a URL, as a message may show it: everything between `//` and
 * the last `@` (a password may hold `/` or `@`), and any query or fragment, dropped.
 */
function redactedUrl(text: string): string {
  return text.replace(/\/\/[\s\S]*@/, '//').replace(/[?#][\s\S]*$/, '');
}

/**
 * The API server URL a client connects to: `https://host[:port][/path]`. A user name or
 * password in it is dropped (Kubernetes has accepted no basic authentication since 1.19, and
 * every message that names the server prints this URL); a query or fragment, which would
 * corrupt every request path, is refused without being shown.
 */
export function apiServerUrl(server: unknown, where: string): string {
  if (typeof server !== 'string' || server === '') throw new KubeconfigError(`${where} has no server`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new KubeconfigError(`${where}: server ${shown(redactedUrl(server))} is not a URL; give the API server's URL, such as https://10.0.0.1:6443`);
  }
  const bare = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  if (url.protocol !== 'https:') throw new KubeconfigError(`${where}: server ${shown(bare)} is not an https:// URL; lint --server connects over HTTPS only`);
  if (url.search !== '' || url.hash !== '') {
    throw new KubeconfigError(`${where}: server ${shown(bare)} carries a query or fragment (not shown); give the API server's URL alone, such as https://10.0.0.1:6443`);
  }
  return bare;
}

/** One cluster, user or context entry, with the file it came from (relative paths resolve against it). */
interface Entry {
  readonly value: Obj;
  readonly origin: string;
}

interface Kubeconfig {
  readonly files: readonly string[];
  readonly currentContext?: string;
  readonly clusters: Map<string, Entry>;
  readonly users: Map<string, Entry>;
  readonly contexts: Map<string, Entry>;
}

const isMap = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Adds a file's named entries (`clusters`, `users`, `contexts`) to `into`; the first file to name one wins. */
function addEntries(into: Map<string, Entry>, config: Obj, list: string, field: string, file: string): void {
  const items: unknown = config[list];
  if (items === undefined || items === null) return;
  if (!Array.isArray(items)) throw new KubeconfigError(`${file}: ${list} must be a list, got ${shown(items)}`);
  items.forEach((item: unknown, i) => {
    if (!isMap(item) || typeof item.name !== 'string' || item.name === '') throw new KubeconfigError(`${file}: ${list}[${i}] has no name`);
    const value: unknown = item[field] ?? {};
    if (!isMap(value)) throw new KubeconfigError(`${file}: ${list}[${i}] (${shown(item.name)}): ${field} must be a map`);
    if (!into.has(item.name)) into.set(item.name, { value, origin: file });
  });
}

/**
 * The kubeconfig files as kubectl merges them: for clusters, users and contexts, the first
 * file to name an entry wins it whole; `current-context` comes from the first file that sets
 * one; missing files are skipped (all missing is an error).
 */
function mergeKubeconfigs(files: readonly string[]): Kubeconfig {
  const merged = { files, currentContext: undefined as string | undefined, clusters: new Map<string, Entry>(), users: new Map<string, Entry>(), contexts: new Map<string, Entry>() };
  const missing: string[] = [];
  for (const file of files) {
    if (!fs.existsSync(file)) {
      missing.push(file);
      continue;
    }
    let config: unknown;
    const text = readRegularFile(file, 'kubeconfig').toString('utf8');
    try {
      config = YAML.parse(text);
    } catch (e) {
      throw new KubeconfigError(`${file}: not a kubeconfig: ${String((e as Error).message).split('\n')[0]}`);
    }
    if (config === null || config === undefined) continue;
    if (!isMap(config)) throw new KubeconfigError(`${file}: not a kubeconfig: a map with clusters, users and contexts is needed`);
    addEntries(merged.clusters, config, 'clusters', 'cluster', file);
    addEntries(merged.users, config, 'users', 'user', file);
    addEntries(merged.contexts, config, 'contexts', 'context', file);
    const current: unknown = config['current-context'];
    if (merged.currentContext === undefined && typeof current === 'string' && current !== '') merged.currentContext = current;
  }
  if (missing.length === files.length) {
    throw new KubeconfigError(`no kubeconfig at ${missing.join(', ')}; set KUBECONFIG or pass --kubeconfig`);
  }
  return merged;
}

/** The kubeconfig files to read: `$KUBECONFIG` (a list, empty entries and repeats dropped), else `~/.kube/config`. */
function kubeconfigFiles(): string[] {
  const list = (process.env.KUBECONFIG ?? '').split(path.delimiter).filter((p) => p !== '');
  return list.length > 0 ? [...new Set(list)] : [path.join(os.homedir(), '.kube', 'config')];
}

/** A file a kubeconfig entry names, relative to the kubeconfig that holds the entry. */
function fileOf(entry: Entry, file: string, what: string): Buffer {
  return readRegularFile(path.isAbsolute(file) ? file : path.join(path.dirname(entry.origin), file), what);
}

function bytesOf(entry: Entry, dataKey: string, fileKey: string): Buffer | undefined {
  const data: unknown = entry.value[dataKey];
  if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64');
  const file: unknown = entry.value[fileKey];
  if (typeof file === 'string' && file !== '') return fileOf(entry, file, fileKey);
  return undefined;
}

/** A bearer token is visible ASCII; anything else could split the Authorization header. */
const TOKEN = /^[\x21-\x7e]+$/;

/**
 * The connection of a kubeconfig's current context (or `context`): `file` alone when given,
 * else the files of `$KUBECONFIG` merged as kubectl merges them, else `~/.kube/config`.
 */
export function loadKubeconfig(file?: string, context?: string): KubeConnection {
  const config = mergeKubeconfigs(file !== undefined ? [file] : kubeconfigFiles());
  const where = config.files.join(', ');
  const contextNames = () => `(contexts: ${[...config.contexts.keys()].map((n) => shown(n)).join(', ') || 'none'})`;
  const name = context ?? config.currentContext;
  if (name === undefined) throw new KubeconfigError(`${where}: no current-context; pass --context ${contextNames()}`);
  const ctx = config.contexts.get(name);
  if (!ctx) throw new KubeconfigError(`${where}: no context ${shown(name)} ${contextNames()}`);
  const cluster = typeof ctx.value.cluster === 'string' ? config.clusters.get(ctx.value.cluster) : undefined;
  if (!cluster?.value.server) throw new KubeconfigError(`${ctx.origin}: context ${shown(name)} names no cluster with a server`);
  const userName: unknown = ctx.value.user;
  const user: Entry = (typeof userName === 'string' ? config.users.get(userName) : undefined) ?? { value: {}, origin: ctx.origin };
  if (user.value.exec || user.value['auth-provider']) {
    throw new KubeconfigError(
      `${user.origin}: user ${shown(userName)} authenticates with an exec plugin or auth provider, which lint --server does not run; use a context with a client certificate or a token`,
    );
  }
  const server = apiServerUrl(cluster.value.server, `${cluster.origin}: cluster ${shown(ctx.value.cluster)}`);
  const namespace: unknown = ctx.value.namespace;
  if (namespace !== undefined && namespace !== '' && (typeof namespace !== 'string' || !isDnsLabel(namespace))) {
    throw new KubeconfigError(`${ctx.origin}: context ${shown(name)}: namespace ${shown(namespace)} is not ${DNS_LABEL_RULE}`);
  }
  const tokenFile: unknown = user.value.tokenFile;
  const token = typeof user.value.token === 'string' && user.value.token !== '' ? user.value.token : typeof tokenFile === 'string' && tokenFile !== '' ? fileOf(user, tokenFile, 'tokenFile').toString('utf8').trim() : undefined;
  if (token !== undefined && !TOKEN.test(token)) throw new KubeconfigError(`${user.origin}: user ${shown(userName)}: the token holds characters a bearer token cannot (not shown)`);
  return {
    server,
    ca: bytesOf(cluster, 'certificate-authority-data', 'certificate-authority'),
    cert: bytesOf(user, 'client-certificate-data', 'client-certificate'),
    key: bytesOf(user, 'client-key-data', 'client-key'),
    token,
    insecure: cluster.value['insecure-skip-tls-verify'] === true,
    namespace: typeof namespace === 'string' && namespace !== '' ? namespace : 'default',
  };
}

// ---------------------------------------------------------------------------
// Client

/** What the API server said to one request. */
export interface KubeResponse {
  readonly status: number;
  readonly body: any;
}

/** A kind's REST resource, as discovery of its group version gives it. */
export interface KubeResource {
  /** `/api/<version>` or `/apis/<group>/<version>`, encoded. */
  readonly groupVersionPath: string;
  /** The resource's plural name (checked: a DNS label). */
  readonly plural: string;
  readonly namespaced: boolean;
}

export interface ApplyOptions {
  /** `All`: validate and admit, store nothing. */
  readonly dryRun?: boolean;
  /** @default 'dynamo-constructs' */
  readonly fieldManager?: string;
  /** Take ownership of fields another manager set. @default true */
  readonly force?: boolean;
}

/**
 * What a client may send. `dry-run`: discovery GETs (`/api/<version>`, `/apis/<group>/<version>`)
 * and POST, PUT or PATCH requests carrying `dryRun=All`, nothing else. `read-write`: any request.
 */
export type KubeAccess = 'dry-run' | 'read-write';

export interface KubeClientOptions {
  /**
   * What the client may send; a request outside it throws `KubeRequestRefused` before anything
   * is sent. The cluster suite's real applies, gets, lists and deletes need `read-write`.
   * @default 'dry-run'
   */
  readonly access?: KubeAccess;
  /**
   * Connect through this Unix socket instead of the server's host and port (the rehearsal's
   * private API server, forwarded out of its network); TLS and the URL stay the server's.
   */
  readonly socketPath?: string;
}

/** A request the client does not send, and why. */
export class KubeRequestRefused extends Error {}

/** Discovery of a group version: each kind's resource, or why the server's answer for it is not used. */
type Discovered = Map<string, KubeResource | { readonly refused: string }>;

const DISCOVERY_PATH = /^\/api\/[a-z0-9-]+$|^\/apis\/[a-z0-9.-]+\/[a-z0-9-]+$/;
const MUTATING = new Set(['POST', 'PUT', 'PATCH']);
/** Discovery documents and apply answers are far smaller; a server that sends more is not answering. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Why one path segment (percent-decoded) could change which resource a URL names, or undefined. */
function segmentProblem(segment: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return 'a malformed percent-encoding';
  }
  if (decoded === '' || decoded === '.' || decoded === '..') return 'an empty or dot segment';
  if (/[/\\%?#\s\x00-\x1f\x7f]/.test(decoded)) return 'a "/", "\\", "%", "?", "#", space or control character';
  return undefined;
}

export class KubeClient {
  public readonly connection: KubeConnection;
  public readonly access: KubeAccess;
  private readonly agent: https.Agent;
  private readonly socketPath?: string;
  private readonly basePath: string;
  private readonly discovered = new Map<string, Promise<Discovered>>();

  constructor(connection: KubeConnection, options: KubeClientOptions = {}) {
    // a connection made by hand gets the same checks as one read from a kubeconfig
    const server = apiServerUrl(connection.server, 'the connection');
    if (!isDnsLabel(connection.namespace)) throw new KubeconfigError(`the connection's namespace ${shown(connection.namespace)} is not ${DNS_LABEL_RULE}`);
    this.connection = { ...connection, server };
    this.basePath = new URL(server).pathname.replace(/\/+$/, '');
    this.access = options.access ?? 'dry-run';
    this.socketPath = options.socketPath;
    this.agent = new https.Agent({
      ca: connection.ca,
      cert: connection.cert,
      key: connection.key,
      rejectUnauthorized: !connection.insecure,
      keepAlive: true,
      maxSockets: 8,
    });
  }

  /** The URL of `urlPath` on the server, when parsing it changes nothing (no dot segment, fragment or stray character). */
  private urlOf(method: string, urlPath: string): URL {
    const refuse = (why: string) => new KubeRequestRefused(`${method} ${shown(urlPath)}: ${why}; not sent`);
    if (!urlPath.startsWith('/')) throw refuse('the path does not start with "/"');
    const q = urlPath.indexOf('?');
    const pathOnly = q < 0 ? urlPath : urlPath.slice(0, q);
    for (const s of pathOnly.slice(1).split('/')) {
      const why = segmentProblem(s);
      if (why) throw refuse(`a path segment holds ${why}`);
    }
    const url = new URL(this.connection.server + urlPath);
    if (url.pathname + url.search !== this.basePath + urlPath || url.hash !== '') throw refuse('the URL would not be sent as written');
    return url;
  }

  /** Throws unless this client's access allows the request. */
  private mayAccess(method: string, urlPath: string, url: URL): void {
    if (this.access === 'read-write') return;
    if (method === 'GET' && url.search === '' && DISCOVERY_PATH.test(urlPath)) return;
    const dryRun = url.searchParams.getAll('dryRun');
    if (MUTATING.has(method) && dryRun.length === 1 && dryRun[0] === 'All') return;
    throw new KubeRequestRefused(`${method} ${shown(urlPath)}: a dry-run client sends discovery GETs and POST, PUT or PATCH requests with dryRun=All only; not sent`);
  }

  /** One HTTP request; JSON bodies are parsed. Rejects with `KubeRequestRefused`, before sending, what the client does not send. */
  public request(method: string, urlPath: string, body?: string, contentType = 'application/json'): Promise<KubeResponse> {
    let url: URL;
    try {
      url = this.urlOf(method, urlPath);
      this.mayAccess(method, urlPath, url);
    } catch (e) {
      return Promise.reject(e);
    }
    const headers: Record<string, string | number> = { Accept: 'application/json' };
    if (this.connection.token) headers.Authorization = `Bearer ${this.connection.token}`;
    if (body !== undefined) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    return new Promise((resolve, reject) => {
      const req = https.request(url, { method, headers, agent: this.agent, timeout: 60_000, ...(this.socketPath ? { socketPath: this.socketPath } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) req.destroy(new Error(`${method} ${urlPath}: the answer is larger than ${MAX_RESPONSE_BYTES} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            // not JSON: kept as text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: no answer in 60 s`)));
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  /** Forgets what discovery found (after CRDs change). */
  public rediscover(): void {
    this.discovered.clear();
  }

  /** The kinds of a checked group version, by one discovery GET (cached). */
  private discover(group: string, version: string): Promise<Discovered> {
    const key = `${group}/${version}`;
    let found = this.discovered.get(key);
    if (!found) {
      const groupVersionPath = group === '' ? segments('api', version) : segments('apis', group, version);
      found = this.request('GET', groupVersionPath).then((r) => {
        const kinds: Discovered = new Map();
        const listed: unknown = r.status === 200 && isMap(r.body) ? r.body.resources : undefined;
        for (const res of Array.isArray(listed) ? listed : []) {
          if (!isMap(res) || typeof res.name !== 'string' || typeof res.kind !== 'string' || !KIND.test(res.kind)) continue;
          // subresources (`dynamographdeployments/status`) are not kinds of their own
          if (/^[a-z0-9-]+\/[a-z0-9-]+$/.test(res.name)) continue;
          const known = kinds.get(res.kind);
          if (known && !('refused' in known)) continue;
          kinds.set(
            res.kind,
            isDnsLabel(res.name)
              ? { groupVersionPath, plural: res.name, namespaced: res.namespaced === true }
              : { refused: `the server's discovery names its resource ${shown(res.name)}, which is not ${DNS_LABEL_RULE}` },
          );
        }
        return kinds;
      });
      this.discovered.set(key, found);
    }
    return found;
  }

  /** The REST resource of a kind, by discovery of its group version; undefined when not served (or not a valid apiVersion and kind). */
  public async resourceOf(apiVersion: string, kind: string): Promise<KubeResource | undefined> {
    const r = await this.resolve(apiVersion, kind);
    return typeof r === 'string' ? undefined : r;
  }

  /** The resource of a kind, or why there is none to send to. */
  private async resolve(apiVersion: unknown, kind: unknown): Promise<KubeResource | string> {
    const gv = splitApiVersion(apiVersion);
    if (!gv || typeof kind !== 'string' || !KIND.test(kind)) return `${shown(apiVersion)} ${shown(kind)} is not an apiVersion and kind`;
    const res = (await this.discover(gv.group, gv.version)).get(kind);
    if (!res) return `the server does not serve ${kind} in ${apiVersion} (is its CRD installed?)`;
    return 'refused' in res ? res.refused : res;
  }

  private collectionPath(res: KubeResource, namespace: string | undefined): string {
    return res.groupVersionPath + (res.namespaced && namespace !== undefined ? segments('namespaces', namespace) : '') + segments(res.plural);
  }

  /**
   * The object's URL: `.../<plural>/<name>`, in its namespace (or the context's) when namespaced.
   * The name and namespace only have to be safe as path segments: a name the server refuses
   * (`Broken_Graph`) is sent, for the server's verdict; lint checks the full grammar first.
   */
  public async objectPath(obj: Obj): Promise<string | { error: string }> {
    const name: unknown = obj?.metadata?.name;
    if (typeof name !== 'string' || name === '') return { error: 'has no metadata.name' };
    const given: unknown = obj.metadata.namespace;
    if (given !== undefined && given !== null && typeof given !== 'string') return { error: `metadata.namespace ${shown(given)} is not a string` };
    const namespace = typeof given === 'string' && given !== '' ? given : this.connection.namespace;
    for (const [field, value] of [['metadata.name', name], ['metadata.namespace', namespace]]) {
      const why = segmentProblem(encodeURIComponent(value));
      if (why) return { error: `${field} ${shown(value)} holds ${why}, which cannot be sent in a request path` };
    }
    const res = await this.resolve(obj.apiVersion, obj.kind);
    if (typeof res === 'string') return { error: res };
    return this.collectionPath(res, namespace) + segments(name);
  }

  private refuseUnlessReadWrite(what: string): void {
    if (this.access !== 'read-write') throw new KubeRequestRefused(`${what}: a dry-run client sends discovery GETs and dry-run requests only; not sent`);
  }

  /** Server-side apply with strict field validation; dry-run unless told otherwise. */
  public async apply(obj: Obj, o: ApplyOptions = {}): Promise<KubeResponse> {
    const dryRun = o.dryRun !== false;
    if (!dryRun) this.refuseUnlessReadWrite('apply without dryRun');
    const at = await this.objectPath(obj);
    if (typeof at !== 'string') return { status: 0, body: { message: at.error } };
    const query = new URLSearchParams({ fieldManager: o.fieldManager ?? 'dynamo-constructs', fieldValidation: 'Strict', force: String(o.force ?? true) });
    if (dryRun) query.set('dryRun', 'All');
    return this.request('PATCH', `${at}?${query}`, JSON.stringify(obj), 'application/apply-patch+yaml');
  }

  public async get(obj: Obj): Promise<KubeResponse> {
    this.refuseUnlessReadWrite('get');
    const at = await this.objectPath(obj);
    if (typeof at !== 'string') return { status: 0, body: { message: at.error } };
    return this.request('GET', at);
  }

  public async delete(obj: Obj, propagationPolicy = 'Background'): Promise<KubeResponse> {
    this.refuseUnlessReadWrite('delete');
    const at = await this.objectPath(obj);
    if (typeof at !== 'string') return { status: 0, body: { message: at.error } };
    return this.request('DELETE', at, JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy }));
  }

  /** Every object of a kind (in a namespace, or all). */
  public async list(apiVersion: string, kind: string, namespace?: string): Promise<Obj[]> {
    this.refuseUnlessReadWrite('list');
    if (namespace !== undefined && !isDnsLabel(namespace)) throw new KubeRequestRefused(`list: namespace ${shown(namespace)} is not ${DNS_LABEL_RULE}; not sent`);
    const res = await this.resourceOf(apiVersion, kind);
    if (!res) return [];
    const r = await this.request('GET', this.collectionPath(res, namespace));
    // list items carry no kind of their own
    return r.status === 200 && Array.isArray(r.body?.items) ? (r.body.items as Obj[]).map((o) => ({ apiVersion, kind, ...o })) : [];
  }

  public close(): void {
    this.agent.destroy();
  }
}
