/**
 * `dynamo-constructs rehearse` run on manifests written to attack it, as a user would run it
 * (the command, in a process of its own), with Dynamo's real frontend and mocker: part of
 * `npm run test:rehearse` (test/rehearsal/run.ts calls `hostileRehearsals`). Each case is a
 * reproduction of an attack or a cleanup failure; each check reads the machine, not the
 * rehearsal's word: marker files, /proc, the process table, the temp directory, a recording hub.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeHub } from '../support/fake-hub';
import { addEnv, component, disaggregated16, hostileEnv, hostileFrontendFlags, mainContainer, siteCustomize } from '../support/hostile';
import { toYaml } from '../support/manifests';

const ROOT = resolve(__dirname, '..', '..');

/** The rehearsal's processes, seen from this (the host's) PID namespace. */
export function rehearsalProcesses(): { pid: number; command: string }[] {
  const r = spawnSync('pgrep', ['-fa', 'dynamo\\.(frontend|mocker)|nats-server -js|aiperf|rehearsal-sandbox\\.py|stand-in-aiperf'], { encoding: 'utf8' });
  return (r.stdout ?? '')
    .split('\n')
    .filter((l) => l.trim() !== '' && !/pgrep/.test(l))
    .map((l) => ({ pid: Number(l.split(' ')[0]), command: l.slice(l.indexOf(' ') + 1) }));
}

/** Rehearsal directories left in the temp directory. */
function runDirs(): string[] {
  return readdirSync(tmpdir()).filter((d) => d.startsWith('dynamo-rehearse-'));
}

function hexAddress(hex: string): string {
  if (hex.length === 8) return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
  // IPv6: four little-endian 32-bit words
  const words = [0, 1, 2, 3].map((w) => hex.slice(w * 8, w * 8 + 8).match(/../g)!.reverse().join(''));
  return words.join('').match(/..../g)!.join(':');
}

/**
 * A process's listening TCP sockets, read from /proc: the sockets of its network namespace
 * (`/proc/<pid>/net/tcp{,6}`) that are its own (by inode, from its file descriptors), and the
 * interfaces of that namespace (`/proc/<pid>/net/dev`).
 */
export function listenersOf(pid: number): { listeners: { address: string; port: number }[]; interfaces: string[] } {
  const sockets = new Map<string, { address: string; port: number }>();
  for (const table of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue;
      const [address, port] = f[1].split(':');
      sockets.set(f[9], { address: hexAddress(address), port: parseInt(port, 16) });
    }
  }
  const listeners: { address: string; port: number }[] = [];
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    // gone
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && sockets.has(m[1])) listeners.push(sockets.get(m[1])!);
    } catch {
      // closed meanwhile
    }
  }
  let interfaces: string[] = [];
  try {
    interfaces = readFileSync(`/proc/${pid}/net/dev`, 'utf8').split('\n').slice(2).map((l) => l.split(':')[0].trim()).filter((n) => n !== '');
  } catch {
    // gone
  }
  return { listeners, interfaces };
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|0000:0000:0000:0000:0000:0000:0000:0001|0000:0000:0000:0000:0000:ffff:7f\w\w:\w{4})$/;
const WILDCARD = /^(0\.0\.0\.0|0000:0000:0000:0000:0000:0000:0000:0000)$/;

/** Listeners reachable from outside loopback: a non-loopback address, or a wildcard in a namespace with another interface. */
export function exposedListeners(): string[] {
  const out: string[] = [];
  for (const p of rehearsalProcesses()) {
    const { listeners, interfaces } = listenersOf(p.pid);
    for (const l of listeners) {
      const onlyLoopback = interfaces.length > 0 && interfaces.every((i) => i === 'lo');
      if (LOOPBACK.test(l.address) || (WILDCARD.test(l.address) && onlyLoopback)) continue;
      out.push(`${p.command.split(' ').slice(0, 4).join(' ')} on ${l.address}:${l.port} (interfaces ${interfaces.join(', ')})`);
    }
  }
  return out;
}

interface Running {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exit: Promise<number | null>;
}

