import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import { packageFile } from '../package-root';

/**
 * Where a rehearsal's processes run: under a keeper process (scripts/rehearsal-sandbox.py) that
 * starts them, reports how each ends, and kills all of them and removes the run's directory when
 * the rehearsal lets go of it, also when the rehearsal is killed with SIGKILL (its standard input
 * then closes). Isolated, the keeper is the first process of private user, network, PID, mount
 * and IPC namespaces: the only network is loopback, the processes hold no capability, and nothing
 * of the namespace outlives the keeper.
 */

/** Where the keeper's script is: next to the package's other scripts (undefined outside a package). */
function keeperScript(): string | undefined {
  try {
    return packageFile('scripts', 'rehearsal-sandbox.py');
  } catch {
    return undefined;
  }
}

/** The namespaces an isolated rehearsal runs in. */
const UNSHARE = ['--user', '--map-root-user', '--net', '--pid', '--fork', '--mount-proc', '--ipc', '--kill-child'];

/** Whether this machine lets an unprivileged process create the namespaces (user namespaces enabled, util-linux's unshare). */
export function isolationAvailable(): { ok: true } | { ok: false; why: string } {
  const r = spawnSync('unshare', [...UNSHARE, 'true'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status === 0) return { ok: true };
  const why = r.error ? r.error.message : (r.stderr ?? '').trim().split('\n').pop() || `exit ${r.status}`;
  return { ok: false, why };
}

/** How one process ended. */
export interface Ending {
  readonly code: number | null;
  readonly signal: string | null;
}

export interface Started {
  readonly name: string;
  readonly pid: number;
  /** Set once it has ended. */
  ending?: Ending;
}

interface KeeperEvent {
  readonly ev: string;
  readonly name?: string;
  readonly pid?: number;
  readonly code?: number | null;
  readonly signal?: string | null;
  readonly error?: string;
  readonly isolated?: boolean;
  readonly unix?: string;
}

export class SandboxError extends Error {}

export class Sandbox {
  /** Starts the keeper; resolves once it is ready. */
  public static async start(o: { python: string; runDir: string; isolated: boolean; env: Record<string, string>; podFiles?: string }): Promise<Sandbox> {
    const keeper = keeperScript();
    if (keeper === undefined || !fs.existsSync(keeper)) throw new SandboxError(`the rehearsal's process keeper is missing (${keeper ?? 'scripts/rehearsal-sandbox.py'}); reinstall dynamo-constructs`);
    if (o.podFiles !== undefined && !o.isolated) throw new SandboxError('pod files (/var/run/secrets/kubernetes.io/serviceaccount) need the private namespaces');
    const keeperArgs = ['-I', keeper, '--run-dir', o.runDir, ...(o.isolated ? ['--isolated'] : []), ...(o.podFiles !== undefined ? ['--pod-files', o.podFiles] : [])];
    // its own session: a Ctrl-C at the terminal reaches the rehearsal, which decides
    const child = o.isolated
      ? spawn('unshare', [...UNSHARE, o.python, ...keeperArgs], { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: o.env })
      : spawn(o.python, keeperArgs, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: o.env });
    const sandbox = new Sandbox(child, o.isolated);
    await sandbox.next((e) => e.ev === 'ready', 30_000, 'the process keeper did not start');
    return sandbox;
  }

  private readonly started = new Map<string, Started>();
  private readonly waiting: { test: (e: KeeperEvent) => boolean; resolve: (e: KeeperEvent) => void }[] = [];
  private stderr = '';
  private exited = false;
  private readonly exit: Promise<void>;
  /** Called when a started process ends (any time, by any cause). */
  public onEnd?: (s: Started) => void;

  private constructor(private readonly child: ChildProcess, public readonly isolated: boolean) {
    let buffered = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      let i: number;
      while ((i = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        let e: KeeperEvent;
        try {
          e = JSON.parse(line) as KeeperEvent;
        } catch {
          continue;
        }
        this.handle(e);
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (t: string) => (this.stderr = (this.stderr + t).slice(-4000)));
    // a keeper whose standard input is gone kills everything: no write may take the rehearsal down with EPIPE
    child.stdin!.on('error', () => undefined);
    this.exit = new Promise((resolve) =>
      child.on('exit', () => {
        this.exited = true;
        for (const w of this.waiting.splice(0)) w.resolve({ ev: 'keeper-exit' });
        resolve();
      }),
    );
  }

  private handle(e: KeeperEvent): void {
    if (e.ev === 'exit' && e.name !== undefined) {
      const s = this.started.get(e.name);
      if (s) {
        s.ending = { code: e.code ?? null, signal: e.signal ?? null };
        this.onEnd?.(s);
      }
    }
    for (const w of [...this.waiting]) {
      if (w.test(e)) {
        this.waiting.splice(this.waiting.indexOf(w), 1);
        w.resolve(e);
      }
    }
  }

  private next(test: (e: KeeperEvent) => boolean, timeoutMs: number, what: string): Promise<KeeperEvent> {
    return new Promise((resolve, reject) => {
      if (this.exited) return reject(new SandboxError(`${what}: the process keeper has exited${this.lastWords()}`));
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new SandboxError(`${what} in ${timeoutMs / 1000} s${this.lastWords()}`));
      }, timeoutMs);
      const entry = {
        test: (e: KeeperEvent) => test(e) || e.ev === 'keeper-exit' || e.ev === 'error',
        resolve: (e: KeeperEvent) => {
          clearTimeout(timer);
          if (e.ev === 'keeper-exit' || e.ev === 'error') reject(new SandboxError(`${what}: the process keeper ${e.error ? `failed: ${e.error}` : 'has exited'}${this.lastWords()}`));
          else resolve(e);
        },
      };
      this.waiting.push(entry);
    });
  }

  private lastWords(): string {
    const t = this.stderr.trim();
    return t === '' ? '' : `; it said: ${t.split('\n').slice(-3).join(' / ')}`;
  }

  private send(command: object): void {
    if (!this.exited) this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  /** Starts a process, its output into `log` (a new file in the run's log directory). */
  public async spawn(name: string, argv: readonly string[], env: Readonly<Record<string, string>>, cwd: string, log: string): Promise<Started> {
    const reply = this.next((e) => (e.ev === 'spawned' || e.ev === 'spawn-failed') && e.name === name, 30_000, `${name} did not start`);
    this.send({ op: 'spawn', name, argv, env, cwd, log });
    const e = await reply;
    if (e.ev === 'spawn-failed') throw new SandboxError(`${name} did not start: ${e.error}`);
    const s: Started = { name, pid: e.pid! };
    this.started.set(name, s);
    return s;
  }

  /** Carries connections to a Unix socket (in the run's directory) to a port on the sandbox's loopback (127.0.0.1 unless `host` says which). */
  public async forward(unix: string, port: number, host = '127.0.0.1'): Promise<void> {
    const reply = this.next((e) => e.ev === 'forwarding' && e.unix === unix, 10_000, 'the request forwarder did not start');
    this.send({ op: 'forward', unix, port, host });
    await reply;
  }

  /** Sends a signal (`TERM`, `KILL`) to a started process's group; its end is reported like any other. */
  public signal(name: string, signal: 'TERM' | 'KILL'): void {
    this.send({ op: 'signal', name, signal });
  }

  /** Every process started so far. */
  public get processes(): readonly Started[] {
    return [...this.started.values()];
  }

  /** SIGTERM to every process group, SIGKILL to what is left after `graceSeconds`. */
  public async stop(graceSeconds: number): Promise<void> {
    if (this.exited) return;
    const reply = this.next((e) => e.ev === 'stopped', (graceSeconds + 20) * 1000, 'the processes did not stop');
    this.send({ op: 'stop', grace: graceSeconds });
    await reply.catch(() => undefined);
  }

  /** Lets go: the keeper kills whatever is left, removes the run's directory and exits. */
  public async close(): Promise<void> {
    if (!this.exited) this.child.stdin!.end();
    const timer = new Promise<void>((resolve) => setTimeout(resolve, 20_000).unref());
    await Promise.race([this.exit, timer]);
    if (!this.exited) {
      try {
        process.kill(-this.child.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}
