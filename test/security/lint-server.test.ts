import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { LintFinding } from '../../src/cli/lint/lint';
import { serverFindings } from '../../src/cli/lint/server';
import { run } from '../../src/cli/main';
import { KubeClient, KubeRequestRefused, loadKubeconfig } from '../../src/cli/kube-client';
import { DISCOVERY, FakeApiServer, startFakeApiServer } from '../support/fake-apiserver';
import { SMALL_CRD } from '../support/crd';

/**
 * `lint --server` against a recording API server: a manifest cannot choose what is requested
 * (no request at all for a document whose apiVersion, kind, namespace or name would bend the
 * request path), every request that could change the cluster carries dryRun=All, discovery is
 * the only thing read, and the kubeconfig's secrets are never printed or sent as anything but
 * the token.
 */

let api: FakeApiServer;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  api = await startFakeApiServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-server-'));
  kubeconfig = api.kubeconfig(dir);
});
afterAll(async () => {
  await api.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  api.requests.length = 0;
  api.answerPatch = undefined;
  Object.assign(api.discovery, DISCOVERY);
});

/** `serverFindings` with a client made as `lint --server` makes it (a fresh discovery cache each time). */
async function lintServer(yaml: string): Promise<LintFinding[]> {
  const client = new KubeClient(loadKubeconfig(kubeconfig));
  try {
    return (await serverFindings([{ file: 'm.yaml', text: yaml }], client)).findings;
  } finally {
    client.close();
  }
}

const DISCOVERY_PATH = /^\/api\/[a-z0-9]+$|^\/apis\/[a-z0-9.-]+\/[a-z0-9]+$/;
const dryRunOf = (url: string) => new URL(url, 'https://x').searchParams.getAll('dryRun');

const CLI_TIMEOUT = 30_000;

/** `dynamo-constructs lint --server` in-process, the manifest on standard input. */
async function cli(args: readonly string[], stdin: string): Promise<{ status: number; out: string }> {
  let out = '';
  const crd = path.join(dir, 'crd.yaml');
  fs.writeFileSync(crd, SMALL_CRD);
  const status = await run(['lint', '--crds', crd, '--server', ...args, '-'], { stdout: (t) => (out += t), stderr: (t) => (out += t), stdin: () => stdin });
  return { status, out };
}