/** `dynamo-constructs rehearse ...` as a user runs it: its own process, the given environment. */
function rehearseCommand(args: readonly string[], env: Record<string, string | undefined> = {}): Running {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', join(ROOT, 'src', 'cli', 'main.ts'), 'rehearse', ...args], {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'test', 'tsconfig.json'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running: Running = {
    child,
    stdout: '',
    stderr: '',
    exit: new Promise((res) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        res(signal ? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 2) : code);
      });
    }),
  };
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (running.stdout += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (running.stderr += t));
  return running;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, test: () => boolean, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds} s`);
    await pause(200);
  }
}

/** Rehearsal directories there before the suite (another user's, a crash's): not this suite's to judge. */
const EARLIER = new Set(runDirs());

/** Waits until nothing of the rehearsal runs and its directory is gone; returns what is left after `seconds`. */
async function leftAfter(seconds: number): Promise<string[]> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const left = [...rehearsalProcesses().map((p) => `process ${p.command.slice(0, 80)}`), ...runDirs().filter((d) => !EARLIER.has(d)).map((d) => `directory ${d}`)];
    if (left.length === 0 || Date.now() > deadline) return left;
    await pause(250);
  }
}

/** Every hostile case; a failure is reported through `fail` and the summary says what was measured. */
export async function hostileRehearsals(work: string, tokenizer: string, fail: (line: string) => void): Promise<string[]> {
  const summary: string[] = [];
  const dir = join(work, 'hostile');
  mkdirSync(dir, { recursive: true });
  const marker = join(dir, 'marker');
  mkdirSync(`${marker}-site`, { recursive: true });
  writeFileSync(join(`${marker}-site`, 'sitecustomize.py'), siteCustomize(marker));
  writeFileSync(join(`${marker}-site`, 'startup.py'), siteCustomize(`${marker}-startup`));
  const evil = await FakeHub.start();
  const markers = () => readdirSync(dir).filter((f) => f.startsWith('marker-') && f !== 'marker-site');
  const manifest = (name: string, edit: (graph: any) => void = () => undefined) => {
    const graph = disaggregated16();
    edit(graph);
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, toYaml([graph]));
    return file;
  };
  const hostile = manifest('hostile', (graph) => {
    for (const type of ['frontend', 'prefill', 'decode']) addEnv(component(graph, type), hostileEnv(marker, evil.url));
    const c = mainContainer(component(graph, 'frontend'));
    c.args = [...(c.args ?? []), ...hostileFrontendFlags(marker)];
  });
  const plain = manifest('plain');
  const served = (r: Running, n: number) => (r.stdout.match(/^request \d+: 200/gm) ?? []).length >= n;

  try {
    // 1. hostile environment and flags; every listener; then Ctrl-C
    {
      const r = rehearseCommand([hostile, '--tokenizer', tokenizer, '--requests', '100000', '--concurrency', '1', '--load-generator', 'http']);
      await until('the hostile manifest serving requests', () => served(r, 3) || r.child.exitCode !== null, 180).catch((e: Error) => fail(`${e.message}: ${r.stderr.slice(-800)}`));
      const exposed = exposedListeners();
      const processes = rehearsalProcesses().filter((p) => /dynamo\./.test(p.command)).length;
      r.child.kill('SIGINT');
      const code = await r.exit;
      const left = await leftAfter(15);
      if (!served(r, 3)) fail(`hostile manifest: the rehearsal did not serve: ${r.stderr.slice(-800)}`);
      if (exposed.length > 0) fail(`hostile manifest: listeners reachable beyond loopback: ${exposed.join('; ')}`);
      if (markers().length > 0) fail(`hostile manifest: files written by what the manifest set: ${markers().join(', ')}`);
      if (evil.requests.length > 0) fail(`hostile manifest: the manifest's hub was sent ${evil.requests.length} requests`);
      for (const what of ['PYTHONWARNINGS', 'BROWSER', 'PYTHONPATH', 'LD_PRELOAD', 'HF_ENDPOINT', 'flag --dump-config-to', 'flag --kserve-grpc-server', 'flag --frontend-route-extension']) {
        if (!r.stderr.includes(`left out: Frontend ${what.startsWith('flag') ? what : `env ${what}`}`)) fail(`hostile manifest: ${what} was not reported as left out`);
      }
      if (code !== 130) fail(`hostile manifest: Ctrl-C gave exit status ${code}, not 130`);
      if (left.length > 0) fail(`hostile manifest: left after Ctrl-C: ${left.join('; ')}`);
      summary.push(
        `hostile manifest (${Object.keys(hostileEnv(marker, evil.url)).length} variables on each of 3 services, ${hostileFrontendFlags(marker).filter((a) => a.startsWith('--')).length} frontend flags): served, ${markers().length} marker files, ` +
          `${evil.requests.length} requests to its hub, ${processes} Dynamo processes whose listeners are all on loopback (${exposed.length} exposed), Ctrl-C exit ${code}, ${left.length} left`,
      );
    }

    // 2. --strict refuses it before anything starts
    {
      const r = rehearseCommand([hostile, '--tokenizer', tokenizer, '--strict', '--load-generator', 'http']);
      const code = await r.exit;
      if (code !== 1 || !/--strict: the manifest sets \d+ things a rehearsal does not run/.test(r.stderr) || /starting/.test(r.stderr)) fail(`--strict: exit ${code}: ${r.stderr.slice(-500)}`);
      summary.push(`--strict on it: exit ${code}, nothing started`);
    }

    // 3. SIGTERM, and SIGKILL of the rehearsal itself
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const r = rehearseCommand([plain, '--tokenizer', tokenizer, '--requests', '100000', '--concurrency', '1', '--load-generator', 'http']);
      await until(`${signal}: serving`, () => served(r, 2) || r.child.exitCode !== null, 180).catch((e: Error) => fail(e.message));
      r.child.kill(signal);
      const code = await r.exit;
      const left = await leftAfter(15);
      const answeredAfter = r.stdout.length;
      await pause(1000);
      if (signal === 'SIGTERM' && code !== 143) fail(`SIGTERM: exit status ${code}, not 143`);
      if (r.stdout.length !== answeredAfter) fail(`${signal}: requests kept being printed after the rehearsal ended`);
      if (left.length > 0) fail(`${signal}: left: ${left.join('; ')}`);
      summary.push(`${signal} to the rehearsal: exit ${code}, ${left.length} processes or directories left after it`);
    }

    // 4. a second Ctrl-C, while a process that ignores SIGTERM (a stand-in load generator) runs
    {
      const aiperf = join(dir, 'stand-in-aiperf');
      writeFileSync(aiperf, '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "aiperf 0.0.0"; exit 0; fi\ntrap "" TERM\nwhile :; do sleep 1; done\n', { mode: 0o755 });
      const r = rehearseCommand([plain, '--tokenizer', tokenizer, '--aiperf', aiperf]);
      await until('the stand-in load generator running', () => rehearsalProcesses().some((p) => p.command.includes('stand-in-aiperf profile')) || r.child.exitCode !== null, 180).catch((e: Error) => fail(e.message));
      r.child.kill('SIGINT');
      await pause(500);
      const started = Date.now();
      r.child.kill('SIGINT');
      const code = await r.exit;
      const took = Date.now() - started;
      const left = await leftAfter(10);
      if (code !== 130) fail(`second Ctrl-C: exit status ${code}, not 130`);
      if (took > 3000) fail(`second Ctrl-C: the rehearsal took ${took} ms to exit`);
      if (left.length > 0) fail(`second Ctrl-C: left: ${left.join('; ')}`);
      summary.push(`a second Ctrl-C while a process ignores SIGTERM: exit ${code} in ${took} ms, ${left.length} left`);
    }

    // 5. a worker killed by a signal is named at once
    {
      const r = rehearseCommand([plain, '--tokenizer', tokenizer, '--requests', '100000', '--concurrency', '1', '--load-generator', 'http', '--timeout', '600']);
      await until('serving', () => served(r, 2) || r.child.exitCode !== null, 180).catch((e: Error) => fail(e.message));
      const decode = rehearsalProcesses().find((p) => /dynamo\.mocker .*--disaggregation-mode decode/.test(p.command));
      if (!decode) fail('a worker killed by a signal: no decode worker found');
      else process.kill(decode.pid, 'SIGKILL');
      const started = Date.now();
      const code = await r.exit;
      const took = Date.now() - started;
      const left = await leftAfter(15);
      if (code !== 1 || !/VllmDecodeWorker was killed by SIGKILL while the requests ran/.test(r.stderr)) fail(`a worker killed by a signal: exit ${code}: ${r.stderr.slice(-600)}`);
      if (took > 10_000) fail(`a worker killed by a signal: reported after ${took} ms`);
      if (left.length > 0) fail(`a worker killed by a signal: left: ${left.join('; ')}`);
      summary.push(`a decode worker killed by SIGKILL: reported by name in ${took} ms, exit ${code}, ${left.length} left`);
    }

    // 6. the user's token: never to the manifest's hub, to the user's own hub only when asked
    {
      const good = await FakeHub.start({ id: 'Qwen/Qwen3-0.6B', dir: tokenizer });
      const token = 'hf_rehearsalTestToken0123456789abcdefXYZ';
      // the user's hub is the recording one; their Hugging Face cache a folder of the test's
      const user = { HF_HOME: join(dir, 'hf-home'), HF_TOKEN: token, HF_ENDPOINT: good.url };
      const theft = manifest('token-theft', (graph) => {
        for (const type of ['frontend', 'prefill', 'decode']) addEnv(component(graph, type), { HF_ENDPOINT: evil.url });
      });
      const withoutFlag = rehearseCommand([theft, '--requests', '2', '--load-generator', 'http'], user);
      const c1 = await withoutFlag.exit;
      const sentToken1 = good.requests.filter((q) => q.authorization?.includes(token)).length;
      const asked = good.requests.length;
      const withFlag = rehearseCommand([theft, '--requests', '2', '--load-generator', 'http', '--hf-token-from-env'], user);
      const c2 = await withFlag.exit;
      const fetches = good.requests.slice(asked).filter((q) => q.url.startsWith('/api/models/') || q.url.includes('/resolve/'));
      const carried = fetches.filter((q) => q.authorization === `Bearer ${token}`).length;
      await good.close();
      if (evil.requests.length > 0) fail(`token: the manifest's hub was sent ${evil.requests.length} requests`);
      if (sentToken1 > 0) fail(`token: ${sentToken1} requests carried the user's token without --hf-token-from-env`);
      if (c1 !== 0 || c2 !== 0) fail(`token: exit ${c1} / ${c2}: ${withoutFlag.stderr.slice(-400)} ${withFlag.stderr.slice(-400)}`);
      if (fetches.length === 0 || carried !== fetches.length) fail(`token: with --hf-token-from-env, ${carried} of ${fetches.length} hub requests carried it`);
      summary.push(
        `token: model fetched from the user's hub (${asked} requests, ${sentToken1} with the token; with --hf-token-from-env ${carried} of ${fetches.length}), ` +
          `${evil.requests.length} requests to the manifest's hub, both rehearsals exit ${c1}/${c2}`,
      );
    }

    // 7. a component named as a path, with --keep-logs
    {
      const escaped = manifest('escaped', (graph) => {
        component(graph, 'decode').name = '../../../../escaped-decode';
      });
      const logs = join(dir, 'logs');
      const r = rehearseCommand([escaped, '--tokenizer', tokenizer, '--keep-logs', logs, '--load-generator', 'http']);
      const code = await r.exit;
      const outside = existsSync(resolve(tmpdir(), '..', '..', '..', 'escaped-decode.log')) || existsSync(resolve(logs, '..', '..', '..', '..', 'escaped-decode.log'));
      if (code !== 1 || !/a service is named "\.\.\/\.\.\/\.\.\/\.\.\/escaped-decode"/.test(r.stderr) || /at .*\.ts:\d+/.test(r.stderr)) fail(`a component named as a path: exit ${code}: ${r.stderr.slice(-500)}`);
      if (outside) fail('a component named as a path: a log was written outside the run');
      summary.push(`a component named "../../../../escaped-decode": refused (exit ${code}), nothing written`);
    }

    // 8. two rehearsals at once: each has its own network, the same ports, no race
    {
      const a = rehearseCommand([plain, '--tokenizer', tokenizer, '--requests', '4', '--load-generator', 'http']);
      const b = rehearseCommand([plain, '--tokenizer', tokenizer, '--requests', '4', '--load-generator', 'http']);
      const [ca, cb] = await Promise.all([a.exit, b.exit]);
      if (ca !== 0 || cb !== 0) fail(`two at once: exit ${ca} / ${cb}: ${a.stderr.slice(-300)} ${b.stderr.slice(-300)}`);
      summary.push(`two rehearsals at once (each in its own network namespace, both on port 8000): exit ${ca} and ${cb}`);
    }

    // 9. --host-network: what is exposed without the namespaces (measured, reported)
    {
      const r = rehearseCommand([plain, '--tokenizer', tokenizer, '--requests', '100000', '--concurrency', '1', '--load-generator', 'http', '--host-network']);
      await until('--host-network serving', () => served(r, 2) || r.child.exitCode !== null, 180).catch((e: Error) => fail(e.message));
      const exposed = exposedListeners();
      r.child.kill('SIGINT');
      const code = await r.exit;
      const left = await leftAfter(15);
      if (code !== 130 || left.length > 0) fail(`--host-network: exit ${code}, left ${left.join('; ')}`);
      const wildcard = exposed.filter((e) => / on (0\.0\.0\.0|0000:)/.test(e)).length;
      summary.push(`--host-network: served; ${exposed.length} listeners beyond loopback (${wildcard} on all interfaces, as Dynamo 1.6.1 binds its event publishers and bootstrap port), exit ${code}, ${left.length} left`);
    }
  } finally {
    await evil.close();
  }
  return summary;
}
