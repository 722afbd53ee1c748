/**
 * A throwaway Kubernetes control plane on loopback: etcd, kube-apiserver and a
 * kube-controller-manager that runs only the garbage collector and the namespace,
 * service-account and claim-protection controllers (deletes with foreground propagation,
 * which Pulumi uses, wait for the garbage collector; a claim's deletion for its protection
 * finalizer). No scheduler, no kubelet: objects are stored and
 * validated, never run. Certificates are made with openssl for each start; everything
 * lives in one run directory that `stop()` removes, and every process started is stopped
 * when the test process exits, however it exits.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import * as net from 'node:net';
import { join, resolve } from 'node:path';

export const CACHE = spawnSync('bash', [join(__dirname, '..', '..', 'scripts', 'build-peers.sh'), 'path'], { encoding: 'utf8' }).stdout.trim();
export const BIN = join(CACHE, 'bin');
export const CRDS = join(CACHE, 'crds');
const RUN_ROOT = resolve(__dirname, '..', '..', '.cache', 'cluster');

export interface Cluster {
  readonly kubeconfig: string;
  readonly server: string;
  /** The run directory (logs of each process, certificates). */
  readonly dir: string;
  stop(): Promise<void>;
}

const log = (line: string) => process.stderr.write(`cluster: ${line}\n`);

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
}

/** A CA, a serving certificate for 127.0.0.1, an admin client certificate and the service-account key pair. */
function makeCertificates(dir: string): void {
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=dynamo-constructs-test-ca'], dir);
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n',
  );
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'apiserver.key', '-out', 'apiserver.csr', '-subj', '/CN=kube-apiserver'], dir);
  openssl(['x509', '-req', '-in', 'apiserver.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'apiserver.crt', '-days', '2', '-extfile', 'server.ext'], dir);
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'admin.key', '-out', 'admin.csr', '-subj', '/O=system:masters/CN=admin'], dir);
  openssl(['x509', '-req', '-in', 'admin.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'admin.crt', '-days', '2', '-extfile', 'client.ext'], dir);
  openssl(['genrsa', '-out', 'sa.key', '2048'], dir);
  openssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
}

function kubeconfig(dir: string, server: string): string {
  const b64 = (f: string) => readFileSync(join(dir, f)).toString('base64');
  const file = join(dir, 'kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: test\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${b64('ca.crt')}`,
      'users:',
      `- name: admin\n  user:\n    client-certificate-data: ${b64('admin.crt')}\n    client-key-data: ${b64('admin.key')}`,
      'contexts:',
      '- name: test\n  context:\n    cluster: test\n    user: admin\n    namespace: default',
      'current-context: test',
      '',
    ].join('\n'),
  );
  return file;
}

