import { Testing } from 'cdk8s';
import { aggregatedGraphSpec, Backend, disaggregatedGraphSpec, Fabric, indexObjects, manifestModel, releaseOf, renderGraph, Router } from '../../../src/core/internal';
import { EXAMPLES } from '../../../examples';
import { planRehearsal, RehearsalError } from '../../../src/cli/rehearse/plan';
import { run } from '../../../src/cli/main';
import { aiperfRecords, fetchFromHub } from '../../../src/cli/rehearse/rehearse';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as YAML from 'yaml';

/** What `dynamo-constructs rehearse` starts for a manifest (the processes themselves run in test/rehearsal/run.ts). */

const inputs = (version: string, extra: object = {}) => {
  let port = 20000;
  return { release: releaseOf(version), httpPort: 18000, bootstrapPorts: () => port++, discoveryDir: '/run/discovery', ...extra };
};

function planOf(objects: any[], version: string, extra: object = {}) {
  const graph = objects.find((o) => o.kind === 'DynamoGraphDeployment');
  return planRehearsal(manifestModel(graph, indexObjects(objects), { release: releaseOf(version) }), inputs(version, extra) as never);
}

describe('a 1.6.1 disaggregated graph behind the KV router (the planned-disaggregated example)', () => {
  const objects = Testing.synth(new EXAMPLES['planned-disaggregated'](Testing.app(), 'x'));
  const plan = planOf(objects, '1.6.1');

  test('the frontend keeps its router flags, listens on loopback and discovers through files', () => {
    expect(plan.frontend.args).toEqual(['--router-mode', 'kv', '--kv-cache-block-size', '16', '--http-host', '127.0.0.1', '--http-port', '18000', '--discovery-backend', 'file']);
    expect(plan.frontend.env).toMatchObject({ DYN_FILE_KV: '/run/discovery', DYN_TCP_RPC_HOST: '127.0.0.1', DYN_SYSTEM_HOST: '127.0.0.1' });
    // what points into the pod stays there
    expect(plan.frontend.env.HF_HOME).toBeUndefined();
  });

  test('each engine worker becomes the mocker in its role, with the engine\'s block size; prefill gets a rendezvous port', () => {
    expect(plan.workers.map((w) => [w.name, w.args])).toEqual([
      ['VllmPrefillWorker', ['--model-path', 'meta-llama/Llama-3.3-70B-Instruct', '--engine-type', 'vllm', '--block-size', '16', '--max-num-seqs', '4', '--disaggregation-mode', 'prefill', '--bootstrap-ports', '20000', '--discovery-backend', 'file']],
      ['VllmDecodeWorker', ['--model-path', 'meta-llama/Llama-3.3-70B-Instruct', '--engine-type', 'vllm', '--block-size', '16', '--max-num-seqs', '512', '--disaggregation-mode', 'decode', '--discovery-backend', 'file']],
    ]);
  });

  test('the planner is not started, and says why; its SLA is what the measurements are shown against', () => {
    expect(plan.skipped).toEqual(['Planner: the planner scales Kubernetes objects; a local rehearsal has none']);
    expect(plan.sla).toEqual({ ttftMs: 300, itlMs: 30 });
  });
});

test('0.9: the stand-in model goes in by its path and is served under it (0.9 reads ids from the hub only); replicas become processes; NATS is given', () => {
  const objects = Testing.synth(new EXAMPLES['aggregated-kv-router'](Testing.app(), 'x'));
  const plan = planOf(objects, '0.9.0', { modelDir: '/models/tiny', natsUrl: 'nats://127.0.0.1:4222' });
  expect(plan.workers.map((w) => w.name)).toEqual(['VllmWorker-0', 'VllmWorker-1']);
  expect(plan.workers[0].args).toEqual(['--model-path', '/models/tiny', '--block-size', '16', '--store-kv', 'file']);
  expect(plan.workers[0].env.NATS_SERVER).toBe('nats://127.0.0.1:4222');
  expect(plan.frontend.args).toEqual([
    '--router-mode', 'kv', '--kv-overlap-score-weight', '1.5', '--router-temperature', '0.1', '--kv-cache-block-size', '16',
    '--active-decode-blocks-threshold', '0.85', '--active-prefill-tokens-threshold', '10000', '--http-host', '127.0.0.1', '--http-port', '18000', '--store-kv', 'file',
  ]);
});