describe('a document that would bend the request path is a finding, and nothing is sent', () => {
  const doc = (o: { apiVersion?: string; kind?: string; namespace?: string; name?: string }) =>
    JSON.stringify({ apiVersion: o.apiVersion ?? 'v1', kind: o.kind ?? 'ConfigMap', metadata: { name: o.name ?? 'x', namespace: o.namespace ?? 'default' }, data: { a: 'b' } });

  // each of these reached the API server before (the first read kube-system's secrets, the second sent a PATCH without dryRun)
  const cases: [string, string, Parameters<typeof doc>[0]][] = [
    ['an apiVersion that walks up to kube-system secrets', 'apiVersion', { apiVersion: '../api/v1/namespaces/kube-system/secrets', kind: 'Secret' }],
    ['an apiVersion ending in a fragment', 'apiVersion', { apiVersion: 'v1#' }],
    ['an apiVersion carrying a query', 'apiVersion', { apiVersion: 'v1?dryRun=None' }],
    ['an apiVersion with an encoded slash', 'apiVersion', { apiVersion: 'apps%2Fv1', kind: 'Deployment' }],
    ['an apiVersion with encoded dots', 'apiVersion', { apiVersion: '%2e%2e/api/v1' }],
    ['a kind with a slash', 'kind', { kind: 'ConfigMap/../../secrets' }],
    ['a name with slashes', 'metadata.name', { name: '../../secrets/x' }],
    ['a name of two dots', 'metadata.name', { name: '..' }],
    ['a name of encoded dots', 'metadata.name', { name: '%2e%2e' }],
    ['a name with an encoded slash', 'metadata.name', { name: 'a%2Fb' }],
    ['a name carrying a query', 'metadata.name', { name: 'x?dryRun=None' }],
    ['a name ending in a fragment', 'metadata.name', { name: 'x#' }],
    ['a name with a newline', 'metadata.name', { name: 'x\ny' }],
    ['a namespace of two dots', 'metadata.namespace', { namespace: '..' }],
    ['a namespace with a slash', 'metadata.namespace', { namespace: 'kube-system/secrets' }],
    ['an RBAC name with a slash', 'metadata.name', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'system:x/../../y' }],
  ];

  test.each(cases)('%s', async (_, field, o) => {
    const findings = await lintServer(doc(o));
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0];
    expect(f.path.endsWith(`.${field}`)).toBe(true);
    expect(f.rule).not.toBe('server-rejected');
    expect(f.message).toContain('not sent to the server');
    // the value given, escaped as JSON
    const given = field === 'apiVersion' ? o.apiVersion! : field === 'kind' ? o.kind! : field === 'metadata.namespace' ? o.namespace! : o.name!;
    expect(f.message).toContain(JSON.stringify(given));
  });

  test('every problem of a document is reported at once, and a valid neighbour is still checked', async () => {
    const bad = JSON.stringify({ apiVersion: 'v1#', kind: 'Config/Map', metadata: { name: '../x', namespace: 'a/b' } });
    const findings = await lintServer(`${bad}\n---\n${doc({ name: 'fine' })}`);
    expect(findings.map((f) => f.path)).toEqual(['document 1.apiVersion', 'document 1.kind', 'document 1.metadata.namespace', 'document 1.metadata.name']);
    expect(api.requests.map((r) => `${r.method} ${new URL(r.url, 'https://x').pathname}`)).toEqual(['GET /api/v1', 'PATCH /api/v1/namespaces/default/configmaps/fine']);
  });

  test('through the command line: exit 1, the finding printed, nothing sent', async () => {
    const r = await cli(['--kubeconfig', kubeconfig], 'apiVersion: ../api/v1/namespaces/kube-system/secrets\nkind: Secret\nmetadata: { name: x }\n');
    expect(api.requests).toEqual([]);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/<stdin>: Secret\/x\.apiVersion: "\.\.\/api\/v1\/namespaces\/kube-system\/secrets" is not an API version.*not sent to the server/);
  }, CLI_TIMEOUT);
});

