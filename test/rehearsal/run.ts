/**
 * `npm run test:rehearse`: `dynamo-constructs rehearse` for real, on the synthesized examples:
 * the disaggregated graph behind the KV router (planned-disaggregated) on Dynamo 1.6.1, and the
 * aggregated one (aggregated-kv-router) on 0.9.0, with the requests sent by AIPerf (installed
 * into a cached virtualenv) and, once, by plain HTTP. Each must list its model, answer every
 * request and leave no process behind. The hub is not reachable here: a tiny stand-in model
 * built by scripts/make-tiny-model.py takes the model's place.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Testing } from 'cdk8s';
import { EXAMPLES } from '../../examples';
import { Backend, disaggregatedGraphSpec, renderGraph, Router } from '../../src';
import { rehearsalPython, rehearse } from '../../src/cli/rehearse/rehearse';
import { RehearsalError } from '../../src/cli/rehearse/plan';
import { toYaml } from '../support/manifests';
import { hostileRehearsals } from '../security/rehearse-hostile';
import { aiperfExecutable } from './aiperf';

process.env.DYNAMO_CONSTRUCTS_QUIET ??= '1';
const ROOT = resolve(__dirname, '..', '..');
const REQUESTS = 12;

const CASES = [
  { example: 'planned-disaggregated', version: '1.6.1', disaggregated: true, load: 'aiperf' },
  { example: 'aggregated-kv-router', version: '0.9.0', disaggregated: false, load: 'aiperf' },
  { example: 'planned-disaggregated', version: '1.6.1', disaggregated: true, load: 'http' },
] as const;

/** Dynamo processes on this machine (none may outlive a rehearsal). */
function dynamoProcesses(): string[] {
  const r = spawnSync('pgrep', ['-fa', 'dynamo\\.(frontend|mocker)|nats-server -js|aiperf profile'], { encoding: 'utf8' });
  return (r.stdout ?? '').split('\n').filter((l) => l.trim() !== '');
}

/** A 1.6.1 rehearsal graph (its mocker flags run as written) whose decode worker is given a role the mocker refuses. */
function graphWithBrokenDecode(work: string): string {
  const r = renderGraph(disaggregatedGraphSpec('broken', 'ns', { model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), rehearsal: true, frontend: { router: Router.kv() }, prefill: {}, decode: {} }));
  const graph = JSON.parse(JSON.stringify(r.graph)) as { spec: { components: { name: string; podTemplate: { spec: { containers: { args: string[] }[] } } }[] } };
  graph.spec.components.find((c) => c.name === 'VllmDecodeWorker')!.podTemplate.spec.containers[0].args.push('--disaggregation-mode', 'sideways');
  const file = join(work, 'broken.yaml');
  writeFileSync(file, toYaml([graph]));
  return file;
}

/** A worker that exits: the rehearsal fails naming it, with its last log lines, and leaves nothing running. */
async function workerThatExits(work: string, tokenizer: string, fail: (line: string) => void): Promise<string> {
  const file = graphWithBrokenDecode(work);
  let message = '';
  try {
    await rehearse([{ file, text: readFileSync(file, 'utf8') }], { requests: 2, concurrency: 1, maxTokens: 8, tokenizer, startTimeout: 120, requestTimeout: 30, loadGenerator: 'http' }, { stdout: () => undefined, stderr: (t) => process.stderr.write(t) });
    fail('a decode worker with a role the mocker refuses: the rehearsal succeeded');
  } catch (e) {
    if (!(e instanceof RehearsalError)) throw e;
    message = e.message;
  }
  if (!/^VllmDecodeWorker exited \(2\) before the model was served; its last lines:\n[\s\S]*invalid choice: 'sideways'/.test(message)) fail(`a worker that exits: the error was ${JSON.stringify(message)}`);
  const left = dynamoProcesses();
  if (left.length > 0) fail(`a worker that exits: processes left running: ${left.join('; ')}`);
  return `a decode worker that exits: refused with "${message.split('\n')[0]}" and its last lines (invalid choice: 'sideways'), ${left.length} processes left`;
}

