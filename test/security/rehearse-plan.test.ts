import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexObjects, manifestModel, releaseOf } from '../../src/core/internal';
import { rehearse, tokenizerDir } from '../../src/cli/rehearse/rehearse';
import { planRehearsal, RehearsalError } from '../../src/cli/rehearse/plan';
import { manifestVariable } from '../../src/cli/rehearse/policy';
import { addEnv, component, disaggregated16, hostileEnv, hostileFrontendFlags, mainContainer, mockerGraph16 } from '../support/hostile';
import { toYaml } from '../support/manifests';

/**
 * What `rehearse` takes from a manifest someone else wrote (the processes themselves run in
 * test/security/rehearse-hostile.ts, part of `npm run test:rehearse`).
 */

const release = releaseOf('1.6.1');
const plan = (graph: any, extra: object = {}) => {
  let port = 7100;
  return planRehearsal(manifestModel(graph, indexObjects([graph]), { release }), { release, httpPort: 8000, bootstrapPorts: () => port++, discoveryDir: '/run/discovery', modelDir: '/run/model', ...extra });
};

describe('environment: only settings that shape the graph reach the processes', () => {
  const graph = disaggregated16();
  const env = hostileEnv('/tmp/marker', 'http://127.0.0.1:9');
  for (const type of ['frontend', 'prefill', 'decode']) addEnv(component(graph, type), { ...env, HF_TOKEN: 'hf_abcdefghijklmnopqrstuvwxyzABCDEFGH', DYN_ROUTER_TEMPERATURE: '0.5', DYN_LOG: 'info,dynamo_runtime=debug' });
  const p = plan(graph);

  test('no variable that runs code, reads files, redirects traffic or carries a token is passed on', () => {
    for (const proc of [p.frontend, ...p.workers]) {
      for (const name of [...Object.keys(env), 'HF_TOKEN']) {
        if (name === 'HF_HUB_OFFLINE') continue;
        expect(proc.env[name]).toBeUndefined();
      }
      // the rehearsal's own settings win over the manifest's
      expect(proc.env.DYN_TCP_RESPONSE_STREAM_HOST).toBe('127.0.0.1');
    }
  });

  test('router and logging settings are passed on', () => {
    expect(p.frontend.env).toMatchObject({ DYN_ROUTER_TEMPERATURE: '0.5', DYN_LOG: 'info,dynamo_runtime=debug' });
  });

  test('each variable left out is reported with its service; engine and pod settings are marked not used', () => {
    const leftOut = p.dropped.filter((d) => !d.inert).map((d) => `${d.service} ${d.what}`);
    for (const service of ['Frontend', 'VllmPrefillWorker', 'VllmDecodeWorker']) {
      for (const name of ['PYTHONWARNINGS', 'BROWSER', 'PYTHONPATH', 'PYTHONSTARTUP', 'LD_PRELOAD', 'HF_ENDPOINT', 'HF_TOKEN', 'DYN_LOGGING_CONFIG_PATH', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'DYN_ROUTER_POLICY_CONFIG']) {
        expect(leftOut).toContain(`${service} env ${name}`);
      }
    }
    expect(p.dropped.find((d) => d.service === 'Frontend' && d.what === 'env HF_HUB_OFFLINE')).toMatchObject({ inert: true });
  });

  test('a value that is not a plain word is refused even under an allowed name', () => {
    expect(manifestVariable('DYN_ROUTER_TEMPERATURE', '$(touch /tmp/x)')).toEqual({ pass: false, why: 'its value is not a plain word or number' });
    expect(manifestVariable('DYN_ROUTER_TRACKING_KEY_FILE', 'key')).toMatchObject({ pass: false });
    expect(manifestVariable('DYN_ROUTER_MODE', 'kv')).toEqual({ pass: true });
  });
});

