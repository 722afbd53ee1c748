import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';

/**
 * A recording stand-in for kube-apiserver, over HTTPS on 127.0.0.1 with a throwaway
 * self-signed certificate made by `openssl`: it answers discovery for a few group versions
 * and server-side applies (200, the object back), and records every request it receives,
 * as sent, so that tests can assert what a client did and did not send.
 */

/** One request as the server received it. */
export interface RecordedRequest {
  readonly method: string;
  /** The request target as sent: path and query. */
  readonly url: string;
  readonly authorization?: string;
  readonly body: string;
}

/** One entry of a discovery document (`APIResourceList.resources`). */
export interface FakeResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** The group versions the server serves, by discovery path. */
export const DISCOVERY: Record<string, readonly FakeResource[]> = {
  '/api/v1': [
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
    { name: 'configmaps', kind: 'ConfigMap', namespaced: true },
    { name: 'secrets', kind: 'Secret', namespaced: true },
    { name: 'services', kind: 'Service', namespaced: true },
    { name: 'pods', kind: 'Pod', namespaced: true },
    { name: 'pods/log', kind: 'Pod', namespaced: true },
  ],
  '/apis/apps/v1': [{ name: 'deployments', kind: 'Deployment', namespaced: true }],
  '/apis/rbac.authorization.k8s.io/v1': [
    { name: 'clusterroles', kind: 'ClusterRole', namespaced: false },
    { name: 'roles', kind: 'Role', namespaced: true },
  ],
  '/apis/nvidia.com/v1beta1': [
    { name: 'dynamographdeployments', kind: 'DynamoGraphDeployment', namespaced: true },
    { name: 'dynamographdeployments/status', kind: 'DynamoGraphDeployment', namespaced: true },
  ],
};

export interface FakeApiServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** The server's certificate (PEM), which is its own CA. */
  readonly ca: Buffer;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Discovery documents served, by path; tests may change them. */
  readonly discovery: Record<string, readonly FakeResource[]>;
  /** Answers PATCH requests in place of the default (200, the object back) when set. */
  answerPatch?: (body: string) => { readonly status: number; readonly body: unknown };
  /**
   * Writes a kubeconfig for this server in `dir` and returns its path.
   * `server` replaces the server URL (to add userinfo, say).
   */
  kubeconfig(dir: string, o?: { readonly token?: string | null; readonly server?: string; readonly namespace?: string; readonly name?: string }): string;
  close(): Promise<void>;
}

function selfSignedCertificate(dir: string): { key: Buffer; cert: Buffer } {
  const probe = spawnSync('openssl', ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new Error('the fake API server needs openssl on PATH to make its certificate');
  const r = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    { cwd: dir, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl could not make a certificate: ${r.stderr}`);
  return { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) };
}

export async function startFakeApiServer(): Promise<FakeApiServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-apiserver-'));
  const { key, cert } = selfSignedCertificate(dir);
  const requests: RecordedRequest[] = [];
  const discovery: Record<string, readonly FakeResource[]> = { ...DISCOVERY };
  const fake = {} as { answerPatch?: FakeApiServer['answerPatch'] };
  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
      const send = (status: number, answer: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(answer));
      };
      const target = new URL(req.url ?? '/', 'https://127.0.0.1');
      const served = discovery[target.pathname];
      if (req.method === 'GET' && served) return send(200, { kind: 'APIResourceList', groupVersion: target.pathname.replace(/^\/apis?\//, ''), resources: served });
      if (req.method === 'PATCH') {
        if (fake.answerPatch) {
          const a = fake.answerPatch(body);
          return send(a.status, a.body);
        }
        try {
          return send(200, JSON.parse(body));
        } catch {
          return send(400, { kind: 'Status', status: 'Failure', message: 'the body is not JSON', code: 400 });
        }
      }
      return send(404, { kind: 'Status', status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', code: 404 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(fake, {
    url,
    ca: cert,
    requests,
    discovery,
    kubeconfig: (into: string, o: Parameters<FakeApiServer['kubeconfig']>[1] = {}) => {
      const file = path.join(into, o.name ?? 'kubeconfig');
      fs.writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          `- name: fake\n  cluster:\n    server: ${o.server ?? url}\n    certificate-authority-data: ${cert.toString('base64')}`,
          'users:',
          o.token === null ? '- name: fake\n  user: {}' : `- name: fake\n  user:\n    token: ${o.token ?? 'fake-token'}`,
          'contexts:',
          `- name: fake\n  context:\n    cluster: fake\n    user: fake\n    namespace: ${o.namespace ?? 'default'}`,
          'current-context: fake',
          '',
        ].join('\n'),
      );
      return file;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}
