import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { KubeClient } from '../kube-client';
import { RehearsalError } from './plan';
import { Sandbox } from './sandbox';

/**
 * The API server of an SLA rehearsal: etcd and a kube-apiserver, run by the rehearsal's keeper
 * inside its private network (loopback only), reached from here through a Unix socket the keeper
 * forwards. Nothing of the user's cluster is involved: the kubeconfig it writes names only this
 * server, with a token made for the run.
 */

/** Fixed inside the rehearsal's own network, where nothing else listens. */
export const API_PORT = 6443;
const ETCD_PORT = 2379;
const ETCD_PEER_PORT = 2380;
/** The in-cluster address Kubernetes gives the API server (its Service), as pods see it. */
export const API_SERVER = `https://127.0.0.1:${API_PORT}`;

/** The peer binaries an SLA rehearsal runs, each found in the peers' directory. */
export const PEER_BINARIES = ['etcd', 'kube-apiserver', 'prometheus-operator', 'prometheus'] as const;
export type PeerBinary = (typeof PEER_BINARIES)[number];

/** Paths of the peer binaries, or an error naming every one that is missing and how to build them. */
export function findPeers(dir: string, buildHint: string): Record<PeerBinary, string> {
  const found = {} as Record<PeerBinary, string>;
  const missing: string[] = [];
  for (const name of PEER_BINARIES) {
    const file = path.join(dir, name);
    let ok = false;
    try {
      const st = fs.statSync(file);
      ok = st.isFile() && (st.mode & 0o111) !== 0;
    } catch {
      ok = false;
    }
    if (ok) found[name] = file;
    else missing.push(name);
  }
  if (missing.length > 0) {
    throw new RehearsalError(`an SLA rehearsal runs ${PEER_BINARIES.join(', ')} from ${dir}; missing: ${missing.join(', ')}. ${buildHint}`);
  }
  return found;
}

export interface LocalCluster {
  readonly client: KubeClient;
  /** A kubeconfig for the rehearsal's processes (inside the private network). */
  readonly kubeconfig: string;
  /** The API server's certificate authority (its self-signed serving certificate). */
  readonly caFile: string;
  /** The token of the cluster's administrator, which the rehearsal's own components use. */
  readonly token: string;
}

/**
 * Starts etcd and kube-apiserver under the keeper and waits for `/readyz`. Pods need their
 * namespace's `default` ServiceAccount, which a controller manager would create: `namespace()`
 * creates both.
 */
export async function startLocalCluster(
  box: Sandbox,
  bins: Record<PeerBinary, string>,
  dir: string,
  start: (name: string, argv: readonly string[]) => Promise<unknown>,
  check: () => void,
  timeoutMs: number,
): Promise<LocalCluster> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const token = crypto.randomBytes(24).toString('hex');
  // the only credential the server accepts: the rehearsal's, as a member of system:masters
  fs.writeFileSync(path.join(dir, 'tokens.csv'), `${token},dynamo-rehearsal,dynamo-rehearsal,"system:masters"\n`, { mode: 0o600 });
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  fs.writeFileSync(path.join(dir, 'sa.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
  await start('etcd', [
    bins.etcd,
    '--data-dir', path.join(dir, 'etcd'),
    '--listen-client-urls', `http://127.0.0.1:${ETCD_PORT}`,
    '--advertise-client-urls', `http://127.0.0.1:${ETCD_PORT}`,
    '--listen-peer-urls', `http://127.0.0.1:${ETCD_PEER_PORT}`,
    '--initial-advertise-peer-urls', `http://127.0.0.1:${ETCD_PEER_PORT}`,
    '--initial-cluster', `default=http://127.0.0.1:${ETCD_PEER_PORT}`,
    '--unsafe-no-fsync',
    '--log-level', 'warn',
  ]);
  const certDir = path.join(dir, 'certs');
  await start('kube-apiserver', [
    bins['kube-apiserver'],
    `--etcd-servers=http://127.0.0.1:${ETCD_PORT}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${API_PORT}`,
    // a self-signed serving certificate for 127.0.0.1 and localhost, made by the server itself
    `--cert-dir=${certDir}`,
    `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
    `--service-account-key-file=${path.join(dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${path.join(dir, 'sa.key')}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    '--authorization-mode=RBAC',
    '--service-cluster-ip-range=10.0.0.0/24',
    // the kubernetes Service cannot have a loopback endpoint
    '--endpoint-reconciler-type=none',
  ]);
  const caFile = path.join(certDir, 'apiserver.crt');
  const deadline = Date.now() + timeoutMs;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  while (!fs.existsSync(caFile) || fs.statSync(caFile).size === 0) {
    check();
    if (Date.now() > deadline) throw new RehearsalError(`kube-apiserver wrote no serving certificate in ${timeoutMs / 1000} s`);
    await pause(200);
  }
  const socketPath = path.join(dir, 'apiserver.sock');
  await box.forward(socketPath, API_PORT);
  const ca = fs.readFileSync(caFile);
  const client = new KubeClient({ server: API_SERVER, ca, token, namespace: 'default' }, { access: 'read-write', socketPath });
  for (;;) {
    check();
    const r = await client.request('GET', '/readyz').catch(() => undefined);
    if (r?.status === 200) break;
    if (Date.now() > deadline) throw new RehearsalError(`kube-apiserver was not ready in ${timeoutMs / 1000} s`);
    await pause(300);
  }
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: rehearsal\n  cluster:\n    server: ${API_SERVER}\n    certificate-authority: ${caFile}`,
      'users:',
      `- name: rehearsal\n  user:\n    token: ${token}`,
      'contexts:',
      '- name: rehearsal\n  context:\n    cluster: rehearsal\n    user: rehearsal\n    namespace: default',
      'current-context: rehearsal',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return { client, kubeconfig, caFile, token };
}