describe('flags: the frontend and the mocker keep the ones that shape the graph', () => {
  test('frontend flags that write files, listen or import code are left out and reported', () => {
    const graph = disaggregated16();
    const c = mainContainer(component(graph, 'frontend'));
    c.args = [...(c.args ?? []), ...hostileFrontendFlags('/tmp/marker'), '--router-temperature', '0.3'];
    const p = plan(graph);
    expect(p.frontend.args).toEqual(['--router-mode', 'kv', '--kv-cache-block-size', '16', '--router-temperature', '0.3', '--http-host', '127.0.0.1', '--http-port', '8000', '--discovery-backend', 'file']);
    expect(p.dropped.filter((d) => !d.inert).map((d) => d.what)).toEqual(['flag --dump-config-to', 'flag --kserve-grpc-server', 'flag --frontend-route-extension', 'flag --tls-cert-path']);
  });

  test('a mocker manifest keeps its shaping flags; paths, ports, JSON and unknown flags are left out', () => {
    const graph = mockerGraph16();
    const decode = mainContainer(component(graph, 'decode'));
    decode.args = [...decode.args, '--planner-profile-data', '/etc', '--extra-engine-args', '/etc/passwd', '--reasoning', '{"a":1}', '--zmq-kv-events-ports', '5557', '--speedup-ratio', '2', '--num-workers', '8'];
    const p = plan(graph);
    const w = p.workers.find((x) => x.name === 'VllmDecodeWorker')!;
    expect(w.args).toContain('--speedup-ratio');
    for (const flag of ['--planner-profile-data', '--extra-engine-args', '--reasoning', '--zmq-kv-events-ports', '--num-workers']) expect(w.args).not.toContain(flag);
    expect(p.dropped.filter((d) => d.service === 'VllmDecodeWorker' && !d.inert).map((d) => d.what)).toEqual([
      'flag --planner-profile-data',
      'flag --extra-engine-args',
      'flag --reasoning',
      'flag --zmq-kv-events-ports',
      'flag --num-workers',
    ]);
  });

  test('an allowed flag with a value that is not a plain word is left out', () => {
    const graph = disaggregated16();
    const c = mainContainer(component(graph, 'frontend'));
    c.args = ['--router-mode', 'kv;id'];
    const p = plan(graph);
    expect(p.frontend.args).not.toContain('kv;id');
    expect(p.dropped).toContainEqual({ service: 'Frontend', what: 'flag --router-mode', why: 'its value is not a plain word or number' });
  });

  test('engine counts that are not whole numbers do not reach the mocker', () => {
    const graph = disaggregated16();
    const c = mainContainer(component(graph, 'decode'));
    c.args = [...c.args, '--max-num-seqs', '1e308', '--block-size', '../16'];
    const w = plan(graph).workers.find((x) => x.name === 'VllmDecodeWorker')!;
    expect(w.args).not.toContain('1e308');
    expect(w.args.slice(w.args.indexOf('--block-size'), w.args.indexOf('--block-size') + 2)).toEqual(['--block-size', '16']);
  });
});

describe('names and models: nothing of the manifest chooses a path', () => {
  test('a component whose name is a path is refused before anything is named after it', () => {
    const graph = disaggregated16();
    component(graph, 'decode').name = '../../../../escaped-decode';
    expect(() => plan(graph)).toThrow(RehearsalError);
    expect(() => plan(graph)).toThrow(/a service is named "\.\.\/\.\.\/\.\.\/\.\.\/escaped-decode", which the DynamoGraphDeployment CRD does not allow/);
  });

  test('a model given as a path in the container is replaced by the rehearsal\'s model directory; without one it is refused', () => {
    const graph = disaggregated16();
    for (const type of ['prefill', 'decode']) {
      const c = mainContainer(component(graph, type));
      c.args[c.args.indexOf('--model') + 1] = '/home/user/.ssh';
    }
    for (const w of plan(graph).workers) expect(w.args.slice(0, 4)).toEqual(['--model-path', '/run/model', '--model-name', '/home/user/.ssh']);
    expect(() => plan(graph, { modelDir: undefined })).toThrow(/runs the model at a path in its container \("\/home\/user\/\.ssh"\), which a rehearsal does not read; give its tokenizer and config with --tokenizer DIR/);
  });
});

