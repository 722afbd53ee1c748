import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { KubeClient, KubeconfigError, loadKubeconfig } from '../../src/cli/kube-client';

/** The kubeconfig reading of `lint --server` (the cluster suite runs it against a real API server). */
describe('loadKubeconfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, text);
    return f;
  };
  const config = (user: string, context = 'ctx', extra = '') =>
    write(
      'config',
      `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://10.1.2.3:6443/
    certificate-authority-data: ${Buffer.from('CA').toString('base64')}
users:
- name: u
  user:
${user}
contexts:
- name: ctx
  context: { cluster: c, user: u, namespace: serving }
- name: other
  context: { cluster: c, user: u }
current-context: ${context}
${extra}`,
    );

  test('the current context: server, CA, client certificate files relative to the kubeconfig, and its namespace', () => {
    write('client.crt', 'CERT');
    write('client.key', 'KEY');
    const c = loadKubeconfig(config('    client-certificate: client.crt\n    client-key: client.key'));
    expect(c).toEqual({ server: 'https://10.1.2.3:6443', ca: Buffer.from('CA'), cert: Buffer.from('CERT'), key: Buffer.from('KEY'), token: undefined, insecure: false, namespace: 'serving' });
  });

  test('a token, and another context named explicitly (whose namespace defaults)', () => {
    const c = loadKubeconfig(config('    token: abc'), 'other');
    expect([c.token, c.namespace]).toEqual(['abc', 'default']);
  });

  test('exec plugins, unknown contexts and missing files are clear errors', () => {
    expect(() => loadKubeconfig(config('    exec: { command: aws }'))).toThrow(/authenticates with an exec plugin or auth provider, which lint --server does not run/);
    expect(() => loadKubeconfig(config('    token: abc'), 'nope')).toThrow(KubeconfigError);
    expect(() => loadKubeconfig(config('    client-certificate: missing.crt'))).toThrow(/client-certificate .*missing\.crt does not exist/);
    expect(() => loadKubeconfig(path.join(dir, 'none'))).toThrow(/no kubeconfig at/);
  });
});

describe('KUBECONFIG lists, merged as kubectl merges them', () => {
  let dir: string;
  const saved = process.env.KUBECONFIG;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfigs-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
  });
  /** Writes `files` (path relative to the test directory -> text) and returns the absolute paths. */
  const write = (files: Record<string, string>) =>
    Object.entries(files).map(([name, text]) => {
      const f = path.join(dir, name);
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, text);
      return f;
    });

  test('the first file to name a cluster, user or context wins it whole; relative paths resolve against the file that names them', () => {
    const [a, b] = write({
      'a/config': `contexts:
- name: ctx
  context: { cluster: remote, user: u, namespace: serving }
users:
- name: u
  user: { client-certificate: client.crt, client-key: client.key }
`,
      'b/config': `current-context: ctx
contexts:
- name: ctx
  context: { cluster: other, user: v }
clusters:
- name: remote
  cluster: { server: "https://10.0.0.2:6443", certificate-authority: ca.crt }
users:
- name: u
  user: { token: from-b }
`,
      'a/client.crt': 'CERT-A',
      'a/client.key': 'KEY-A',
      'b/ca.crt': 'CA-B',
    });
    // a missing file, an empty entry and a repeat are skipped, as kubectl skips them
    process.env.KUBECONFIG = [a, path.join(dir, 'missing'), '', b, a].join(path.delimiter);
    expect(loadKubeconfig()).toEqual({ server: 'https://10.0.0.2:6443', ca: Buffer.from('CA-B'), cert: Buffer.from('CERT-A'), key: Buffer.from('KEY-A'), token: undefined, insecure: false, namespace: 'serving' });
  });

  test('current-context comes from the first file that sets one', () => {
    const clusters = 'clusters:\n- name: c\n  cluster: { server: "https://10.0.0.1:6443" }\n- name: d\n  cluster: { server: "https://10.0.0.9:6443" }\n';
    const [a, b] = write({
      'a.yaml': 'current-context: one\n',
      'b.yaml': `current-context: two\n${clusters}contexts:\n- name: one\n  context: { cluster: c }\n- name: two\n  context: { cluster: d }\n`,
    });
    process.env.KUBECONFIG = [a, b].join(path.delimiter);
    expect(loadKubeconfig().server).toBe('https://10.0.0.1:6443');
    process.env.KUBECONFIG = [b, a].join(path.delimiter);
    expect(loadKubeconfig().server).toBe('https://10.0.0.9:6443');
  });

  test('--kubeconfig reads its file alone; a list of only missing files, and an unknown context, name what there is', () => {
    const [a, b] = write({
      'a.yaml': 'current-context: one\ncontexts:\n- name: one\n  context: { cluster: c }\n',
      'b.yaml': 'clusters:\n- name: c\n  cluster: { server: "https://10.0.0.1:6443" }\n',
    });
    process.env.KUBECONFIG = [a, b].join(path.delimiter);
    expect(() => loadKubeconfig(a)).toThrow(/context "one" names no cluster with a server/);
    expect(() => loadKubeconfig(undefined, 'three')).toThrow(`${a}, ${b}: no context "three" (contexts: "one")`);
    process.env.KUBECONFIG = [path.join(dir, 'x'), path.join(dir, 'y')].join(path.delimiter);
    expect(() => loadKubeconfig()).toThrow(`no kubeconfig at ${path.join(dir, 'x')}, ${path.join(dir, 'y')}; set KUBECONFIG or pass --kubeconfig`);
  });
});

