import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { DynamoRelease, indexObjects, manifestModel, releaseOfVersion, RELEASES, versionOfImage } from '../core';
import { planRehearsal, RehearsalError } from './rehearse-plan';

/**
 * `dynamo-constructs rehearse`: a synthesized graph run on this machine without GPUs. The
 * frontend runs with the manifest's flags, every engine worker as Dynamo's mocker in its
 * role, from Dynamo's own packages of the graph's release in a cached virtualenv, finding
 * each other through files (and, on 0.x, a NATS server started for the run). Bounded
 * requests go through the OpenAI API; TTFT and ITL are printed next to the SLA. Everything
 * started is stopped when it ends, also on failure or Ctrl-C.
 */

export interface RehearseOptions {
  /** Several graphs in the files: the one to rehearse. */
  readonly graph?: string;
  readonly requests: number;
  readonly concurrency: number;
  readonly maxTokens: number;
  /** A local model directory (tokenizer and config) that stands in for the model. */
  readonly tokenizer?: string;
  /** The Python that creates the virtualenv. @default - the release's Python version, found on PATH or in pyenv */
  readonly python?: string;
  /** When the images name no release. */
  readonly dynamoVersion?: string;
  /** Seconds the processes may take to serve the model. @default 180 */
  readonly startTimeout: number;
  /** Seconds one request may take. @default 60 */
  readonly requestTimeout: number;
  /** SLA targets to print next to the measurements. @default - the graph's planner's */
  readonly sla?: { readonly ttftMs: number; readonly itlMs: number };
  /** Where virtualenvs are cached. @default ${XDG_CACHE_HOME:-~/.cache}/dynamo-constructs/rehearse */
  readonly cacheDir?: string;
  /** Copy every process's log here when it ends. @default - logs are removed with the run */
  readonly keepLogs?: string;
  /**
   * What sends the requests: `aiperf` (NVIDIA AIPerf, an error where it does not run), `http`
   * (plain streaming HTTP), or `auto`: AIPerf where it is found, plain HTTP otherwise.
   * @default 'auto'
   */
  readonly loadGenerator?: 'auto' | 'aiperf' | 'http';
  /** The aiperf executable. @default - `aiperf` on PATH */
  readonly aiperf?: string;
}

export interface RehearseIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The outcome, for callers that check it (the tests). */
export interface RehearsalResult {
  readonly model: string;
  readonly succeeded: number;
  readonly failed: number;
  /** Process ids of everything started; none is running once `rehearse` returned. */
  readonly pids: readonly number[];
  /** What sent the requests: `aiperf <version>` or `http`. */
  readonly loadGenerator: string;
}

/** The Dynamo version a graph runs: its images' tag, else a runtimeVersionOverride, else the option. */
function versionOf(graph: Record<string, unknown>, fallback: string | undefined): string {
  const found = new Set<string>();
  const visit = (v: unknown, key?: string) => {
    if (typeof v === 'string') {
      const version = key === 'image' ? versionOfImage(v) : key === 'runtimeVersionOverride' && releaseOfVersion(v) ? v : undefined;
      if (version) found.add(version);
    } else if (Array.isArray(v)) v.forEach((x) => visit(x));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, k);
  };
  visit(graph.spec);
  if (found.size === 1) return [...found][0];
  if (fallback) return fallback;
  if (found.size === 0) throw new RehearsalError('its images name no Dynamo release (a tag like :1.6.1); pass --dynamo-version');
  throw new RehearsalError(`its images name several Dynamo releases (${[...found].join(', ')}); pass --dynamo-version`);
}

function knownRelease(version: string): DynamoRelease {
  const release = releaseOfVersion(version);
  if (!release) throw new RehearsalError(`Dynamo ${version} is not a release the library knows (${Object.keys(RELEASES).map((l) => `${l}.x`).join(', ')})`);
  return release;
}

