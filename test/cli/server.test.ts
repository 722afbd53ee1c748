import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { KubeconfigError, loadKubeconfig } from '../../src/cli/server';

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