test('SGLang and TensorRT-LLM workers keep their own block size (page size, tokens per block from the engine config)', () => {
  for (const [backend, size] of [[Backend.sglang(), '16'], [Backend.trtllm(), '64']] as const) {
    const r = renderGraph(disaggregatedGraphSpec('g', 'ns', { model: 'Qwen/Qwen3-32B', backend, fabric: Fabric.rdma(), frontend: { router: Router.kv() }, prefill: { blockSize: Number(size) }, decode: { blockSize: Number(size) } }));
    const plan = planOf([r.graph, ...r.configMaps], '1.6.1');
    for (const w of plan.workers) expect(w.args.slice(w.args.indexOf('--block-size'), w.args.indexOf('--block-size') + 2)).toEqual(['--block-size', size]);
  }
});

test('a rehearsal manifest (rehearsal: true) runs its own mocker flags', () => {
  const r = renderGraph(aggregatedGraphSpec('g', 'ns', { model: 'Qwen/Qwen3-0.6B', backend: Backend.sglang(), rehearsal: true, workers: { maxNumSeqs: 8 } }));
  const plan = planOf([r.graph], '1.6.1');
  expect(plan.workers[0].args).toEqual(['--engine-type', 'sglang', '--block-size', '16', '--max-num-seqs', '8', '--model-path', 'Qwen/Qwen3-0.6B', '--discovery-backend', 'file']);
});

test('pools above four replicas start four, and the rest is said', () => {
  const r = renderGraph(aggregatedGraphSpec('g', 'ns', { model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), workers: { replicas: 6 } }));
  const plan = planOf([r.graph], '1.6.1');
  expect(plan.workers).toHaveLength(4);
  expect(plan.skipped).toEqual(['VllmWorker: 2 of its 6 replicas (a rehearsal starts at most 4 per pool)']);
});

test('graphs it cannot rehearse, and bad command lines, are clear errors', () => {
  const r = renderGraph(aggregatedGraphSpec('g', 'ns', { model: 'm', backend: Backend.vllm(), workers: {} }));
  const noFrontend = JSON.parse(JSON.stringify(r.graph));
  noFrontend.spec.components = noFrontend.spec.components.filter((c: any) => c.type !== 'frontend');
  expect(() => planOf([noFrontend], '1.6.1')).toThrow(new RehearsalError('the graph has 0 frontends; a rehearsal needs exactly one'));
  const cli = (argv: string[]) => {
    let stderr = '';
    const status = run(['rehearse', ...argv], { stdout: () => undefined, stderr: (t) => (stderr += t), stdin: () => '' });
    return { status, stderr };
  };
  expect(cli(['--requests', '0', 'x.yaml'])).toEqual({ status: 2, stderr: expect.stringMatching(/--requests must be a whole number from 1 to 1000000, got "0"/) });
  expect(cli(['--sla-ttft-ms', '100', 'x.yaml']).stderr).toMatch(/--sla-ttft-ms and --sla-itl-ms go together/);
  expect(cli([]).stderr).toMatch(/no files given/);
});