/** A Python of the wanted `X.Y` version: the given one, else `pythonX.Y` on PATH, else pyenv's newest. */
export function pythonOf(wanted: string, given: string | undefined): string {
  const ok = (p: string) => spawnSync(p, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  if (given) {
    if (ok(given).status !== 0) throw new RehearsalError(`--python ${given} does not run`);
    return given;
  }
  const candidates = [`python${wanted}`];
  const versions = path.join(process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv'), 'versions');
  if (fs.existsSync(versions)) for (const v of fs.readdirSync(versions).sort().reverse()) if (v.startsWith(`${wanted}.`)) candidates.push(path.join(versions, v, 'bin', 'python3'));
  for (const c of candidates) if (ok(c).stdout?.trim() === wanted) return c;
  throw new RehearsalError(`this release's packages need Python ${wanted}, which was not found (tried ${candidates.join(', ')}); install it or pass --python`);
}

/** The Python of the cached virtualenv of a release (created on first use): Dynamo's packages of that release. */
export function rehearsalPython(version: string, o: Pick<RehearseOptions, 'python' | 'cacheDir'>, say: (line: string) => void): string {
  return ensureVenv(version, knownRelease(version), o, say);
}

function ensureVenv(version: string, release: DynamoRelease, o: Pick<RehearseOptions, 'python' | 'cacheDir'>, say: (line: string) => void): string {
  const root = o.cacheDir ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'dynamo-constructs', 'rehearse');
  const dir = path.join(root, `venv-${version}`);
  const python = path.join(dir, 'bin', 'python');
  const packages = [`ai-dynamo==${version}`, ...release.localRun.packages];
  const stamp = path.join(dir, '.installed');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === packages.join(' ') && fs.existsSync(python)) return python;
  const base = pythonOf(release.localRun.python, o.python);
  say(`installing ${packages.join(' ')} into ${dir} (first run for this release: about a minute)`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const run = (cmd: string, args: string[], what: string) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new RehearsalError(`${what} failed:\n${(r.stderr ?? '').split('\n').slice(-8).join('\n')}`);
  };
  run(base, ['-m', 'venv', dir], `${base} -m venv`);
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...packages], `pip install ${packages.join(' ')}`);
  fs.writeFileSync(stamp, packages.join(' '));
  return python;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(true));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
  });
}

