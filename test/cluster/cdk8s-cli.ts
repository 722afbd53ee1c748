/**
 * `cdk8s synth` for real: a consumer project with the packed library, cdk8s and the cdk8s
 * CLI, whose app is a plain cdk8s program using `dynamo-constructs/cdk8s`; its output is
 * applied to the test cluster and read back.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeClient } from '../../src/cli/kube-client';
import { npm, packLibrary } from '../support/pack';
import { applyAll, refOf } from './apply';

/** The cdk8s CLI version the consumer installs. */
const CDK8S_CLI = '2.207.60';
const ROOT = resolve(__dirname, '..', '..');
const versionOf = (pkg: string) => JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version as string;
const log = (line: string) => process.stderr.write(`cluster: cdk8s-cli: ${line}\n`);

const APP = `const { App, Chart } = require('cdk8s');
const { Backend, DisaggregatedDeployment, Fabric, LoadPredictor, ModelCache, Router, SlaPlannedDeployment } = require('dynamo-constructs/cdk8s');

const app = new App();
const chart = new Chart(app, 'consumer', { namespace: 'consumer' });
const modelCache = new ModelCache(chart, 'weights', { size: '200Gi', storageClassName: 'nfs' });
new DisaggregatedDeployment(chart, 'llama', {
  model: 'meta-llama/Llama-3.3-70B-Instruct',
  backend: Backend.vllm(),
  hfTokenSecret: 'hf-token-secret',
  modelCache,
  fabric: Fabric.rdma(),
  frontend: { router: Router.kv() },
  prefill: { tensorParallelSize: 2 },
  decode: { tensorParallelSize: 4 },
  planner: { ttftMs: 300, itlMs: 30, maxGpuBudget: 16, loadPredictor: LoadPredictor.kalman({ qLevel: 0.1, qTrend: 0.01, r: 1 }) },
});
new SlaPlannedDeployment(chart, 'qwen', {
  model: 'Qwen/Qwen3-32B',
  backend: Backend.sglang(),
  sla: { isl: 3000, osl: 150, ttftMs: 200, itlMs: 20 },
  searchStrategy: 'rapid',
  hardware: { gpuSku: 'h100_sxm', totalGpus: 8 },
});
app.synth();
`;

export async function cdk8sCliStep(client: KubeClient, fail: (line: string) => void): Promise<string[]> {
  const work = mkdtempSync(join(tmpdir(), 'cdk8s-consumer-'));
  try {
    const started = Date.now();
    const tarball = packLibrary(work);
    const project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    writeFileSync(join(project, 'cdk8s.yaml'), 'language: javascript\napp: node main.js\n');
    writeFileSync(join(project, 'main.js'), APP);
    execFileSync(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, `cdk8s@${versionOf('cdk8s')}`, `constructs@${versionOf('constructs')}`, `cdk8s-cli@${CDK8S_CLI}`], {
      cwd: project,
      stdio: 'pipe',
    });
    log(`consumer project installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    execFileSync(process.execPath, [join(project, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s'), 'synth'], { cwd: project, stdio: 'pipe', env: { ...process.env, DYNAMO_CONSTRUCTS_QUIET: '1' } });
    const files = readdirSync(join(project, 'dist')).filter((f) => f.endsWith('.yaml'));
    const objects = files.flatMap((f) => parseAllDocuments(readFileSync(join(project, 'dist', f), 'utf8')).map((d) => d.toJS()));
    const kinds = objects.map((o) => o.kind).sort();
    const want = ['ConfigMap', 'DynamoGraphDeployment', 'DynamoGraphDeploymentRequest', 'PersistentVolumeClaim'];
    if (JSON.stringify([...new Set(kinds)]) !== JSON.stringify(want)) fail(`cdk8s synth: synthesized ${kinds.join(', ')}, expected ${want.join(', ')}`);
    await applyAll(client, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'consumer' } }], { dryRun: false });
    const applied = await applyAll(client, objects, { dryRun: false });
    for (const a of applied) if (a.problems.length > 0) fail(`cdk8s synth output: ${refOf(a.object)}: ${a.problems.slice(0, 5).join('; ')}`);
    const ok = applied.filter((a) => a.problems.length === 0).length;
    return [`cdk8s-cli ${CDK8S_CLI} synth of a consumer project (packed tarball): ${files.join(', ')}, ${ok}/${objects.length} objects applied and read back as sent`];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