describe('credentials in a kubeconfig are never echoed', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = (server: string, user = '{ token: abc }', namespace = 'default') => {
    const f = path.join(dir, 'config');
    fs.writeFileSync(
      f,
      `clusters:\n- name: c\n  cluster: { server: ${JSON.stringify(server)} }\nusers:\n- name: u\n  user: ${user}\ncontexts:\n- name: ctx\n  context: { cluster: c, user: u, namespace: ${JSON.stringify(namespace)} }\ncurrent-context: ctx\n`,
    );
    return f;
  };
  /** The KubeconfigError message loading `file` gives. */
  const errorOf = (file: string) => {
    try {
      loadKubeconfig(file);
    } catch (e) {
      expect(e).toBeInstanceOf(KubeconfigError);
      return (e as Error).message;
    }
    throw new Error(`${file} loaded`);
  };

  test('a user name and password in the server URL are dropped from the connection (and so from every message)', () => {
    expect(loadKubeconfig(kubeconfig('https://admin:s3cret@10.1.2.3:6443/prefix/')).server).toBe('https://10.1.2.3:6443/prefix');
    // a connection made by hand is cleaned the same way
    const client = new KubeClient({ server: 'https://admin:s3cret@10.1.2.3:6443', namespace: 'default' });
    expect(client.connection.server).toBe('https://10.1.2.3:6443');
    client.close();
  });

  test.each([
    ['a query', 'https://10.1.2.3:6443/?access_token=s3cret', /server "https:\/\/10\.1\.2\.3:6443" carries a query or fragment \(not shown\)/],
    ['a fragment', 'https://10.1.2.3:6443/#s3cret', /carries a query or fragment/],
    ['plain http', 'http://admin:s3cret@10.1.2.3:8080', /server "http:\/\/10\.1\.2\.3:8080" is not an https:\/\/ URL/],
    ['no URL', 'https://admin:s3cret@[10.1.2.3', /server "https:\/\/\[10\.1\.2\.3" is not a URL/],
    ['no URL, a slash and an @ in the password', 'https://admin:s3c/r@et@10.1.2.3:x', /server "https:\/\/10\.1\.2\.3:x" is not a URL/],
  ])('a server URL with %s is refused without the secret', (_, server, message) => {
    const m = errorOf(kubeconfig(server));
    expect(m).toMatch(message);
    expect(m).not.toContain('s3c');
  });

  test('a token that could split the Authorization header is refused without being shown', () => {
    const m = errorOf(kubeconfig('https://10.1.2.3:6443', '{ token: "s3cret\\r\\nX-Injected: 1" }'));
    expect(m).toMatch(/user "u": the token holds characters a bearer token cannot \(not shown\)/);
    expect(m).not.toContain('s3c');
  });

  test('a context namespace that is not a DNS label is refused', () => {
    expect(errorOf(kubeconfig('https://10.1.2.3:6443', undefined, '../kube-system'))).toMatch(/context "ctx": namespace "\.\.\/kube-system" is not a DNS label/);
  });

  test('files a kubeconfig names must be regular files: a device, a directory or a malformed kubeconfig is a clear error', () => {
    expect(errorOf(kubeconfig('https://10.1.2.3:6443', '{ client-certificate: /dev/zero, client-key: /dev/zero }'))).toBe('client-certificate /dev/zero is a character device, not a regular file');
    expect(errorOf(kubeconfig('https://10.1.2.3:6443', `{ tokenFile: ${JSON.stringify(dir)} }`))).toBe(`tokenFile ${dir} is a directory, not a regular file`);
    const f = path.join(dir, 'odd');
    fs.writeFileSync(f, '- a list\n');
    expect(errorOf(f)).toMatch(/not a kubeconfig: a map with clusters, users and contexts is needed/);
    fs.writeFileSync(f, 'contexts: ctx\n');
    expect(errorOf(f)).toMatch(/contexts must be a list, got "ctx"/);
    // each line repeats the one before ten times: 10^13 nodes if expanded
    const keys = 'abcdefghijklm';
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...keys.slice(1).split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${keys[i]}`).join(', ')}]`)];
    fs.writeFileSync(f, `${bomb.join('\n')}\n`);
    expect(errorOf(f)).toMatch(/not a kubeconfig: /);
  });
});