function get(url: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

export interface Measured {
  readonly ok: boolean;
  readonly status: number;
  readonly tokens: number;
  readonly ttftMs?: number;
  readonly itlMs?: number;
  readonly error?: string;
}

/** One streaming chat completion: time to the first content chunk, and the mean gap between the rest. */
function chat(port: number, model: string, prompt: string, o: RehearseOptions): Promise<Measured> {
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: prompt }], max_tokens: o.maxTokens, stream: true });
  const started = process.hrtime.bigint();
  const ms = (t: bigint) => Number(t - started) / 1e6;
  return new Promise((resolve) => {
    const arrivals: number[] = [];
    let status = 0;
    let buffered = '';
    let error: string | undefined;
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }, timeout: o.requestTimeout * 1000 },
      (res) => {
        status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let i: number;
          while ((i = buffered.indexOf('\n\n')) >= 0) {
            const event = buffered.slice(0, i);
            buffered = buffered.slice(i + 2);
            for (const line of event.split('\n')) {
              if (!line.startsWith('data:')) continue;
              const data = line.slice(5).trim();
              if (data === '[DONE]') continue;
              try {
                const parsed = JSON.parse(data) as { choices?: { delta?: { content?: string | null } }[]; error?: { message?: string } };
                if (parsed.error) error = parsed.error.message ?? JSON.stringify(parsed.error);
                const content = parsed.choices?.[0]?.delta?.content;
                if (typeof content === 'string' && content !== '') arrivals.push(ms(process.hrtime.bigint()));
              } catch {
                error = `not JSON: ${data.slice(0, 200)}`;
              }
            }
          }
        });
        res.on('end', () => {
          const ok = status === 200 && error === undefined && arrivals.length > 0;
          const itl = arrivals.length > 1 ? (arrivals[arrivals.length - 1] - arrivals[0]) / (arrivals.length - 1) : undefined;
          resolve({ ok, status, tokens: arrivals.length, ttftMs: arrivals[0], itlMs: itl, error: ok ? undefined : (error ?? (status === 200 ? 'no content' : buffered.slice(0, 300))) });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${o.requestTimeout} s`)));
    req.on('error', (e) => resolve({ ok: false, status, tokens: arrivals.length, error: e.message }));
    req.end(body);
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const fmt = (v: number | undefined) => (v === undefined ? '-' : `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`);

/** The aiperf to send the requests with, and its version; undefined: plain HTTP. */
function findAiperf(o: RehearseOptions): { bin: string; version: string } | undefined {
  const mode = o.loadGenerator ?? 'auto';
  if (mode === 'http') return undefined;
  const bin = o.aiperf ?? 'aiperf';
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  const version = r.status === 0 ? /\d+\.\d+\.\d+\S*/.exec(r.stdout ?? '')?.[0] : undefined;
  if (version) return { bin, version };
  if (mode === 'aiperf' || o.aiperf !== undefined) {
    const why = r.error ? r.error.message : `exit ${r.status}: ${(r.stderr ?? '').trim().split('\n').slice(-1)[0] ?? ''}`;
    throw new RehearsalError(`${bin} --version does not run (${why}); install AIPerf (pip install aiperf) or send plain HTTP (--load-generator http)`);
  }
  return undefined;
}

/** The tokenizer AIPerf counts with, where a stand-in model takes the model's place (a cache id: AIPerf reads no local paths offline). */
const STAND_IN_TOKENIZER = 'dynamo-constructs/stand-in';

/** AIPerf's per-request records (`profile_export.jsonl`), as measurements in the order the requests started. */
export function aiperfRecords(jsonl: string, requests: number): Measured[] {
  interface Rec {
    metadata?: { request_start_ns?: number; benchmark_phase?: string };
    metrics?: Record<string, { value?: unknown } | undefined>;
    error?: { code?: number; message?: string; type?: string } | null;
  }
  const records = jsonl
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Rec)
    .filter((r) => (r.metadata?.benchmark_phase ?? 'profiling') === 'profiling')
    .sort((a, b) => (a.metadata?.request_start_ns ?? 0) - (b.metadata?.request_start_ns ?? 0));
  const num = (r: Rec, k: string) => (typeof r.metrics?.[k]?.value === 'number' ? (r.metrics[k]!.value as number) : undefined);
  const out: Measured[] = records.map((r) =>
    r.error
      ? { ok: false, status: typeof r.error.code === 'number' ? r.error.code : 0, tokens: 0, error: r.error.message ?? r.error.type ?? 'failed' }
      : { ok: true, status: 200, tokens: num(r, 'output_token_count') ?? 0, ttftMs: num(r, 'time_to_first_token'), itlMs: num(r, 'inter_token_latency') },
  );
  while (out.length < requests) out.push({ ok: false, status: 0, tokens: 0, error: 'AIPerf recorded no result for it' });
  return out;
}

/** Places a stand-in model directory in a Hugging Face cache under the model's own id (1.x reads it offline). */
function standInCache(home: string, model: string, dir: string): void {
  const revision = '0'.repeat(40);
  const repo = path.join(home, 'hub', `models--${model.replace(/\//g, '--')}`);
  fs.mkdirSync(path.join(repo, 'snapshots', revision), { recursive: true });
  fs.mkdirSync(path.join(repo, 'refs'), { recursive: true });
  for (const f of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, f), path.join(repo, 'snapshots', revision, f));
  fs.writeFileSync(path.join(repo, 'refs', 'main'), revision);
}

/** How many files in a directory hold a complete JSON document (a card being written does not count). */
function completeCards(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let n = 0;
  for (const f of fs.readdirSync(dir)) {
    try {
      JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
      n++;
    } catch {
      // not yet whole
    }
  }
  return n;
}

export async function rehearse(sources: readonly { file: string; text: string }[], o: RehearseOptions, io: RehearseIo): Promise<RehearsalResult> {
  const say = (line: string) => io.stderr(`rehearse: ${line}\n`);
  const docs = sources.flatMap((s) => YAML.parseAllDocuments(s.text).map((d) => d.toJS() as Record<string, any>)).filter((d) => d && typeof d === 'object');
  const graphs = docs.filter((d) => d.kind === 'DynamoGraphDeployment' && (o.graph === undefined || d.metadata?.name === o.graph));
  if (graphs.length === 0) throw new RehearsalError(o.graph ? `no DynamoGraphDeployment named ${o.graph} in the files` : 'no DynamoGraphDeployment in the files');
  if (graphs.length > 1) throw new RehearsalError(`the files hold ${graphs.length} graphs (${graphs.map((g) => g.metadata?.name).join(', ')}); choose one with --graph`);
  const graph = graphs[0];
  const version = versionOf(graph, o.dynamoVersion);
  const release = knownRelease(version);
  const model = manifestModel(graph, indexObjects(docs), { release });
  if (o.tokenizer && !fs.existsSync(path.join(o.tokenizer, 'tokenizer.json'))) throw new RehearsalError(`--tokenizer ${o.tokenizer}: no tokenizer.json there`);

  const run = fs.mkdtempSync(path.join(os.tmpdir(), 'dynamo-rehearse-'));
  const started: { name: string; process: ChildProcess; log: string }[] = [];
  const stopAll = async () => {
    for (const s of started) if (s.process.exitCode === null && s.process.signalCode === null) {
      try {
        process.kill(-s.process.pid!, 'SIGTERM');
      } catch {
        // gone already
      }
    }
    const deadline = Date.now() + 10_000;
    while (started.some((s) => s.process.exitCode === null && s.process.signalCode === null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const s of started) if (s.process.exitCode === null && s.process.signalCode === null) {
      try {
        process.kill(-s.process.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  };
  const interrupted = () => {
    void stopAll().then(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const lastLines = (s: { log: string }) => (fs.existsSync(s.log) ? fs.readFileSync(s.log, 'utf8').trimEnd().split('\n').slice(-12).map((l) => `    ${l}`).join('\n') : '    (no output)');
  try {
    const aiperf = findAiperf(o);
    const python = ensureVenv(version, release, o, say);
    const home = path.join(run, 'hf');
    const env: Record<string, string> = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === 'string' && !['ETCD_ENDPOINTS', 'NATS_SERVER'].includes(e[0])));
    const worker = model.services.find((s) => s.kind === 'worker');
    const modelId = worker?.launch.flags.get('--model') ?? worker?.launch.flags.get('--model-path');
    if (o.tokenizer) {
      if (typeof modelId === 'string') standInCache(home, modelId, path.resolve(o.tokenizer));
      if (aiperf) standInCache(home, STAND_IN_TOKENIZER, path.resolve(o.tokenizer));
      Object.assign(env, { HF_HOME: home, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1' });
    }
    let natsUrl: string | undefined;
    const startProcess = (name: string, cmd: string, args: readonly string[], extraEnv: Record<string, string>) => {
      const log = path.join(run, `${name}.log`);
      const out = fs.openSync(log, 'w');
      const p = spawn(cmd, args, { env: { ...env, ...extraEnv }, stdio: ['ignore', out, out], detached: true, cwd: run });
      fs.closeSync(out);
      started.push({ name, process: p, log });
      return p;
    };
    if (release.localRun.nats) {
      const port = await freePort();
      const bin = path.join(path.dirname(python), 'nats-server');
      startProcess('nats', bin, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', path.join(run, 'nats')], {});
      natsUrl = `nats://127.0.0.1:${port}`;
      const deadline = Date.now() + 15_000;
      while (!(await portInUse(port))) {
        if (Date.now() > deadline) throw new RehearsalError(`nats-server did not listen in 15 s:\n${lastLines(started[started.length - 1])}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const httpPort = await freePort();
    const ports: number[] = [];
    for (let i = 0; i < 16; i++) ports.push(await freePort());
    const plan = planRehearsal(model, {
      release,
      httpPort,
      bootstrapPorts: () => ports.shift()!,
      discoveryDir: path.join(run, 'discovery'),
      modelDir: o.tokenizer ? path.resolve(o.tokenizer) : undefined,
      natsUrl,
    });
    for (const s of plan.skipped) say(`not started: ${s}`);
    say(`Dynamo ${version}: starting ${plan.workers.map((p) => p.name).join(', ')}, then ${plan.frontend.name} (on http://127.0.0.1:${httpPort})`);
    const deadline = Date.now() + o.startTimeout * 1000;
    const exitedEarly = () => {
      const dead = started.find((s) => s.process.exitCode !== null);
      if (dead) throw new RehearsalError(`${dead.name} exited (${dead.process.exitCode}) before the model was served; its last lines:\n${lastLines(dead)}`);
    };
    // the workers first, until each has written its whole model card; then the frontend, which reads them
    for (const w of plan.workers) startProcess(w.name, python, ['-m', 'dynamo.mocker', ...w.args], w.env);
    const cards = path.join(run, 'discovery', release.localRun.modelCards);
    while (completeCards(cards) < plan.workers.length) {
      exitedEarly();
      if (Date.now() > deadline) throw new RehearsalError(`${plan.workers.length - completeCards(cards)} of ${plan.workers.length} workers registered no model in ${o.startTimeout} s; the last lines of ${plan.workers[0].name}:\n${lastLines(started[started.length - plan.workers.length])}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    startProcess(plan.frontend.name, python, ['-m', 'dynamo.frontend', ...plan.frontend.args], plan.frontend.env);

    // until the frontend lists the model (a process that exits first is the error)
    let served: string | undefined;
    while (served === undefined) {
      exitedEarly();
      if (Date.now() > deadline) throw new RehearsalError(`the frontend listed no model in ${o.startTimeout} s; the frontend's last lines:\n${lastLines(started.find((s) => s.name === plan.frontend.name)!)}`);
      const r = await get(`http://127.0.0.1:${httpPort}/v1/models`, 2000).catch(() => undefined);
      if (r?.status === 200) served = (JSON.parse(r.body) as { data?: { id: string }[] }).data?.[0]?.id;
      if (served === undefined) await new Promise((res) => setTimeout(res, 500));
    }
    const generator = aiperf ? `AIPerf ${aiperf.version}` : 'plain HTTP';
    say(`the frontend serves ${served}; ${o.requests} requests, ${o.concurrency} at a time, ${o.maxTokens} tokens each, sent by ${generator}`);

    const sla = o.sla ?? plan.sla;
    const line = (i: number, r: Measured) =>
      io.stdout(
        r.ok
          ? `request ${i + 1}: ${r.status}, ${r.tokens} tokens, TTFT ${fmt(r.ttftMs)}, ITL ${fmt(r.itlMs)}\n`
          : `request ${i + 1}: failed (${r.status || 'no answer'}): ${r.error}\n`,
      );
    let results: Measured[];
    if (aiperf) {
      const artifacts = path.join(run, 'aiperf');
      const tokenizer = o.tokenizer ? STAND_IN_TOKENIZER : typeof modelId === 'string' ? modelId : served;
      const p = startProcess('aiperf', aiperf.bin, [
        'profile', '--model', served, '--url', `http://127.0.0.1:${httpPort}`, '--endpoint-type', 'chat', '--streaming',
        '--tokenizer', tokenizer, '--request-count', String(o.requests), '--concurrency', String(o.concurrency),
        '--isl', '64', '--osl', String(o.maxTokens), '--request-timeout-seconds', String(o.requestTimeout),
        // the mocker answers with random token ids: the server's counts are the true ones
        '--use-server-token-count', '--random-seed', '7', '--ui', 'none', '--artifact-dir', artifacts,
      ], {});
      // every round of requests may take the request timeout, and AIPerf a while to start
      const budget = Math.ceil(o.requests / o.concurrency) * o.requestTimeout + 120;
      const limit = Date.now() + budget * 1000;
      while (p.exitCode === null && p.signalCode === null) {
        const dead = started.find((s) => s.process !== p && s.process.exitCode !== null);
        if (dead) throw new RehearsalError(`${dead.name} exited (${dead.process.exitCode}) while AIPerf sent the requests; its last lines:\n${lastLines(dead)}`);
        if (Date.now() > limit) throw new RehearsalError(`AIPerf did not finish in ${budget} s; its last lines:\n${lastLines(started[started.length - 1])}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const records = path.join(artifacts, 'profile_export.jsonl');
      if (!fs.existsSync(records)) throw new RehearsalError(`AIPerf exited (${p.exitCode}) without per-request records; its last lines:\n${lastLines(started[started.length - 1])}`);
      results = aiperfRecords(fs.readFileSync(records, 'utf8'), o.requests);
      results.forEach((r, i) => line(i, r));
    } else {
      results = new Array(o.requests);
      let next = 0;
      const prompts = ['Summarize the plot of a heist movie in three sentences.', 'Explain KV cache reuse to a new engineer.', 'Write a haiku about GPUs.'];
      await Promise.all(
        Array.from({ length: Math.min(o.concurrency, o.requests) }, async () => {
          while (next < o.requests) {
            const i = next++;
            results[i] = await chat(httpPort, served!, `${prompts[i % prompts.length]} (request ${i + 1})`, o);
            line(i, results[i]);
          }
        }),
      );
    }
    const ok = results.filter((r) => r.ok);
    const ttfts = ok.map((r) => r.ttftMs!).filter((v) => v !== undefined);
    const itls = ok.map((r) => r.itlMs).filter((v): v is number => v !== undefined);
    const target = (v: number | undefined) => (v === undefined ? '' : ` (SLA ${v} ms)`);
    io.stdout(`${ok.length}/${results.length} requests succeeded, ${results.length - ok.length} errors\n`);
    if (ttfts.length > 0) io.stdout(`TTFT p50 ${fmt(percentile(ttfts, 50))}, p95 ${fmt(percentile(ttfts, 95))}${target(sla?.ttftMs)}\n`);
    if (itls.length > 0) io.stdout(`ITL  p50 ${fmt(percentile(itls, 50))}, p95 ${fmt(percentile(itls, 95))}${target(sla?.itlMs)}\n`);
    io.stdout('(the mocker simulates engine timing without GPUs: the latencies rehearse the path, not the hardware)\n');
    return { model: served!, succeeded: ok.length, failed: results.length - ok.length, pids: started.map((s) => s.process.pid!), loadGenerator: aiperf ? `aiperf ${aiperf.version}` : 'http' };
  } finally {
    await stopAll();
    process.removeListener('SIGINT', interrupted);
    process.removeListener('SIGTERM', interrupted);
    if (o.keepLogs) {
      fs.mkdirSync(o.keepLogs, { recursive: true });
      for (const s of started) if (fs.existsSync(s.log)) fs.copyFileSync(s.log, path.join(o.keepLogs, `${s.name}.log`));
      if (fs.existsSync(path.join(run, 'aiperf'))) fs.cpSync(path.join(run, 'aiperf'), path.join(o.keepLogs, 'aiperf'), { recursive: true });
    }
    fs.rmSync(run, { recursive: true, force: true });
  }
}