/** A port nothing listens on, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.unref();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => res(port));
    });
  });
}

const started = new Set<ChildProcess>();

/** The processes a cluster started that are still running (none once `stop()` resolved). */
export function stillRunning(): number[] {
  return [...started].filter((p) => p.exitCode === null && p.signalCode === null).map((p) => p.pid!);
}
function killAll(): void {
  for (const p of started) if (p.exitCode === null) p.kill('SIGKILL');
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

function startProcess(name: string, bin: string, args: string[], dir: string): ChildProcess {
  const out = createWriteStream(join(dir, `${name}.log`));
  const p = spawn(join(BIN, bin), args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  p.stdout!.pipe(out);
  p.stderr!.pipe(out);
  started.add(p);
  p.on('exit', () => started.delete(p));
  return p;
}

function lastLines(dir: string, name: string): string {
  const f = join(dir, `${name}.log`);
  return existsSync(f) ? readFileSync(f, 'utf8').split('\n').slice(-15).join('\n') : '(no log)';
}

async function waitFor(what: string, timeoutMs: number, probe: () => Promise<boolean>, died: () => string | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = died();
    if (dead) throw new Error(dead);
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} was not ready in ${timeoutMs / 1000} s`);
}

function get(url: string, ca: Buffer, cert?: Buffer, key?: Buffer): Promise<number> {
  return new Promise((res, rej) => {
    const req = https.get(url, { ca, cert, key, timeout: 2000 }, (r) => {
      r.resume();
      res(r.statusCode ?? 0);
    });
    req.on('error', rej);
    req.on('timeout', () => req.destroy(new Error('timeout')));
  });
}

/** Starts the control plane; resolves once `/readyz` answers 200. */
export async function startCluster(): Promise<Cluster> {
  for (const bin of ['etcd', 'kube-apiserver', 'kube-controller-manager']) {
    if (!existsSync(join(BIN, bin))) throw new Error(`${join(BIN, bin)} is missing: run scripts/build-peers.sh`);
  }
  const begun = Date.now();
  mkdirSync(RUN_ROOT, { recursive: true });
  const dir = mkdtempSync(join(RUN_ROOT, 'run-'));
  makeCertificates(dir);
  const [etcdPort, etcdPeer, apiPort, kcmPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const etcd = startProcess('etcd', 'etcd', [
    '--data-dir', join(dir, 'etcd'),
    '--listen-client-urls', `http://127.0.0.1:${etcdPort}`,
    '--advertise-client-urls', `http://127.0.0.1:${etcdPort}`,
    '--listen-peer-urls', `http://127.0.0.1:${etcdPeer}`,
    '--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeer}`,
    '--initial-cluster', `default=http://127.0.0.1:${etcdPeer}`,
    '--unsafe-no-fsync',
    '--log-level', 'warn',
  ], dir);
  const server = `https://127.0.0.1:${apiPort}`;
  const apiserver = startProcess('kube-apiserver', 'kube-apiserver', [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${apiPort}`,
    '--tls-cert-file=apiserver.crt',
    '--tls-private-key-file=apiserver.key',
    '--client-ca-file=ca.crt',
    '--service-account-key-file=sa.pub',
    '--service-account-signing-key-file=sa.key',
    '--service-account-issuer=https://kubernetes.default.svc',
    '--authorization-mode=RBAC',
    '--service-cluster-ip-range=10.0.0.0/24',
    // the kubernetes Service cannot have a loopback endpoint
    '--endpoint-reconciler-type=none',
  ], dir);
  const cluster: Cluster = {
    kubeconfig: kubeconfig(dir, server),
    server,
    dir,
    stop: async () => {
      for (const p of [kcm, apiserver, etcd]) {
        if (p.exitCode !== null) continue;
        p.kill('SIGTERM');
        await new Promise<void>((res) => {
          const t = setTimeout(() => {
            p.kill('SIGKILL');
            res();
          }, 5000);
          p.once('exit', () => {
            clearTimeout(t);
            res();
          });
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const ca = readFileSync(join(dir, 'ca.crt'));
  const [cert, key] = [readFileSync(join(dir, 'admin.crt')), readFileSync(join(dir, 'admin.key'))];
  const died = () => {
    for (const [name, p] of [['etcd', etcd], ['kube-apiserver', apiserver]] as const) {
      if (p.exitCode !== null) return `${name} exited (${p.exitCode}); its last lines:\n${lastLines(dir, name)}`;
    }
    return undefined;
  };
  let kcm: ChildProcess = etcd;
  try {
    await waitFor('kube-apiserver', 60_000, async () => (await get(`${server}/readyz`, ca, cert, key)) === 200, died);
    kcm = startProcess('kube-controller-manager', 'kube-controller-manager', [
      `--kubeconfig=${cluster.kubeconfig}`,
      // the protection controller removes the finalizer every claim gets, or a deleted claim stays
      '--controllers=garbagecollector,namespace,serviceaccount,serviceaccount-token,pvc-protection',
      '--bind-address=127.0.0.1',
      `--secure-port=${kcmPort}`,
      '--use-service-account-credentials=false',
      '--service-account-private-key-file=sa.key',
      '--root-ca-file=ca.crt',
      '--leader-elect=false',
    ], dir);
  } catch (e) {
    await cluster.stop();
    throw e;
  }
  log(`kube-apiserver ready at ${server} in ${((Date.now() - begun) / 1000).toFixed(1)} s`);
  return cluster;
}
