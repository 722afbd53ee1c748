import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { DynamoRelease, indexObjects, manifestModel, releaseOfVersion, RELEASES, versionOfImage } from '../../core/internal';
import { LintFinding, parseDocuments } from '../lint/lint';
import { isHubId, planRehearsal, RehearsalError } from './plan';
import { Dropped } from './policy';
import { isolationAvailable, Sandbox, SandboxError, Started } from './sandbox';
import { LintSource } from '../sources';
import { printable } from '../text';
import { packageFile } from '../package-root';

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
  /** Where virtualenvs are cached. @default $DYNAMO_CONSTRUCTS_CACHE/rehearse, else ${XDG_CACHE_HOME:-~/.cache}/dynamo-constructs/rehearse */
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
  /** Refuse a manifest that sets what a rehearsal leaves out, and a run without the private namespaces. @default false */
  readonly strict?: boolean;
  /**
   * Give the user's `HF_TOKEN` to the download of the model's tokenizer and config from the
   * Hugging Face hub (gated models). The rehearsal's processes never get it: they run offline.
   * @default false
   */
  readonly hfTokenFromEnv?: boolean;
  /**
   * Run on this machine's network instead of private namespaces (where user namespaces are not
   * available): listeners Dynamo binds to every interface are then reachable from the network.
   * @default false
   */
  readonly hostNetwork?: boolean;
  /** Ends the rehearsal early (the command's Ctrl-C): the processes are stopped, the promise rejects with RehearsalInterrupted. */
  readonly signal?: AbortSignal;
}

/** The rehearsal was stopped by its caller (`RehearseOptions.signal`). */
export class RehearsalInterrupted extends Error {}

export interface RehearseIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The outcome, for callers that check it (the tests). */
export interface RehearsalResult {
  readonly model: string;
  readonly succeeded: number;
  readonly failed: number;
  /** Process ids of everything started (in the rehearsal's PID namespace when isolated); none is running once `rehearse` returned. */
  readonly pids: readonly number[];
  /** Whether the processes ran in private namespaces (loopback the only network). */
  readonly isolated: boolean;
  /** What the manifest set that the rehearsal left out. */
  readonly dropped: readonly Dropped[];
  /** What sent the requests: `aiperf <version>` or `http`. */
  readonly loadGenerator: string;
}

/** The Dynamo version a graph runs: its images' tag, else a runtimeVersionOverride, else the option. */
export function versionOf(graph: Record<string, unknown>, fallback: string | undefined): string {
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

export function knownRelease(version: string): DynamoRelease {
  const release = releaseOfVersion(version);
  if (!release) throw new RehearsalError(`Dynamo ${version} is not a release the library knows (${Object.keys(RELEASES).map((l) => `${l}.x`).join(', ')})`);
  return release;
}

/** The library's cache directory, outside any clone: $DYNAMO_CONSTRUCTS_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/dynamo-constructs. */
export function userCache(): string {
  return process.env.DYNAMO_CONSTRUCTS_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'dynamo-constructs');
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
  const root = o.cacheDir ?? path.join(userCache(), 'rehearse');
  const dir = path.join(root, `venv-${version}`);
  const python = path.join(dir, 'bin', 'python');
  const packages = [`ai-dynamo==${version}`, ...release.localRun.packages];
  const stamp = path.join(dir, '.installed');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === packages.join(' ') && fs.existsSync(python)) return python;
  const base = pythonOf(release.localRun.python, o.python);
  say(`installing ${packages.join(' ')} into ${dir} (first run for this release only: its wheels from PyPI, 140 MB for 1.6.1; about a minute on a fast connection, longer on a slow one)`);
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

