import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';

/**
 * A small Kubernetes API client for what `dynamo-constructs lint --server` and the cluster
 * tests need: discovery, server-side apply (dry-run or for real) with strict field
 * validation, get, list and delete. It reads a kubeconfig's current context: a server with
 * its CA (or insecure-skip-tls-verify), and a client certificate or a bearer token.
 */

/** Where and how to reach an API server. */
export interface KubeConnection {
  readonly server: string;
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly token?: string;
  readonly insecure?: boolean;
  /** The context's namespace, for namespaced objects that name none. */
  readonly namespace: string;
}

/** A kubeconfig that cannot be used, and why. */
export class KubeconfigError extends Error {}

type Obj = Record<string, any>;

function readMaybe(base: string, data: unknown, file: unknown, what: string): Buffer | undefined {
  if (typeof data === 'string') return Buffer.from(data, 'base64');
  if (typeof file === 'string') {
    const p = path.isAbsolute(file) ? file : path.join(base, file);
    if (!fs.existsSync(p)) throw new KubeconfigError(`${what} ${p} does not exist`);
    return fs.readFileSync(p);
  }
  return undefined;
}

/**
 * The connection of a kubeconfig's current context (or `context`): `file`, else
 * `$KUBECONFIG` (its first path), else `~/.kube/config`.
 */
export function loadKubeconfig(file?: string, context?: string): KubeConnection {
  const p = file ?? process.env.KUBECONFIG?.split(path.delimiter).find((x) => x !== '') ?? path.join(os.homedir(), '.kube', 'config');
  if (!fs.existsSync(p)) throw new KubeconfigError(`no kubeconfig at ${p}; set KUBECONFIG or pass --kubeconfig`);
  const config = YAML.parse(fs.readFileSync(p, 'utf8')) as Obj;
  const name = context ?? config?.['current-context'];
  const ctx = (config?.contexts ?? []).find((c: Obj) => c?.name === name)?.context;
  if (!ctx) throw new KubeconfigError(`${p}: no context ${JSON.stringify(name)}`);
  const cluster = (config.clusters ?? []).find((c: Obj) => c?.name === ctx.cluster)?.cluster;
  const user = (config.users ?? []).find((u: Obj) => u?.name === ctx.user)?.user ?? {};
  if (!cluster?.server) throw new KubeconfigError(`${p}: context ${name} names no cluster with a server`);
  if (user.exec || user['auth-provider']) {
    throw new KubeconfigError(`${p}: user ${ctx.user} authenticates with an exec plugin or auth provider, which lint --server does not run; use a context with a client certificate or a token`);
  }
  const base = path.dirname(p);
  const tokenFile = typeof user.tokenFile === 'string' ? fs.readFileSync(path.isAbsolute(user.tokenFile) ? user.tokenFile : path.join(base, user.tokenFile), 'utf8').trim() : undefined;
  return {
    server: String(cluster.server).replace(/\/$/, ''),
    ca: readMaybe(base, cluster['certificate-authority-data'], cluster['certificate-authority'], 'certificate-authority'),
    cert: readMaybe(base, user['client-certificate-data'], user['client-certificate'], 'client-certificate'),
    key: readMaybe(base, user['client-key-data'], user['client-key'], 'client-key'),
    token: typeof user.token === 'string' ? user.token : tokenFile,
    insecure: cluster['insecure-skip-tls-verify'] === true,
    namespace: typeof ctx.namespace === 'string' ? ctx.namespace : 'default',
  };
}

/** What the API server said to one request. */
export interface KubeResponse {
  readonly status: number;
  readonly body: any;
}

interface Resource {
  readonly path: string;
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

export class KubeClient {
  private readonly agent: https.Agent;
  private readonly resources = new Map<string, Promise<Map<string, Resource>>>();

  constructor(public readonly connection: KubeConnection) {
    this.agent = new https.Agent({
      ca: connection.ca,
      cert: connection.cert,
      key: connection.key,
      rejectUnauthorized: !connection.insecure,
      keepAlive: true,
      maxSockets: 8,
    });
  }