test('AIPerf\'s per-request records become measurements in the order the requests started; errors and missing records fail', () => {
  // four answered requests and one refused (an unknown model), as AIPerf 0.13.0 wrote them against the mocker, out of order
  const jsonl = readFileSync(join(__dirname, '..', 'fixtures', 'aiperf-0.13.0-profile_export.jsonl'), 'utf8');
  const m = aiperfRecords(jsonl, 6);
  expect(m.map((r) => r.ok)).toEqual([false, true, true, true, true, false]);
  expect(m[0]).toEqual({ ok: false, status: 404, tokens: 0, error: '{"message":"Model not found","type":"Not Found","code":404}' });
  expect(m[1]).toEqual({ ok: true, status: 200, tokens: 16, ttftMs: 34.120965, itlMs: 6.890933133333333 });
  expect(m.slice(1, 5).map((r) => r.ttftMs)).toEqual([34.120965, 45.410143, 52.390007, 59.706790999999996]);
  expect(m[5].error).toBe('AIPerf recorded no result for it');
});

test('the load generator: a bad choice and contradicting options are usage errors; an aiperf that does not run is said before anything starts', async () => {
  const cli = (argv: string[]) => {
    let stderr = '';
    const status = run(['rehearse', ...argv], { stdout: () => undefined, stderr: (t) => (stderr += t), stdin: () => '' });
    return { status, stderr: () => stderr };
  };
  const bad = cli(['--load-generator', 'ftp', 'x.yaml']);
  expect(bad.status).toBe(2);
  expect(bad.stderr()).toMatch(/--load-generator must be auto, aiperf or http, got "ftp"/);
  expect(cli(['--aiperf', '/bin/true', '--load-generator', 'http', 'x.yaml']).stderr()).toMatch(/--aiperf and --load-generator http contradict each other/);
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-aiperf-'));
  try {
    const file = join(dir, 'graph.yaml');
    writeFileSync(file, Testing.synth(new EXAMPLES['planned-disaggregated'](Testing.app(), 'p')).map((o) => YAML.stringify(o)).join('---\n'));
    const missing = cli(['--aiperf', join(dir, 'no-aiperf'), '--cache-dir-is-not-an-option', file]);
    expect(await missing.status).toBe(2);
    const r = cli(['--aiperf', join(dir, 'no-aiperf'), file]);
    expect(await r.status).toBe(1);
    expect(r.stderr()).toContain(`${join(dir, 'no-aiperf')} --version does not run (spawnSync ${join(dir, 'no-aiperf')} ENOENT); install AIPerf (pip install aiperf) or send plain HTTP (--load-generator http)`);
    expect(r.stderr()).not.toMatch(/installing|starting/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('the model\'s files, where the hub is out of reach: what to do, said before anything is installed or started', () => {
  const MODEL = 'meta-llama/Llama-3.3-70B-Instruct';
  let dir: string;
  let graph: string;
  const saved: Record<string, string | undefined> = {};
  const setEnv = (vars: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(vars)) {
      if (!(k in saved)) saved[k] = process.env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  /** A hub cache whose copy of the model (revision main) holds `files`, as huggingface_hub lays it out. */
  const hubCache = (home: string, files: string[]) => {
    const repo = join(home, 'hub', `models--${MODEL.replace('/', '--')}`);
    mkdirSync(join(repo, 'snapshots', 'abc123'), { recursive: true });
    mkdirSync(join(repo, 'refs'), { recursive: true });
    writeFileSync(join(repo, 'refs', 'main'), 'abc123');
    for (const f of files) writeFileSync(join(repo, 'snapshots', 'abc123', f), '{}');
    return join(repo, 'snapshots', 'abc123');
  };
  // --python that does not run: whatever got past the checks would stop at the virtualenv, before installing anything
  const cli = async (argv: string[]) => {
    let stderr = '';
    const status = await run(['rehearse', '--python', join(dir, 'no-python'), '--load-generator', 'http', '--host-network', ...argv, graph], { stdout: () => undefined, stderr: (t) => (stderr += t), stdin: () => '' });
    return { status, stderr };
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rehearse-hub-'));
    graph = join(dir, 'graph.yaml');
    writeFileSync(graph, Testing.synth(new EXAMPLES['planned-disaggregated'](Testing.app(), 'p')).map((o) => YAML.stringify(o)).join('---\n'));
    // an empty cache of virtualenvs: nothing is reused, and nothing may be installed
    setEnv({ DYNAMO_CONSTRUCTS_CACHE: join(dir, 'cache'), HF_HOME: join(dir, 'hf'), HF_HUB_CACHE: undefined, HUGGINGFACE_HUB_CACHE: undefined });
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
      delete saved[k];
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const whatToDo = (stderr: string) => {
    expect(stderr).toContain('Pass --tokenizer DIR with a directory that has them');
    // the script as typed from the repository's root (the tests' working directory)
    expect(stderr).toContain('python3 scripts/make-tiny-model.py DIR writes a small stand-in');
    expect(stderr).toContain(`hf download ${MODEL} --include '*.json' --include '*.jinja'`);
    expect(stderr).toContain('HF_HUB_OFFLINE=1 then reads that cache without trying the hub');
  };

  test('HF_HUB_OFFLINE with an empty hub cache (HF_HOME): exit 1, before a virtualenv or a process', async () => {
    setEnv({ HF_HUB_OFFLINE: '1' });
    const r = await cli([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`HF_HUB_OFFLINE is set, and your Hugging Face cache (${join(dir, 'hf', 'hub')}) has no copy of ${MODEL}: the mocker and the frontend read its config.json, tokenizer.json, tokenizer_config.json.`);
    whatToDo(r.stderr);
    expect(r.stderr).not.toMatch(/installing|fetching|starting|Traceback/);
  });

  test('HF_HUB_OFFLINE with part of the model cached: the files it lacks are named', async () => {
    setEnv({ HF_HUB_OFFLINE: 'true' });
    hubCache(join(dir, 'hf'), ['tokenizer.json']);
    const r = await cli([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`has no config.json, tokenizer_config.json of ${MODEL}`);
    whatToDo(r.stderr);
    expect(r.stderr).not.toMatch(/installing|fetching|starting/);
  });

  test('--tokenizer DIR without the config files the mocker and the frontend read: exit 1, nothing started', async () => {
    const model = join(dir, 'half-model');
    mkdirSync(model);
    writeFileSync(join(model, 'tokenizer.json'), '{}');
    const r = await cli(['--tokenizer', model]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`--tokenizer ${model}: no config.json, tokenizer_config.json there; the mocker and the frontend read config.json, tokenizer.json, tokenizer_config.json`);
    expect(r.stderr).not.toMatch(/installing|starting/);
  });

  /** A stand-in for the virtualenv's Python running the download: a shell script that says what `body` says. */
  const fakePython = (body: string) => {
    const file = join(dir, 'python');
    writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  };

  test('the hub out of reach and part of the model in the user\'s cache (what huggingface_hub then returns): the missing files are named, not left to the mocker', async () => {
    const snapshot = hubCache(join(dir, 'hf'), ['tokenizer.json']);
    const python = fakePython(`echo '${snapshot}'`);
    const fetched = fetchFromHub(python, MODEL, {}, () => undefined);
    await expect(fetched).rejects.toThrow(RehearsalError);
    const message = await fetched.catch((e: Error) => e.message);
    expect(message).toContain(`the copy of ${MODEL} huggingface_hub found (${snapshot}) has no config.json, tokenizer_config.json, which the mocker and the frontend read`);
    whatToDo(message);
  });

  test('a download that fails says what to do, and the user\'s HF_HUB_OFFLINE reaches it', async () => {
    setEnv({ HF_HUB_OFFLINE: '1' });
    const python = fakePython('echo "huggingface_hub.errors.LocalEntryNotFoundError: offline=$HF_HUB_OFFLINE" >&2; exit 1');
    const message = await fetchFromHub(python, MODEL, {}, () => undefined).catch((e: Error) => e.message);
    expect(message).toContain(`could not fetch ${MODEL}'s tokenizer and config from the Hugging Face hub (huggingface_hub.errors.LocalEntryNotFoundError: offline=1)`);
    whatToDo(message);
  });
});
