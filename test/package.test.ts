import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { freshCheckout, npm } from './support/pack';

/**
 * The packed library, installed into fresh projects: a cdk8s user never needs
 * Pulumi, a Pulumi user never needs cdk8s, and the core entry needs neither.
 */
const root = path.resolve(__dirname, '..');
let work: string;
let tarball: string;

function versionOf(pkg: string): string {
  return JSON.parse(fs.readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
}

function consumer(name: string, deps: string[], from = tarball): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true }));
  execFileSync(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', from, ...deps], { cwd: dir, stdio: 'pipe' });
  return dir;
}

/** Runs `code` in `dir` with node; returns its stdout. */
function node(dir: string, code: string): string {
  return execFileSync(process.execPath, ['-e', code], { cwd: dir, encoding: 'utf8' }).trim();
}

/** Whether the fresh clone had a `lib/` before `npm pack` (it must not: the pack builds it). */
let builtBeforePack: boolean;

// The package every test installs: a fresh clone's `npm ci && npm pack`, as a user makes it
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'dynamo-constructs-pack-'));
  const clone = freshCheckout();
  const packed = path.join(work, 'packed');
  fs.mkdirSync(packed);
  try {
    execFileSync(npm, ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: clone, stdio: 'pipe' });
    builtBeforePack = fs.existsSync(path.join(clone, 'lib'));
    execFileSync(npm, ['pack', '--silent', '--pack-destination', packed], { cwd: clone, stdio: 'pipe' });
  } finally {
    fs.rmSync(clone, { recursive: true, force: true });
  }
  tarball = path.join(packed, fs.readdirSync(packed)[0]);
}, 420_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const probe = (entry: string) => `
  const loaded = () => Object.keys(require.cache);
  const lib = require(${JSON.stringify(entry)});
  console.log(JSON.stringify({
    exports: Object.keys(lib).length,
    cdk8s: loaded().some((k) => /node_modules[\\\\/](cdk8s|cdk8s-plus-28|constructs)[\\\\/]/.test(k)),
    pulumi: loaded().some((k) => /node_modules[\\\\/]@pulumi[\\\\/]/.test(k)),
    // loaded on first use only
    lazy: loaded().filter((k) => /node_modules[\\\\/](yaml|ajv|@grafana)[\\\\/]/.test(k) && !/node_modules[\\\\/](cdk8s|@pulumi)[\\\\/]/.test(k)).length,
  }));`;

/**
 * Type-checks `code` in consumer `dir` with the repository's TypeScript, under
 * each module resolution a project may use. The library's own declarations
 * are checked (skipLibCheck off) where the resolution can read its
 * dependencies' declarations too.
 */
function typeCheck(dir: string, code: string): void {
  fs.writeFileSync(path.join(dir, 'main.ts'), code);
  const settings = [
    { module: 'node16', moduleResolution: 'node16', skipLibCheck: false },
    { module: 'esnext', moduleResolution: 'bundler', skipLibCheck: false },
    // the Grafana SDK's subpath declarations need node16 or bundler resolution
    { module: 'commonjs', moduleResolution: 'node10', skipLibCheck: true },
  ];
  for (const s of settings) {
    const config = { compilerOptions: { ...s, strict: true, noEmit: true, target: 'es2022', lib: ['es2022'], types: [] as string[] }, files: ['main.ts'] };
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
    const run = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
    expect({ resolution: s.moduleResolution, status: run.status, output: run.stdout }).toEqual({ resolution: s.moduleResolution, status: 0, output: '' });
  }
}