  /** One HTTP request; JSON bodies are parsed. */
  public request(method: string, urlPath: string, body?: string, contentType = 'application/json'): Promise<KubeResponse> {
    const url = new URL(this.connection.server + urlPath);
    const headers: Record<string, string | number> = { Accept: 'application/json' };
    if (this.connection.token) headers.Authorization = `Bearer ${this.connection.token}`;
    if (body !== undefined) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    return new Promise((resolve, reject) => {
      const req = https.request(url, { method, headers, agent: this.agent, timeout: 60_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
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
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: no answer in 60 s`)));
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  /** Forgets what discovery found (after CRDs change). */
  public rediscover(): void {
    this.resources.clear();
  }

  /** The REST path and scope of a kind, by discovery of its group version; undefined when not served. */
  public async resourceOf(apiVersion: string, kind: string): Promise<Resource | undefined> {
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let kinds = this.resources.get(apiVersion);
    if (!kinds) {
      kinds = this.request('GET', base).then((r) => {
        const map = new Map<string, Resource>();
        for (const res of (r.status === 200 ? r.body?.resources ?? [] : []) as Obj[]) {
          // subresources (`dynamographdeployments/status`) are not kinds of their own
          if (typeof res.name !== 'string' || res.name.includes('/')) continue;
          const namespaced = res.namespaced === true;
          map.set(res.kind, { path: `${base}${namespaced ? '/namespaces/{namespace}' : ''}/${res.name}`, namespaced });
        }
        return map;
      });
      this.resources.set(apiVersion, kinds);
    }
    return (await kinds).get(kind);
  }

  /** The object's URL: `.../<plural>/<name>`, in its namespace (or the context's) when namespaced. */
  public async objectPath(obj: Obj): Promise<string | { error: string }> {
    const { apiVersion, kind } = obj ?? {};
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') return { error: 'has no apiVersion and kind' };
    const res = await this.resourceOf(apiVersion, kind);
    if (!res) return { error: `the server does not serve ${kind} in ${apiVersion} (is its CRD installed?)` };
    const name = obj.metadata?.name;
    if (typeof name !== 'string' || name === '') return { error: 'has no metadata.name' };
    const namespace = typeof obj.metadata?.namespace === 'string' ? obj.metadata.namespace : this.connection.namespace;
    return `${res.path.replace('{namespace}', encodeURIComponent(namespace))}/${encodeURIComponent(name)}`;
  }

  /** Server-side apply with strict field validation; dry-run unless told otherwise. */
  public async apply(obj: Obj, o: ApplyOptions = {}): Promise<KubeResponse> {
    const at = await this.objectPath(obj);
    if (typeof at !== 'string') return { status: 0, body: { message: at.error } };
    const query = new URLSearchParams({ fieldManager: o.fieldManager ?? 'dynamo-constructs', fieldValidation: 'Strict', force: String(o.force ?? true) });
    if (o.dryRun !== false) query.set('dryRun', 'All');
    return this.request('PATCH', `${at}?${query}`, JSON.stringify(obj), 'application/apply-patch+yaml');
  }

  public async get(obj: Obj): Promise<KubeResponse> {
    const at = await this.objectPath(obj);
    if (typeof at !== 'string') return { status: 0, body: { message: at.error } };
    return this.request('GET', at);
  }

  public async delete(obj: Obj, propagationPolicy = 'Background'): Promise<KubeResponse> {
    const at = await this.objectPath(obj);
    if (typeof at !== 'string') return { status: 0, body: { message: at.error } };
    return this.request('DELETE', at, JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy }));
  }

  /** Every object of a kind (in a namespace, or all). */
  public async list(apiVersion: string, kind: string, namespace?: string): Promise<Obj[]> {
    const res = await this.resourceOf(apiVersion, kind);
    if (!res) return [];
    const url = res.namespaced ? (namespace ? res.path.replace('{namespace}', namespace) : res.path.replace('/namespaces/{namespace}', '')) : res.path;
    const r = await this.request('GET', url);
    // list items carry no kind of their own
    return r.status === 200 ? (r.body.items as Obj[]).map((o) => ({ apiVersion, kind, ...o })) : [];
  }

  public close(): void {
    this.agent.destroy();
  }
}