describe('what lint --server sends for valid documents', () => {
  const manifest = [
    'apiVersion: v1\nkind: Namespace\nmetadata: { name: serving }',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: in-context }\ndata: { a: b }',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: cfg.v2, namespace: serving }\ndata: { a: b }',
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web, namespace: serving }\nspec: {}',
    'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: { name: "system:aggregate-to-view" }\nrules: []',
    'apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: { name: llm, namespace: serving }\nspec: { components: [] }',
  ].join('\n---\n');

  test('discovery GETs of group versions and one dry-run PATCH per document, at the encoded object path', async () => {
    const findings = await lintServer(manifest);
    expect(findings).toEqual([]);
    const gets = api.requests.filter((r) => r.method === 'GET');
    const patches = api.requests.filter((r) => r.method === 'PATCH');
    expect(gets.length + patches.length).toBe(api.requests.length);
    for (const g of gets) expect(g.url).toMatch(DISCOVERY_PATH);
    expect(gets.map((g) => g.url)).toEqual(['/api/v1', '/apis/apps/v1', '/apis/rbac.authorization.k8s.io/v1', '/apis/nvidia.com/v1beta1']);
    for (const p of patches) expect(dryRunOf(p.url)).toEqual(['All']);
    expect(patches.map((p) => new URL(p.url, 'https://x').pathname)).toEqual([
      '/api/v1/namespaces/serving',
      '/api/v1/namespaces/default/configmaps/in-context',
      '/api/v1/namespaces/serving/configmaps/cfg.v2',
      '/apis/apps/v1/namespaces/serving/deployments/web',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Aaggregate-to-view',
      '/apis/nvidia.com/v1beta1/namespaces/serving/dynamographdeployments/llm',
    ]);
    expect(new Set(api.requests.map((r) => r.authorization))).toEqual(new Set(['Bearer fake-token']));
  });

  test('a server URL with a path prefix keeps it in every request', async () => {
    const file = api.kubeconfig(dir, { name: 'prefixed', server: `${api.url}/k8s/clusters/c-1/` });
    const client = new KubeClient(loadKubeconfig(file));
    try {
      await serverFindings([{ file: 'm.yaml', text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n' }], client);
    } finally {
      client.close();
    }
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /k8s/clusters/c-1/api/v1']);
  });

  test('through the command line, every PATCH carries dryRun=All', async () => {
    const r = await cli(['--kubeconfig', kubeconfig, '--format', 'json'], manifest);
    expect(JSON.parse(r.out.slice(0, r.out.lastIndexOf('}') + 1)).findings.filter((f: LintFinding) => f.rule === 'server-rejected')).toEqual([]);
    const patches = api.requests.filter((q) => q.method === 'PATCH');
    expect(patches).toHaveLength(6);
    for (const p of patches) expect(dryRunOf(p.url)).toEqual(['All']);
    expect(api.requests.filter((q) => q.method !== 'PATCH').every((q) => q.method === 'GET' && DISCOVERY_PATH.test(q.url))).toBe(true);
  }, CLI_TIMEOUT);
});

describe('a hostile API server', () => {
  test.each([['../secrets'], ['configmaps%2F..%2Fsecrets'], ['configmaps?dryRun=None'], ['configmaps#']])(
    'a resource name %j from discovery is not used to build a path',
    async (plural) => {
      api.discovery['/api/v1'] = [{ name: plural, kind: 'ConfigMap', namespaced: true }];
      const findings = await lintServer('apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n');
      expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/v1']);
      expect(findings.map((f) => `${f.message} [${f.rule}]`)).toEqual([expect.stringMatching(/^the server's discovery names its resource .* which is not a DNS label.* \[server-rejected\]$/)]);
      expect(findings[0].message).toContain(JSON.stringify(plural));
    },
  );

  test('a refusal whose causes are not a list is a finding with its message, not a crash', async () => {
    api.answerPatch = () => ({ status: 422, body: { kind: 'Status', message: 'refused', details: { causes: 'not a list' } } });
    const findings = await lintServer('apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n');
    expect(findings.map((f) => `${f.path}: ${f.message} [${f.rule}]`)).toEqual(['ConfigMap/x: refused [server-rejected]']);
  });
});

describe('the client lint --server uses sends discovery GETs and dryRun=All requests only', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } };

  test('by default, a real apply, a get, a list and a delete are refused before anything is sent', async () => {
    const client = new KubeClient(loadKubeconfig(kubeconfig));
    try {
      await expect(client.apply(cm, { dryRun: false })).rejects.toThrow(/dry-run client/);
      await expect(client.get(cm)).rejects.toThrow(/dry-run client/);
      await expect(client.list('v1', 'Secret', 'kube-system')).rejects.toThrow(/dry-run client/);
      await expect(client.delete(cm)).rejects.toThrow(/dry-run client/);
      expect(api.requests).toEqual([]);
    } finally {
      client.close();
    }
  });

  test.each([
    ['DELETE', '/api/v1/namespaces/default/configmaps/x?dryRun=All'],
    ['PATCH', '/api/v1/namespaces/default/configmaps/x'],
    ['PATCH', '/api/v1/namespaces/default/configmaps/x?dryRun=All&dryRun=None'],
    ['PUT', '/api/v1/namespaces/default/configmaps/x?dryRun=all'],
    ['POST', '/api/v1/namespaces/default/configmaps?dryrun=All'],
    ['GET', '/api/v1/namespaces/kube-system/secrets'],
    ['GET', '/api/v1?watch=true'],
    ['OPTIONS', '/api/v1'],
  ])('%s %s is refused by a dry-run client', async (method, urlPath) => {
    const client = new KubeClient(loadKubeconfig(kubeconfig));
    try {
      await expect(client.request(method, urlPath, '{}')).rejects.toBeInstanceOf(KubeRequestRefused);
      expect(api.requests).toEqual([]);
    } finally {
      client.close();
    }
  });

  test.each([['/api/v1/namespaces/default/configmaps/..'], ['/api/v1/namespaces/%2e%2e/secrets'], ['/api/v1/namespaces/a%2Fb/configmaps'], ['/api/v1#'], ['/api/v1/./x'], ['@127.0.0.2/api/v1'], ['/api/v1//x']])(
    'a path the URL parser would rewrite (%s) is refused by any client',
    async (urlPath) => {
      const client = new KubeClient(loadKubeconfig(kubeconfig), { access: 'read-write' });
      try {
        await expect(client.request('GET', urlPath)).rejects.toBeInstanceOf(KubeRequestRefused);
        expect(api.requests).toEqual([]);
      } finally {
        client.close();
      }
    },
  );

  test('any client sends a name the server may refuse, for its verdict, but never one that would bend the path', async () => {
    const client = new KubeClient(loadKubeconfig(kubeconfig), { access: 'read-write' });
    const named = (name: string, namespace = 'default') => ({ ...cm, metadata: { name, namespace } });
    try {
      expect((await client.apply(named('Broken_Graph'))).status).toBe(200);
      for (const [name, namespace] of [['..'], ['a/b'], ['%2e%2e'], ['x?y'], ['ok', '..'], ['ok', 'a b']]) {
        const r = await client.apply(named(name, namespace));
        expect([r.status, r.body.message]).toEqual([0, expect.stringMatching(/which cannot be sent in a request path$/)]);
      }
    } finally {
      client.close();
    }
    expect(api.requests.map((r) => `${r.method} ${new URL(r.url, 'https://x').pathname}`)).toEqual(['GET /api/v1', 'PATCH /api/v1/namespaces/default/configmaps/Broken_Graph']);
  });

  test('a read-write client (the cluster suite) still applies for real, gets, lists and deletes', async () => {
    const client = new KubeClient(loadKubeconfig(kubeconfig), { access: 'read-write' });
    try {
      expect((await client.apply(cm, { dryRun: false, fieldManager: 'test' })).status).toBe(200);
      await client.get(cm);
      await client.list('v1', 'ConfigMap', 'default');
      await client.delete(cm);
    } finally {
      client.close();
    }
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/v1',
      'PATCH /api/v1/namespaces/default/configmaps/x?fieldManager=test&fieldValidation=Strict&force=true',
      'GET /api/v1/namespaces/default/configmaps/x',
      'GET /api/v1/namespaces/default/configmaps',
      'DELETE /api/v1/namespaces/default/configmaps/x',
    ]);
  });
});