describe('the rehearsal refuses before it starts anything', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rehearse-refused-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const refusal = async (text: string, options: object = {}) => {
    let stderr = '';
    try {
      await rehearse([{ file: 'm.yaml', text }], { requests: 1, concurrency: 1, maxTokens: 1, startTimeout: 1, requestTimeout: 1, loadGenerator: 'http', tokenizer: dir, ...options }, { stdout: () => undefined, stderr: (t) => (stderr += t) });
    } catch (e) {
      return { error: e as Error, stderr };
    }
    throw new Error('the rehearsal ran');
  };

  test('YAML errors, and a YAML bomb, are clear errors', async () => {
    const broken = await refusal('apiVersion: v1\nkind: [unclosed\n');
    expect(broken.error).toBeInstanceOf(RehearsalError);
    expect(broken.error.message).toMatch(/^the files do not read as Kubernetes manifests:\n {2}m\.yaml: line/);
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`)].join('\n');
    const r = await refusal(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n${bomb.split('\n').map((l) => `  ${l}`).join('\n')}\n`);
    expect(r.error).toBeInstanceOf(RehearsalError);
    expect(r.error.message).toMatch(/^the files do not read as Kubernetes manifests/);
  });

  test('--strict refuses a manifest with settings a rehearsal leaves out, naming each', async () => {
    const graph = disaggregated16();
    addEnv(component(graph, 'frontend'), { PYTHONPATH: '/tmp/x', BROWSER: 'sh' });
    const r = await refusal(toYaml([graph]), { strict: true });
    expect(r.error.message).toBe('--strict: the manifest sets 2 things a rehearsal does not run (Frontend env PYTHONPATH, Frontend env BROWSER)');
    expect(r.stderr).toContain('rehearse: left out: Frontend env PYTHONPATH: not a setting a rehearsal takes from a manifest (it could load code, read a file or redirect traffic)');
    expect(r.stderr).not.toMatch(/starting|installing/);
  });

  test('names with terminal escapes are printed escaped', async () => {
    const graph = disaggregated16();
    component(graph, 'decode').name = 'decode\x1b[31mred';
    const r = await refusal(toYaml([graph]));
    expect(r.error.message).toContain('"decode\\u001b[31mred"');
    expect(r.error.message).not.toContain('\x1b');
  });

  test('a --tokenizer that is not a directory with a tokenizer.json is refused', async () => {
    writeFileSync(join(dir, 'file'), 'x');
    const graph = disaggregated16();
    // the same check runs for both; the file case first
    const notDir = await refusal(toYaml([graph]), { tokenizer: join(dir, 'file'), hostNetwork: true });
    expect(notDir.error.message).toMatch(/--tokenizer .*file: not a directory/);
  });
});

test('a --tokenizer folder is copied file by file: folders, FIFOs and other entries are skipped and named, links to files followed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-tokenizer-'));
  try {
    const model = join(dir, 'model');
    mkdirSync(join(model, 'original'), { recursive: true });
    writeFileSync(join(model, 'tokenizer.json'), '{}');
    writeFileSync(join(model, 'tokenizer_config.json'), '{}');
    writeFileSync(join(dir, 'config-elsewhere.json'), '{}');
    symlinkSync(join(dir, 'config-elsewhere.json'), join(model, 'config.json'));
    execFileSync('mkfifo', [join(model, 'pipe.json')]);
    const said: string[] = [];
    tokenizerDir(model, join(dir, 'copy'), (l) => said.push(l));
    expect(readdirSync(join(dir, 'copy')).sort()).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json']);
    expect(said).toEqual(['--tokenizer: not copied (only the directory\'s own files are read): original (a directory), pipe.json (not a regular file)']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