/** A program that registers a disaggregated deployment with `lib`, the Pulumi entry point, under mocks; prints what registered. */
const pulumiProgram = (lib: string) => `
  const pulumi = require('@pulumi/pulumi');
  const registered = [];
  pulumi.runtime.setMocks({
    newResource: (args) => { registered.push({ type: args.type, name: args.name, inputs: args.inputs }); return { id: args.name, state: args.inputs }; },
    call: (args) => args.inputs,
  }, 'p', 's', false).then(() => {
    const lib = require(${JSON.stringify(lib)});
    const modelCache = new lib.ModelCache('model-cache', { namespace: 'ns', size: '100Gi', storageClassName: 'nfs' });
    new lib.DisaggregatedDeployment('llm', {
      namespace: 'ns', model: 'meta-llama/Llama-3.3-70B-Instruct', backend: lib.Backend.trtllm(), modelCache, fabric: lib.Fabric.rdma(),
      frontend: { router: lib.Router.kv() }, prefill: { tensorParallelSize: 2 }, decode: { tensorParallelSize: 4 },
    });
    setTimeout(() => console.log(JSON.stringify(registered.sort((a, b) => (a.type + a.name).localeCompare(b.type + b.name)))), 1500);
  });`;

/** A program that synthesizes a disaggregated deployment with `lib`, the cdk8s entry point. */
const synthProgram = (lib: string) => `
  const { App, Chart, Testing } = require('cdk8s');
  const lib = require(${JSON.stringify(lib)});
  const chart = new Chart(Testing.app(), 'c', { namespace: 'ns' });
  const modelCache = new lib.ModelCache(chart, 'model-cache', { size: '100Gi', storageClassName: 'nfs' });
  new lib.DisaggregatedDeployment(chart, 'llm', {
    model: 'meta-llama/Llama-3.3-70B-Instruct', backend: lib.Backend.trtllm(), modelCache, fabric: lib.Fabric.rdma(),
    frontend: { router: lib.Router.kv() }, prefill: { tensorParallelSize: 2 }, decode: { tensorParallelSize: 4 },
  });
  console.log(JSON.stringify(Testing.synth(chart)));`;

/** What synthProgram prints run on the repository's sources. */
const synthFromSources = () =>
  JSON.parse(
    execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', synthProgram(path.join(root, 'src/cdk8s'))], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, TS_NODE_PROJECT: 'test/tsconfig.json', DYNAMO_CONSTRUCTS_QUIET: '1' },
    }),
  );

test('dynamo-constructs/cdk8s works with no Pulumi package installed', () => {
  const dir = consumer('cdk8s-user', [`cdk8s@${versionOf('cdk8s')}`, `constructs@${versionOf('constructs')}`]);
  // the bundles synthesize what the sources do, and share one core: a value class from one entry point works in the other
  expect(JSON.parse(node(dir, synthProgram('dynamo-constructs/cdk8s')))).toEqual(synthFromSources());
  expect(node(dir, "console.log(require('dynamo-constructs').Backend === require('dynamo-constructs/cdk8s').Backend)")).toBe('true');
  expect(fs.existsSync(path.join(dir, 'node_modules', '@pulumi'))).toBe(false);
  expect(JSON.parse(node(dir, probe('dynamo-constructs/cdk8s')))).toEqual({ exports: expect.any(Number), cdk8s: true, pulumi: false, lazy: expect.any(Number) });
  // the published declarations type-check in a TypeScript project, whichever module resolution it uses
  typeCheck(dir, `
    import { App, Chart } from 'cdk8s';
    import { Backend, DisaggregatedDeployment, DynamoValidationError, Fabric, Router } from 'dynamo-constructs/cdk8s';
    import { RULES, RuleId } from 'dynamo-constructs';
    const chart = new Chart(new App(), 'c');
    const d: DisaggregatedDeployment = new DisaggregatedDeployment(chart, 'llm', {
      model: 'm', backend: Backend.vllm(), fabric: Fabric.rdma(), frontend: { router: Router.kv() }, prefill: {}, decode: {},
    });
    const rule: RuleId = 'block-size-mismatch';
    export const used = [d.graph.name, RULES[rule].severity, DynamoValidationError.name];
  `);
  expect(node(dir, "try { require('dynamo-constructs/pulumi'); console.log('loaded') } catch (e) { console.log(e.code) }")).toBe('MODULE_NOT_FOUND');
}, 120_000);