describe('kubeconfig credentials are never printed or sent as anything but the token', () => {
  /** A loopback port nothing listens on. */
  const closedPort = () =>
    new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as net.AddressInfo;
        s.close(() => resolve(port));
      });
    });

  test('a password in the server URL and the token are not in the message when the server does not answer', async () => {
    const port = await closedPort();
    const file = api.kubeconfig(dir, { name: 'userinfo', server: `https://admin:s3cret-pass@127.0.0.1:${port}`, token: 'tok-3b8f0d2e' });
    const r = await cli(['--kubeconfig', file], 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n');
    expect(r.status).toBe(2);
    expect(r.out).toContain(`the API server at https://127.0.0.1:${port} did not answer`);
    for (const secret of ['s3cret-pass', 'admin', 'tok-3b8f0d2e']) expect(r.out).not.toContain(secret);
  }, CLI_TIMEOUT);

  test('userinfo in the server URL is not sent as basic authentication', async () => {
    const file = api.kubeconfig(dir, { name: 'userinfo-sent', server: api.url.replace('https://', 'https://admin:s3cret-pass@'), token: null });
    const client = new KubeClient(loadKubeconfig(file));
    try {
      await serverFindings([{ file: 'm.yaml', text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n' }], client);
    } finally {
      client.close();
    }
    expect(api.requests.length).toBeGreaterThan(0);
    expect(api.requests.map((r) => r.authorization)).toEqual(api.requests.map(() => undefined));
  });
});