export interface Measured {
  readonly ok: boolean;
  readonly status: number;
  readonly tokens: number;
  readonly ttftMs?: number;
  readonly itlMs?: number;
  readonly error?: string;
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
export const fmt = (v: number | undefined) => (v === undefined ? '-' : `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`);

/** The aiperf to send the requests with, and its version; undefined: plain HTTP. */
export function findAiperf(o: Pick<RehearseOptions, 'loadGenerator' | 'aiperf'>): { bin: string; version: string } | undefined {
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
export const STAND_IN_TOKENIZER = 'dynamo-constructs/stand-in';

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

/** How many files in a directory hold a complete JSON document (a card being written does not count). */
export function completeCards(dir: string): number {
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


/** Where a rehearsal's processes are reached: a Unix socket forwarded into the sandbox, or a port on the host's loopback. */
export type Target = { readonly socketPath: string } | { readonly host: string; readonly port: number };

export function get(target: Target, urlPath: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ ...target, path: urlPath, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
        if (body.length > 1_000_000) req.destroy(new Error('answer too large'));
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** One streaming chat completion: time to the first content chunk, and the mean gap between the rest. */
export function chat(target: Target, model: string, prompt: string, o: Pick<RehearseOptions, 'maxTokens' | 'requestTimeout'>, signal: AbortSignal): Promise<Measured> {
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: prompt }], max_tokens: o.maxTokens, stream: true });
  const started = process.hrtime.bigint();
  const ms = (t: bigint) => Number(t - started) / 1e6;
  return new Promise((resolve) => {
    const arrivals: number[] = [];
    let status = 0;
    let buffered = '';
    let error: string | undefined;
    const req = http.request(
      { ...target, path: '/v1/chat/completions', method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }, timeout: o.requestTimeout * 1000, signal },
      (res) => {
        status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          if (buffered.length > 1_000_000) req.destroy(new Error('answer too large'));
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

/** A port on the host's loopback, held (listening) until the process that gets it is about to start. */
class HeldPort {
  public static take(host: string): Promise<HeldPort> {
    return new Promise((resolve, reject) => {
      const server = net.createServer();
      server.on('error', reject);
      server.listen({ port: 0, host, exclusive: true }, () => resolve(new HeldPort(server, (server.address() as net.AddressInfo).port)));
    });
  }

  private constructor(private readonly server: net.Server | undefined, public readonly port: number) {}

  /** Hands the port over: it is free for the next bind. */
  public release(): Promise<void> {
    return new Promise((resolve) => (this.server?.listening ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Files a model directory holds that a rehearsal copies: regular files (or links to them) at its top level. */
export function copyModelFiles(from: string, to: string): string[] {
  fs.mkdirSync(to, { recursive: true });
  const skipped: string[] = [];
  for (const entry of fs.readdirSync(from).sort()) {
    const source = path.join(from, entry);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(source);
    } catch (e) {
      skipped.push(`${entry} (${(e as NodeJS.ErrnoException).code ?? 'unreadable'})`);
      continue;
    }
    if (!stat.isFile()) {
      skipped.push(`${entry} (${stat.isDirectory() ? 'a directory' : 'not a regular file'})`);
      continue;
    }
    fs.copyFileSync(source, path.join(to, entry));
  }
  return skipped;
}

/** Places a model directory in a Hugging Face cache under a model id (1.x reads it there offline). */
export function placeInHubCache(home: string, model: string, dir: string): void {
  const revision = '0'.repeat(40);
  const repo = path.join(home, 'hub', `models--${model.replace(/\//g, '--')}`);
  const snapshot = path.join(repo, 'snapshots', revision);
  fs.mkdirSync(snapshot, { recursive: true });
  fs.mkdirSync(path.join(repo, 'refs'), { recursive: true });
  for (const f of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, f), path.join(snapshot, f));
  fs.writeFileSync(path.join(repo, 'refs', 'main'), revision);
}

/** The files a rehearsal needs of a model from the hub: tokenizer, configs and chat template, never weights. */
const HUB_PATTERNS = ['*.json', '*.jinja', '*.model', '*.tiktoken', '*.txt'];

/** A `KEY=value` of the user's own environment, when it is there. */
export function fromUser(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = process.env[n];
    if (typeof v === 'string' && v !== '' && !/[\x00-\x1f]/.test(v)) out[n] = v;
  }
  return out;
}

/** What every process needs of the user's environment: locale and time zone. */
export const LOCALE = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'LC_NUMERIC', 'LC_TIME', 'TZ'];
/** How the user reaches the Hugging Face hub: their proxies, certificates, hub mirror and cache, and whether they keep it offline. */
const HUB_ACCESS = ['HF_ENDPOINT', 'HF_HOME', 'HF_HUB_CACHE', 'HUGGINGFACE_HUB_CACHE', 'HF_HUB_OFFLINE', 'XDG_CACHE_HOME', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'ALL_PROXY', 'all_proxy', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE'];

/**
 * Downloads a model's tokenizer and config from the hub with the release's own `huggingface_hub`,
 * as the user (their proxies, mirror and cache), with their token only when asked; returns the
 * local directory. Nothing of the manifest but the model id (checked to be one) takes part.
 */
export async function fetchFromHub(python: string, model: string, o: Pick<RehearseOptions, 'hfTokenFromEnv' | 'signal'>, say: (line: string) => void): Promise<string> {
  say(`fetching ${model}'s tokenizer and config from the Hugging Face hub${o.hfTokenFromEnv ? ' (with HF_TOKEN)' : ''}`);
  const script = ['import sys', 'from huggingface_hub import snapshot_download', 'print(snapshot_download(repo_id=sys.argv[1], allow_patterns=sys.argv[2:]))'].join('\n');
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: os.homedir(),
    HF_HUB_DISABLE_TELEMETRY: '1',
    ...fromUser(LOCALE),
    ...fromUser(HUB_ACCESS),
    ...(o.hfTokenFromEnv ? fromUser(['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN']) : { HF_HUB_DISABLE_IMPLICIT_TOKEN: '1' }),
  };
  const r = await new Promise<{ status: number | null; stdout: string; stderr: string; error?: Error }>((resolve) => {
    const child = spawn(python, ['-I', '-c', script, model, ...HUB_PATTERNS], { env, stdio: ['ignore', 'pipe', 'pipe'], signal: o.signal, timeout: 300_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout = (stdout + t).slice(-10_000)));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr = (stderr + t).slice(-10_000)));
    child.on('error', (error) => resolve({ status: null, stdout, stderr, error }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  if (o.signal?.aborted) throw new RehearsalInterrupted('interrupted');
  const dir = r.stdout.trim().split('\n').pop() ?? '';
  const gated = o.hfTokenFromEnv ? '' : '; for a gated model, --hf-token-from-env gives the download your HF_TOKEN';
  if (r.status === 0 && dir !== '') {
    // out of reach, huggingface_hub answers with the user's cached copy, however little of the model it holds
    const missing = MODEL_FILES.filter((f) => !isFile(path.join(dir, f)));
    if (missing.length === 0) return dir;
    throw new RehearsalError(
      `the copy of ${model} huggingface_hub found (${printable(dir)}) has no ${missing.join(', ')}, which the mocker and the frontend read: the hub was out of reach and your cache holds only part of the model, or the model has no such file. ${whatToDo(model)}${gated}`,
    );
  }
  const why = r.error ? r.error.message : printable(r.stderr.trim().split('\n').filter((l) => l.trim() !== '').pop() ?? `exit ${r.status}`);
  throw new RehearsalError(`could not fetch ${model}'s tokenizer and config from the Hugging Face hub (${why}). ${whatToDo(model)}${gated}`);
}

/** The files of a model a rehearsal cannot run without: the mocker stops without config.json, and the frontend has no chat template without tokenizer_config.json. */
export const MODEL_FILES: readonly string[] = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

const isFile = (p: string) => {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/** The stand-in model script, where it is on this machine (the package's scripts/), as the user would type it. */
export function tinyModelScript(): string {
  const script = packageFile('scripts', 'make-tiny-model.py');
  const relative = path.relative(process.cwd(), script);
  return relative.startsWith('..') || path.isAbsolute(relative) ? script : relative;
}

/** What a user without the model's files from the hub does instead: a stand-in directory, or the files fetched where the hub is reachable. */
function whatToDo(model: string): string {
  return (
    `Pass --tokenizer DIR with a directory that has them (python3 ${tinyModelScript()} DIR writes a small stand-in), ` +
    `or, where the hub is reachable, download them into your Hugging Face cache (hf download ${model} --include '*.json' --include '*.jinja') ` +
    'and run again: HF_HUB_OFFLINE=1 then reads that cache without trying the hub'
  );
}

/** The user's Hugging Face hub cache, where huggingface_hub looks for it. */
export function userHubCache(env: NodeJS.ProcessEnv = process.env): string {
  return env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE || path.join(env.HF_HOME || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'huggingface'), 'hub');
}

/** Whether the user keeps huggingface_hub offline (HF_HUB_OFFLINE, as huggingface_hub reads it): the fetch then reads their cache only. */
export function hubOffline(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|on|yes|true)$/i.test((env.HF_HUB_OFFLINE ?? '').trim());
}

/** Of MODEL_FILES, those the hub cache's copy of a model (its `main` revision, as huggingface_hub reads it offline) lacks: all of them where it has none. */
export function missingFromHubCache(cache: string, model: string): string[] {
  const repo = path.join(cache, `models--${model.replace(/\//g, '--')}`);
  let revision: string;
  try {
    revision = fs.readFileSync(path.join(repo, 'refs', 'main'), 'utf8').trim();
  } catch {
    return [...MODEL_FILES];
  }
  return MODEL_FILES.filter((f) => revision === '' || !isFile(path.join(repo, 'snapshots', revision, f)));
}

/**
 * Where a rehearsal's model files come from, settled before anything is installed or started:
 * `--tokenizer DIR` (checked, and copied into `modelDir`), else the hub for a model id it can
 * fetch, and, where the user keeps the hub offline, only when their cache has the files.
 * Returns the model id to fetch from the hub; undefined when `--tokenizer` gave the files.
 */
export function modelSource(tokenizer: string | undefined, modelId: string | undefined, modelDir: string, say: (line: string) => void): string | undefined {
  if (tokenizer !== undefined) {
    tokenizerDir(tokenizer, modelDir, say);
    return undefined;
  }
  if (modelId === undefined || !isHubId(modelId)) {
    throw new RehearsalError(`the model ${modelId === undefined ? '(none)' : JSON.stringify(printable(modelId))} is not a Hugging Face id the rehearsal can fetch; give its tokenizer and config with --tokenizer DIR`);
  }
  if (hubOffline()) {
    const cache = userHubCache();
    const missing = missingFromHubCache(cache, modelId);
    if (missing.length > 0) {
      const holds = missing.length === MODEL_FILES.length ? `has no copy of ${modelId}` : `has no ${missing.join(', ')} of ${modelId}`;
      throw new RehearsalError(`HF_HUB_OFFLINE is set, and your Hugging Face cache (${printable(cache)}) ${holds}: the mocker and the frontend read its ${MODEL_FILES.join(', ')}. ${whatToDo(modelId)}`);
    }
  }
  return modelId;
}

/** The model directory a rehearsal reads: `--tokenizer DIR`, checked and copied. */
export function tokenizerDir(dir: string, into: string, say: (line: string) => void): void {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(dir);
  } catch {
    stat = undefined;
  }
  if (!stat?.isDirectory()) throw new RehearsalError(`--tokenizer ${printable(dir)}: not a directory`);
  const missing = MODEL_FILES.filter((f) => !isFile(path.join(dir, f)));
  if (missing.length > 0) {
    throw new RehearsalError(`--tokenizer ${printable(dir)}: no ${missing.join(', ')} there; the mocker and the frontend read ${MODEL_FILES.join(', ')} (python3 ${tinyModelScript()} DIR writes a small stand-in)`);
  }
  const skipped = copyModelFiles(dir, into);
  if (skipped.length > 0) say(`--tokenizer: not copied (only the directory's own files are read): ${skipped.map(printable).join(', ')}`);
}

/** Every rehearsal process's environment: the rehearsal's own, the user's locale, nothing else of the user's; offline, from the run's hub cache. */
export function processEnv(python: string, run: string, home: string): Record<string, string> {
  return {
    PATH: `${path.dirname(python)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: path.join(run, 'home'),
    TMPDIR: path.join(run, 'tmp'),
    ...fromUser(LOCALE),
    HF_HOME: home,
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    HF_HUB_DISABLE_TELEMETRY: '1',
  };
}

/** The signal numbers of the signals a rehearsal is stopped with, for exit statuses (128 + n). */
export const SIGNAL_NUMBERS: Readonly<Record<string, number>> = { SIGINT: 2, SIGTERM: 15 };

export function describeEnding(s: Started): string {
  return s.ending?.signal ? `was killed by ${s.ending.signal}` : `exited (${s.ending?.code})`;
}

export async function rehearse(sources: readonly LintSource[], o: RehearseOptions, io: RehearseIo): Promise<RehearsalResult> {
  const say = (line: string) => io.stderr(`rehearse: ${line}\n`);
  const problems: LintFinding[] = [];
  const docs = parseDocuments(sources, problems).map((d) => d.object as Record<string, any>);
  if (problems.length > 0) {
    throw new RehearsalError(`the files do not read as Kubernetes manifests:\n${problems.map((p) => `  ${printable(p.file)}: ${printable(p.path)}: ${printable(p.message)}`).join('\n')}`);
  }
  const graphs = docs.filter((d) => d.kind === 'DynamoGraphDeployment' && (o.graph === undefined || d.metadata?.name === o.graph));
  if (graphs.length === 0) throw new RehearsalError(o.graph ? `no DynamoGraphDeployment named ${printable(o.graph)} in the files` : 'no DynamoGraphDeployment in the files');
  if (graphs.length > 1) throw new RehearsalError(`the files hold ${graphs.length} graphs (${graphs.map((g) => printable(String(g.metadata?.name))).join(', ')}); choose one with --graph`);
  const graph = graphs[0];
  const version = versionOf(graph, o.dynamoVersion);
  const release = knownRelease(version);
  const model = manifestModel(graph, indexObjects(docs), { release });

  // what the manifest sets that a rehearsal leaves out, said (or refused) before anything starts
  const worker = model.services.find((s) => s.kind === 'worker');
  const modelFlag = worker?.launch.flags.get('--model') ?? worker?.launch.flags.get('--model-path');
  const modelId = typeof modelFlag === 'string' ? modelFlag : undefined;
  const isolated = !o.hostNetwork;
  const host = '127.0.0.1';
  const run = fs.mkdtempSync(path.join(os.tmpdir(), 'dynamo-rehearse-'));
  const modelDir = path.join(run, 'model');
  const held: HeldPort[] = [];
  // isolated, the rehearsal has a network of its own: fixed ports, nothing else listens there
  const port = async (fixed: number) => {
    if (isolated) return { port: fixed, release: async () => undefined };
    const h = await HeldPort.take(host);
    held.push(h);
    return { port: h.port, release: () => h.release() };
  };
  let sandbox: Sandbox | undefined;
  const internal = new AbortController();
  let died: Started | undefined;
  let stopping = false;
  let serving = false;
  const check = () => {
    if (o.signal?.aborted) throw new RehearsalInterrupted('interrupted');
    if (died) throw new RehearsalError(`${died.name} ${describeEnding(died)} ${serving ? 'while the requests ran' : 'before the model was served'}; its last lines:\n${lastLines(died.name)}`);
  };
  const onAbort = () => internal.abort();
  o.signal?.addEventListener('abort', onAbort);
  const logOf = (name: string) => path.join(run, 'logs', `${name}.log`);
  const lastLines = (name: string) => {
    const log = logOf(name);
    if (!fs.existsSync(log)) return '    (no output)';
    const text = fs.readFileSync(log, 'utf8');
    // Dynamo colours its logs: the colours go, anything else a terminal would act on is escaped
    return printable(text.slice(-8000).replace(/\x1b\[[0-9;]*m/g, '')).trimEnd().split('\n').slice(-12).map((l) => `    ${l}`).join('\n');
  };
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    const http = await port(8000);
    const bootstrap: { port: number; release: () => Promise<void> }[] = [];
    const plan = planRehearsal(model, {
      release,
      host,
      httpPort: http.port,
      bootstrapPorts: () => (isolated ? 7100 + bootstrap.length : 0),
      discoveryDir: path.join(run, 'discovery'),
      modelDir,
      natsUrl: release.localRun.nats ? `nats://${host}:4222` : undefined,
    });
    const refused = plan.dropped.filter((d) => !d.inert);
    for (const d of refused) say(`left out: ${printable(d.service)} ${printable(d.what)}: ${d.why}`);
    const unused = new Map<string, string[]>();
    for (const d of plan.dropped.filter((x) => x.inert)) unused.set(d.service, [...(unused.get(d.service) ?? []), d.what.replace(/^(env|flag) /, '')]);
    for (const [service, what] of unused) say(`not used by a mocker rehearsal (engine, fabric or pod settings): ${printable(service)}: ${what.map(printable).join(', ')}`);
    if (o.strict && refused.length > 0) {
      throw new RehearsalError(`--strict: the manifest sets ${refused.length} thing${refused.length === 1 ? '' : 's'} a rehearsal does not run (${refused.map((d) => `${printable(d.service)} ${printable(d.what)}`).join(', ')})`);
    }
    if (isolated) {
      const available = isolationAvailable();
      if (!available.ok) {
        throw new RehearsalError(
          `this machine does not let the rehearsal create its private namespaces (${printable(available.why)}); --host-network runs it on this machine's network instead, where listeners Dynamo binds to every interface are reachable from the network`,
        );
      }
    } else if (o.strict) {
      throw new RehearsalError('--strict: --host-network runs Dynamo listeners on every interface of this machine');
    } else {
      say('on the host network (--host-network): listeners Dynamo binds to every interface are reachable from this machine\'s network while the rehearsal runs');
    }
    for (const s of plan.skipped) say(`not started: ${printable(s)}`);

    const hubModel = modelSource(o.tokenizer, modelId, modelDir, say);
    const aiperf = findAiperf(o);
    const python = ensureVenv(version, release, o, say);
    if (hubModel !== undefined) copyModelFiles(await fetchFromHub(python, hubModel, o, say), modelDir);
    const home = path.join(run, 'hf');
    if (modelId !== undefined && isHubId(modelId)) placeInHubCache(home, modelId, modelDir);
    if (aiperf) placeInHubCache(home, STAND_IN_TOKENIZER, modelDir);
    for (const d of ['logs', 'home', 'tmp', 'discovery']) fs.mkdirSync(path.join(run, d), { recursive: true });

    const base = processEnv(python, run, home);
    sandbox = await Sandbox.start({ python, runDir: run, isolated, env: { PATH: base.PATH, ...fromUser(LOCALE) } });
    const box = sandbox;
    box.onEnd = (s) => {
      if (!died && !stopping) {
        died = s;
        internal.abort();
      }
    };
    const start = async (name: string, argv: readonly string[], env: Readonly<Record<string, string>>) => {
      check();
      return box.spawn(name, argv, { ...env, ...base }, run, logOf(name));
    };
    if (release.localRun.nats) {
      const nats = await port(4222);
      await nats.release();
      await start('nats', [path.join(path.dirname(python), 'nats-server'), '-js', '-a', host, '-p', String(nats.port), '-sd', path.join(run, 'nats')], {});
    }
    say(`Dynamo ${version}: starting ${plan.workers.map((p) => p.name).join(', ')}, then ${plan.frontend.name}${isolated ? ' (in private namespaces: loopback is their only network)' : ` (on http://${host}:${http.port})`}`);
    const deadline = Date.now() + o.startTimeout * 1000;
    // the workers first, until each has written its whole model card; then the frontend, which reads them
    for (const w of plan.workers) {
      const args = [...w.args];
      const b = args.indexOf('--bootstrap-ports');
      if (b >= 0 && !isolated) {
        const p = await port(0);
        args[b + 1] = String(p.port);
        await p.release();
      }
      await start(w.name, [python, '-I', '-m', 'dynamo.mocker', ...args], w.env);
    }
    const cards = path.join(run, 'discovery', release.localRun.modelCards);
    while (completeCards(cards) < plan.workers.length) {
      check();
      if (Date.now() > deadline) throw new RehearsalError(`${plan.workers.length - completeCards(cards)} of ${plan.workers.length} workers registered no model in ${o.startTimeout} s; the last lines of ${plan.workers[0].name}:\n${lastLines(plan.workers[0].name)}`);
      await pause(200);
    }
    await http.release();
    await start(plan.frontend.name, [python, '-I', '-m', 'dynamo.frontend', ...plan.frontend.args], plan.frontend.env);
    let target: Target = { host, port: http.port };
    if (isolated) {
      const socketPath = path.join(run, 'http.sock');
      await box.forward(socketPath, http.port);
      target = { socketPath };
    }

    // until the frontend lists the model
    let served: string | undefined;
    while (served === undefined) {
      check();
      if (Date.now() > deadline) throw new RehearsalError(`the frontend listed no model in ${o.startTimeout} s; the frontend's last lines:\n${lastLines(plan.frontend.name)}`);
      const r = await get(target, '/v1/models', 2000).catch(() => undefined);
      if (r?.status === 200) {
        try {
          served = (JSON.parse(r.body) as { data?: { id?: unknown }[] }).data?.map((m) => m.id).find((id): id is string => typeof id === 'string');
        } catch {
          served = undefined;
        }
      }
      if (served === undefined) await pause(500);
    }
    // listed is not yet routable (measured: 1.6.1's disaggregated frontend may answer 503 until it has found
    // its workers): one request of one token, not counted, until one is answered
    for (;;) {
      check();
      const probe = await chat(target, served, 'Ready?', { maxTokens: 1, requestTimeout: o.requestTimeout }, internal.signal);
      if (probe.ok || (probe.status !== 503 && probe.status !== 0)) break;
      if (Date.now() > deadline) throw new RehearsalError(`the frontend listed ${printable(served)} but answered no request in ${o.startTimeout} s (the last: ${probe.status || 'no answer'}); the frontend's last lines:\n${lastLines(plan.frontend.name)}`);
      await pause(500);
    }
    serving = true;
    const generator = aiperf ? `AIPerf ${aiperf.version}` : 'plain HTTP';
    say(`the frontend serves ${printable(served)}; ${o.requests} requests, ${o.concurrency} at a time, ${o.maxTokens} tokens each, sent by ${generator}`);

    const sla = o.sla ?? plan.sla;
    const line = (i: number, r: Measured) =>
      io.stdout(
        r.ok
          ? `request ${i + 1}: ${r.status}, ${r.tokens} tokens, TTFT ${fmt(r.ttftMs)}, ITL ${fmt(r.itlMs)}\n`
          : `request ${i + 1}: failed (${r.status || 'no answer'}): ${printable(r.error ?? '')}\n`,
      );
    let results: Measured[];
    if (aiperf) {
      const artifacts = path.join(run, 'aiperf');
      const tokenizer = STAND_IN_TOKENIZER;
      const p = await start('aiperf', [
        aiperf.bin, 'profile', '--model', served, '--url', `http://${host}:${http.port}`, '--endpoint-type', 'chat', '--streaming',
        '--tokenizer', tokenizer, '--request-count', String(o.requests), '--concurrency', String(o.concurrency),
        '--isl', '64', '--osl', String(o.maxTokens), '--request-timeout-seconds', String(o.requestTimeout),
        // the mocker answers with random token ids: the server's counts are the true ones
        '--use-server-token-count', '--random-seed', '7', '--ui', 'none', '--artifact-dir', artifacts,
      ], {});
      // every round of requests may take the request timeout, and AIPerf a while to start
      const budget = Math.ceil(o.requests / o.concurrency) * o.requestTimeout + 120;
      const limit = Date.now() + budget * 1000;
      while (p.ending === undefined) {
        if (died && died !== p) check();
        if (o.signal?.aborted) check();
        if (Date.now() > limit) throw new RehearsalError(`AIPerf did not finish in ${budget} s; its last lines:\n${lastLines('aiperf')}`);
        await pause(200);
      }
      if (died === p) died = undefined;
      const records = path.join(artifacts, 'profile_export.jsonl');
      if (!fs.existsSync(records)) throw new RehearsalError(`AIPerf ${describeEnding(p)} without per-request records; its last lines:\n${lastLines('aiperf')}`);
      results = aiperfRecords(fs.readFileSync(records, 'utf8'), o.requests);
      results.forEach((r, i) => line(i, r));
    } else {
      results = new Array(o.requests);
      let next = 0;
      const prompts = ['Summarize the plot of a heist movie in three sentences.', 'Explain KV cache reuse to a new engineer.', 'Write a haiku about GPUs.'];
      await Promise.all(
        Array.from({ length: Math.min(o.concurrency, o.requests) }, async () => {
          while (next < o.requests && !internal.signal.aborted) {
            const i = next++;
            const r = await chat(target, served!, `${prompts[i % prompts.length]} (request ${i + 1})`, o, internal.signal);
            // a request cut short by the end of the rehearsal is not a result
            if (internal.signal.aborted) return;
            results[i] = r;
            line(i, r);
          }
        }),
      );
      check();
    }
    const ok = results.filter((r) => r.ok);
    const ttfts = ok.map((r) => r.ttftMs).filter((v): v is number => v !== undefined);
    const itls = ok.map((r) => r.itlMs).filter((v): v is number => v !== undefined);
    const target_ = (v: number | undefined) => (v === undefined ? '' : ` (SLA ${v} ms)`);
    io.stdout(`${ok.length}/${results.length} requests succeeded, ${results.length - ok.length} errors\n`);
    if (ttfts.length > 0) io.stdout(`TTFT p50 ${fmt(percentile(ttfts, 50))}, p95 ${fmt(percentile(ttfts, 95))}${target_(sla?.ttftMs)}\n`);
    if (itls.length > 0) io.stdout(`ITL  p50 ${fmt(percentile(itls, 50))}, p95 ${fmt(percentile(itls, 95))}${target_(sla?.itlMs)}\n`);
    io.stdout('(the mocker simulates engine timing without GPUs: the latencies rehearse the path, not the hardware)\n');
    return {
      model: served,
      succeeded: ok.length,
      failed: results.length - ok.length,
      pids: box.processes.map((s) => s.pid),
      loadGenerator: aiperf ? `aiperf ${aiperf.version}` : 'http',
      isolated,
      dropped: plan.dropped,
    };
  } catch (e) {
    if (e instanceof SandboxError) throw new RehearsalError(e.message);
    throw e;
  } finally {
    stopping = true;
    o.signal?.removeEventListener('abort', onAbort);
    for (const h of held) await h.release();
    if (sandbox) {
      await sandbox.stop(10);
      if (o.keepLogs) keepLogs(run, o.keepLogs, sandbox.processes, say);
      await sandbox.close();
    }
    fs.rmSync(run, { recursive: true, force: true });
  }
}

/** Copies every process's log (and AIPerf's exports) to `--keep-logs DIR`; a copy that fails is said, not thrown. */
function keepLogs(run: string, to: string, processes: readonly Started[], say: (line: string) => void): void {
  try {
    fs.mkdirSync(to, { recursive: true });
    for (const s of processes) {
      const log = path.join(run, 'logs', `${s.name}.log`);
      if (fs.existsSync(log)) fs.copyFileSync(log, path.join(to, `${s.name}.log`));
    }
    const aiperf = path.join(run, 'aiperf');
    if (fs.existsSync(aiperf)) fs.cpSync(aiperf, path.join(to, 'aiperf'), { recursive: true });
  } catch (e) {
    say(`--keep-logs ${printable(to)}: ${printable((e as Error).message)}`);
  }
}