test('dynamo-constructs/pulumi works with no cdk8s package installed', () => {
  const dir = consumer('pulumi-user', [`@pulumi/pulumi@${versionOf('@pulumi/pulumi')}`, `@pulumi/kubernetes@${versionOf('@pulumi/kubernetes')}`]);
  expect(fs.existsSync(path.join(dir, 'node_modules', 'cdk8s'))).toBe(false);
  expect(JSON.parse(node(dir, probe('dynamo-constructs/pulumi')))).toEqual({ exports: expect.any(Number), cdk8s: false, pulumi: true, lazy: expect.any(Number) });
  expect(node(dir, "console.log(require('dynamo-constructs').Backend === require('dynamo-constructs/pulumi').Backend)")).toBe('true');
  // the bundle registers what the sources register
  const fromSources = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', pulumiProgram(path.join(root, 'src/pulumi'))], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, TS_NODE_PROJECT: 'test/tsconfig.json' },
  });
  expect(JSON.parse(node(dir, pulumiProgram('dynamo-constructs/pulumi')))).toEqual(JSON.parse(fromSources));
  typeCheck(dir, `
    import { Backend, DisaggregatedDeployment, Fabric } from 'dynamo-constructs/pulumi';
    const d = new DisaggregatedDeployment('llm', { model: 'm', backend: Backend.sglang(), fabric: Fabric.efa(), prefill: {}, decode: {} });
    export const name = d.graph.name;
  `);
  expect(node(dir, "try { require('dynamo-constructs/cdk8s'); console.log('loaded') } catch (e) { console.log(e.code) }")).toBe('MODULE_NOT_FOUND');
}, 120_000);

test('the core entry loads neither engine', () => {
  const dir = consumer('core-user', []);
  const seen = JSON.parse(node(dir, probe('dynamo-constructs')));
  // neither engine, and yaml, ajv and the Grafana SDK only once something needs them
  expect(seen).toEqual({ exports: expect.any(Number), cdk8s: false, pulumi: false, lazy: 0 });
  typeCheck(dir, `
    import { Backend, disaggregatedGraphSpec, Fabric, renderGraph } from 'dynamo-constructs';
    export const graph = renderGraph(disaggregatedGraphSpec('llm', 'ns', { model: 'm', backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {} })).graph;
  `);
  expect(seen.exports).toBeGreaterThan(20);
}, 120_000);

test('the dynamo-constructs command lints with the CRDs bundled in the package', () => {
  const dir = consumer('lint-user', []);
  const fixtures = path.join(root, 'test/fixtures/lint');
  const lint = (file: string) => spawnSync(path.join(dir, 'node_modules/.bin/dynamo-constructs'), ['lint', file], { cwd: dir, encoding: 'utf8' });
  const valid = lint(path.join(fixtures, 'valid/vllm-disagg-rdma.yaml'));
  expect({ status: valid.status, stdout: valid.stdout, stderr: valid.stderr }).toEqual({ status: 0, stdout: '', stderr: expect.stringContaining('0 errors, 0 warnings in 1 file') });
  const broken = lint(path.join(fixtures, 'broken/crd-schema.yaml'));
  expect(broken.status).toBe(1);
  expect(broken.stdout).toMatch(/\[crd-schema\]$/m);
}, 120_000);

test('the tarball holds the build, the README, the license, the stand-in model script `rehearse --tokenizer` uses, the rehearsal\'s process keeper and the peer build `rehearse --sla` points to, and none of the repository\'s tooling', () => {
  const listing = JSON.parse(execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }))[0];
  const files: string[] = listing.files.map((f: { path: string }) => f.path);
  const shipped = ['README.md', 'LICENSE', 'package.json', 'scripts/make-tiny-model.py', 'scripts/rehearsal-sandbox.py', 'scripts/build-peers.sh'];
  expect(files).toEqual(expect.arrayContaining(shipped));
  expect(files.filter((f) => !f.startsWith('lib/') && !shipped.includes(f))).toEqual([]);
});