/** Ctrl-C while the requests run: the command exits 130 and leaves nothing running. */
async function interrupted(work: string, tokenizer: string, fail: (line: string) => void): Promise<string> {
  const manifest = join(work, 'interrupted.yaml');
  writeFileSync(manifest, toYaml(Testing.synth(new EXAMPLES['planned-disaggregated'](Testing.app(), 'planned-disaggregated'))));
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', join(ROOT, 'src', 'cli', 'main.ts'), 'rehearse', manifest, '--tokenizer', tokenizer, '--requests', '100000', '--concurrency', '1', '--load-generator', 'http'], {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'test', 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let answered = 0;
  let sent = false;
  child.stdout.setEncoding('utf8').on('data', (t: string) => {
    answered += (t.match(/^request \d+: 200/gm) ?? []).length;
    if (answered >= 3 && !sent) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const code = await new Promise<number | null>((res) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('exit', (c) => {
      clearTimeout(timer);
      res(c);
    });
  });
  if (!sent) fail(`Ctrl-C: the rehearsal ended (${code}) before three requests were answered: ${stderr.slice(-500)}`);
  if (code !== 130) fail(`Ctrl-C: exit status ${code}, not 130`);
  const left = dynamoProcesses();
  if (left.length > 0) fail(`Ctrl-C: processes left running: ${left.join('; ')}`);
  return `Ctrl-C after ${answered} answered requests: exit status ${code}, ${left.length} processes left`;
}

async function main(): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), 'rehearsal-test-'));
  let failures = 0;
  const fail = (line: string) => {
    failures++;
    process.stdout.write(`FAIL ${line}\n`);
  };
  const summary: string[] = [];
  try {
    const say = (line: string) => process.stderr.write(`rehearse: ${line}\n`);
    const tokenizer = join(work, 'tiny-model');
    const made = spawnSync(rehearsalPython('1.6.1', {}, say), [join(ROOT, 'scripts', 'make-tiny-model.py'), tokenizer], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`make-tiny-model.py failed: ${made.stderr}`);
    const before = dynamoProcesses();
    if (before.length > 0) throw new Error(`Dynamo processes are running already; stop them first (the suite checks that none is left): ${before.join('; ')}`);
    const aiperf = aiperfExecutable(say);
    for (const c of CASES) {
      const manifest = join(work, `${c.example}-${c.version}.yaml`);
      writeFileSync(manifest, toYaml(Testing.synth(new EXAMPLES[c.example](Testing.app(), c.example))));
      const logs = join(work, `logs-${c.example}-${c.load}`);
      const started = Date.now();
      const r = await rehearse([{ file: manifest, text: readFileSync(manifest, 'utf8') }], { requests: REQUESTS, concurrency: 3, maxTokens: 24, tokenizer, startTimeout: 180, requestTimeout: 60, keepLogs: logs, loadGenerator: c.load, ...(c.load === 'aiperf' ? { aiperf } : {}) }, {
        stdout: (t) => process.stdout.write(t),
        stderr: (t) => process.stderr.write(t),
      });
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      if (r.succeeded !== REQUESTS || r.failed !== 0) fail(`${c.example} on ${c.version}: ${r.succeeded}/${REQUESTS} requests succeeded`);
      // the pids are the rehearsal's own (its PID namespace): the process table says what is left
      const left = dynamoProcesses();
      if (left.length > 0) fail(`${c.example} on ${c.version}: processes left running: ${left.join(', ')}`);
      if (c.load === 'aiperf') {
        // AIPerf's own summary must agree with what rehearse made of its per-request records
        if (!r.loadGenerator.startsWith('aiperf ')) fail(`${c.example} on ${c.version}: the requests were sent by ${r.loadGenerator}, not AIPerf`);
        const exported = join(logs, 'aiperf', 'profile_export_aiperf.json');
        const own = existsSync(exported) ? (JSON.parse(readFileSync(exported, 'utf8')) as { request_count?: { avg?: number }; error_summary?: unknown[] }) : undefined;
        if (own?.request_count?.avg !== REQUESTS || (own.error_summary ?? []).length !== 0) fail(`${c.example} on ${c.version}: AIPerf's summary says ${JSON.stringify({ requests: own?.request_count, errors: own?.error_summary })}`);
      } else if (r.loadGenerator !== 'http') fail(`${c.example} on ${c.version}: the requests were sent by ${r.loadGenerator}, not plain HTTP`);
      if (c.disaggregated && !/prefill router/i.test(readFileSync(join(logs, 'Frontend.log'), 'utf8'))) fail(`${c.example} on ${c.version}: the frontend never activated its prefill router`);
      summary.push(
        `${c.example} on Dynamo ${c.version}: ${r.pids.length} processes, model ${r.model} listed, ${r.succeeded}/${REQUESTS} requests answered (sent by ${r.loadGenerator}), ${r.failed} errors` +
          `${c.disaggregated ? ', the frontend activated its prefill router' : ''}, ${left.length} processes left (${seconds} s)`,
      );
    }
    summary.push(await workerThatExits(work, tokenizer, fail));
    summary.push(await interrupted(work, tokenizer, fail));
    // manifests written to attack the command, and its cleanup on every way it can end
    summary.push(...(await hostileRehearsals(work, tokenizer, fail)));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const s of summary) process.stdout.write(`${s}\n`);
  process.stdout.write(`${failures} failure${failures === 1 ? '' : 's'}\n`);
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`rehearse: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 2;
  },
);