test('a fresh clone packs a built package: `npm ci && npm pack` with no build before it; installed, it synthesizes and lints', () => {
  expect(builtBeforePack).toBe(false);
  const dir = consumer('clone-user', [`cdk8s@${versionOf('cdk8s')}`, `constructs@${versionOf('constructs')}`]);
  const installed = path.join(dir, 'node_modules/dynamo-constructs');
  for (const f of ['lib/index.js', 'lib/index.d.ts', 'lib/cdk8s/index.js', 'lib/pulumi/index.js', 'lib/cli/main.js', 'lib/cli/dynamo-crds.json']) {
    expect({ file: f, installed: fs.existsSync(path.join(installed, f)) }).toEqual({ file: f, installed: true });
  }
  expect(JSON.parse(node(dir, synthProgram('dynamo-constructs/cdk8s')))).toEqual(synthFromSources());
  const lint = spawnSync(path.join(dir, 'node_modules/.bin/dynamo-constructs'), ['lint', path.join(root, 'test/fixtures/lint/valid/vllm-disagg-rdma.yaml')], { cwd: dir, encoding: 'utf8' });
  expect({ status: lint.status, stderr: lint.stderr }).toEqual({ status: 0, stderr: expect.stringContaining('0 errors, 0 warnings in 1 file') });
}, 300_000);

test('offline and without the model, `rehearse` names the stand-in model script; run as named from the installed package by a Python without `tokenizers`, it writes a model `rehearse --tokenizer` takes', () => {
  const dir = consumer('rehearse-user', []);
  const cache = path.join(work, 'user-cache');
  const graph = path.join(dir, 'graph.yaml');
  // a disaggregated graph of a hub model, written with the installed package
  fs.writeFileSync(graph, node(dir, `
    const lib = require('dynamo-constructs');
    const spec = lib.disaggregatedGraphSpec('llm', 'ns', { model: 'meta-llama/Llama-3.3-70B-Instruct', backend: lib.Backend.vllm(), fabric: lib.Fabric.rdma(), frontend: { router: lib.Router.kv() }, prefill: {}, decode: {} });
    console.log(require('yaml').stringify(lib.renderGraph(spec).graph));`));
  const env = { ...process.env, HF_HOME: path.join(work, 'empty-hf'), HF_HUB_OFFLINE: '1', DYNAMO_CONSTRUCTS_CACHE: cache };
  // --python that does not run: nothing gets as far as a virtualenv
  const rehearse = (...args: string[]) => spawnSync(path.join(dir, 'node_modules/.bin/dynamo-constructs'), ['rehearse', '--python', path.join(work, 'no-python'), '--load-generator', 'http', '--host-network', ...args, graph], { cwd: dir, encoding: 'utf8', env });
  const offline = rehearse();
  expect(offline.status).toBe(1);
  const named = /\(python3 (\S+) DIR writes a small stand-in\)/.exec(offline.stderr);
  expect(named?.[1]).toBe('node_modules/dynamo-constructs/scripts/make-tiny-model.py');
  // -S: no site-packages, so no `tokenizers`, whatever this machine's Python has installed
  const first = spawnSync('python3', ['-S', named![1], 'tiny-model'], { cwd: dir, encoding: 'utf8', env });
  expect({ status: first.status, stderr: first.stderr }).toEqual({ status: 0, stderr: expect.stringContaining(`installing tokenizers==0.23.3 into ${path.join(cache, 'rehearse', 'venv-tokenizers-0.23.3')}`) });
  const again = spawnSync('python3', ['-S', named![1], 'tiny-model-2'], { cwd: dir, encoding: 'utf8', env });
  expect({ status: again.status, stderr: again.stderr }).toEqual({ status: 0, stderr: '' });
  const tokenizer = JSON.parse(fs.readFileSync(path.join(dir, 'tiny-model', 'tokenizer.json'), 'utf8'));
  expect(Object.keys(tokenizer.model.vocab).length + tokenizer.added_tokens.filter((t: { special: boolean }) => !t.special).length).toBe(4096);
  expect(fs.readFileSync(path.join(dir, 'tiny-model-2', 'tokenizer.json'), 'utf8')).toBe(fs.readFileSync(path.join(dir, 'tiny-model', 'tokenizer.json'), 'utf8'));
  // the directory has what rehearse checks for: it gets past the model's files to the virtualenv
  const withModel = rehearse('--tokenizer', 'tiny-model');
  expect(withModel.status).toBe(1);
  expect(withModel.stderr).toContain(`--python ${path.join(work, 'no-python')} does not run`);
}, 300_000);
