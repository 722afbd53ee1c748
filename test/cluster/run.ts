/**
 * `npm run test:cluster`: everything the library writes, applied to a real kube-apiserver
 * (test/cluster/cluster.ts), and the Pulumi examples run by the real Pulumi engine and
 * Kubernetes provider against it.
 *
 *   npm run test:cluster                 # build or reuse the binaries, then every step
 *   npm run test:cluster -- --skip pulumi,cdk8s-cli
 *
 * Steps, in one cluster:
 *   1. the Prometheus-operator and Flux CRDs the cluster stack's objects use;
 *   2. for each CRD generation (0.8/0.9's v1alpha1 set, then 1.x's v1beta1 set): the examples
 *      of that generation applied for real, and every release line's conformance matrix as
 *      dry-runs; each object read back must hold every field sent;
 *   3. option combinations the library refuses, forced past it, refused by the server too;
 *   4. `dynamo-constructs lint --server` against the cluster;
 *   5. Pulumi: up, preview (no changes), an update in place, destroy (nothing left);
 *   6. a consumer project synthesized by the real cdk8s CLI, applied.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { DynamoValidationError, RELEASES } from '../../src';
import { KubeClient, loadKubeconfig } from '../../src/cli/kube-client';
import { Testing } from 'cdk8s';
import { DisaggregatedRdmaChart } from '../../examples/disaggregated-rdma';
import { SlaPlannedChart } from '../../examples/sla-planned';
import { examples, matrix } from '../conformance/matrix';
import { applyAll, installCrds, pool, refOf, removeCrds, yamlObjects } from './apply';
import { BROKEN } from './broken';
import { cdk8sCliStep } from './cdk8s-cli';
import { CRDS, startCluster, stillRunning } from './cluster';
import { pulumiStep } from './pulumi';

process.env.DYNAMO_CONSTRUCTS_QUIET ??= '1';
type Obj = Record<string, any>;

const SHARED = resolve(__dirname, '..', '..', '..', 'shared', 'dynamo');
/** The Dynamo CRDs of each API generation; the 1.x set serves v1beta1 (its v1alpha1 needs the operator's conversion webhook). */
const GENERATIONS = [
  { api: 'nvidia.com/v1alpha1', crds: join(SHARED, 'crds'), lines: ['0.8', '0.9'] },
  { api: 'nvidia.com/v1beta1', crds: join(SHARED, 'crds-v1beta1'), lines: ['1.4', '1.5', '1.6'] },
] as const;
const DYNAMO_KINDS = ['DynamoGraphDeployment', 'DynamoGraphDeploymentRequest'];
/** The examples that take the release to deploy. */
const VERSIONED_EXAMPLES = { 'disaggregated-rdma': DisaggregatedRdmaChart, 'sla-planned': SlaPlannedChart };
const LINE_VERSIONS: Record<string, string> = { '0.8': '0.8.1', '0.9': '0.9.0', '1.4': '1.4.2', '1.5': '1.5.1', '1.6': '1.6.1' };

const log = (line: string) => process.stderr.write(`cluster: ${line}\n`);
const summary: string[] = [];
let failures = 0;
function fail(line: string): void {
  failures++;
  process.stdout.write(`FAIL ${line}\n`);
}

function dynamoCrds(dir: string): Obj[] {
  return yamlObjects(dir).filter((o) => o.kind === 'CustomResourceDefinition' && DYNAMO_KINDS.includes(o.spec?.names?.kind));
}

/** The namespaces a set of objects lives in, as Namespace objects (applied first). */
function namespacesOf(objects: readonly Obj[]): Obj[] {
  const names = [...new Set(objects.map((o) => o.metadata?.namespace).filter((n): n is string => typeof n === 'string'))].sort();
  return names.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
}

/** The API generation of an example: that of its Dynamo objects (examples without any go with the current one). */
function generationOf(objects: readonly Obj[]): string {
  return objects.find((o) => DYNAMO_KINDS.includes(o.kind))?.apiVersion ?? 'nvidia.com/v1beta1';
}

function report(what: string, results: { object: Obj; problems: readonly string[] }[]): number {
  let bad = 0;
  for (const r of results) {
    if (r.problems.length === 0) continue;
    bad++;
    fail(`${what}: ${refOf(r.object)}: ${r.problems.slice(0, 5).join('; ')}`);
  }
  return results.length - bad;
}

async function examplesAndMatrix(client: KubeClient, generation: (typeof GENERATIONS)[number]): Promise<void> {
  const crds = dynamoCrds(generation.crds);
  await installCrds(client, crds);
  // the examples of this generation, for real; the cluster-infra example's Namespace comes with it
  const own = examples().filter((e) => generationOf(e.objects as Obj[]) === generation.api);
  const objects = own.flatMap((e) => e.objects as Obj[]);
  const ordered = [...namespacesOf(objects).filter((n) => !objects.some((o) => o.kind === 'Namespace' && o.metadata.name === n.metadata.name)), ...objects];
  const applied = await applyAll(client, ordered, { dryRun: false });
  const ok = report(`${generation.api} examples`, applied);
  summary.push(`${generation.api}: ${ok}/${applied.length} objects of ${own.map((e) => e.source.replace('examples/', '')).join(', ')} applied and read back as sent`);
  // the later steps apply the same examples by other routes (Pulumi, the cdk8s CLI)
  await pool(objects.filter((o) => o.kind !== 'Namespace'), 8, (o) => client.delete(o));
  // the examples that take a release, at every release line of this generation, for real
  for (const line of generation.lines) {
    const version = LINE_VERSIONS[line];
    const namespace = `examples-${line.replace('.', '-')}`;
    const rendered: Obj[] = [];
    const refused: string[] = [];
    for (const [name, Chart] of Object.entries(VERSIONED_EXAMPLES)) {
      try {
        rendered.push(...Testing.synth(new Chart(Testing.app(), name, namespace, version)));
      } catch (e) {
        if (!(e instanceof DynamoValidationError)) throw e;
        refused.push(`${name} (${e.issues.map((i) => i.rule).join(', ')})`);
      }
    }
    const results = await applyAll(client, [...namespacesOf(rendered), ...rendered], { dryRun: false });
    const good = report(`Dynamo ${version} examples`, results);
    const made = Object.keys(VERSIONED_EXAMPLES).length - refused.length;
    summary.push(
      `  Dynamo ${version}: ` +
        (made > 0 ? `${good}/${results.length} objects of ${made} examples rendered for it applied and read back as sent` : 'no example rendered') +
        (refused.length > 0 ? `; refused by the library for this release: ${refused.join(', ')}` : ''),
    );
    await pool(rendered, 8, (o) => client.delete(o));
  }
  // every release line's matrix, as dry-runs (its graphs share names)
  for (const line of generation.lines) {
    const version = LINE_VERSIONS[line];
    const rendered = matrix(version).flatMap((r) => r.objects as Obj[]);
    await applyAll(client, namespacesOf(rendered), { dryRun: false });
    const results = await applyAll(client, rendered, { dryRun: true });
    const good = report(`Dynamo ${version} matrix`, results);
    summary.push(`  Dynamo ${version}: ${good}/${results.length} objects of the conformance matrix accepted by a dry-run and returned as sent`);
  }
  await removeCrds(client, crds);
}

async function brokenInputs(client: KubeClient): Promise<void> {
  const crds = dynamoCrds(GENERATIONS[1].crds);
  await installCrds(client, crds);
  let both = 0;
  let stricter = 0;
  for (const c of BROKEN) {
    let rule: string | undefined;
    try {
      c.refuse();
    } catch (e) {
      if (e instanceof DynamoValidationError) rule = e.issues.find((i) => i.rule === c.rule)?.rule ?? e.issues.map((i) => i.rule).join(',');
      else throw e;
    }
    if (rule !== c.rule) fail(`broken input "${c.name}": the library ${rule === undefined ? 'accepted it' : `refused it with ${rule}, not ${c.rule}`}`);
    const r = await client.apply(c.forced(), { dryRun: true });
    const refused = r.status < 200 || r.status >= 300;
    const message = String(r.body?.message ?? '');
    if ('refuses' in c.server) {
      if (!refused) fail(`broken input "${c.name}": the API server accepted the forced object`);
      else if (!message.includes(c.server.refuses)) fail(`broken input "${c.name}": the API server refused it with "${message}", expected "${c.server.refuses}"`);
      else both++;
    } else if (refused) {
      fail(`broken input "${c.name}": expected the API server to accept the forced object (${c.server.why}), it said "${message}"`);
    } else stricter++;
    log(`broken input "${c.name}": library ${rule ?? 'accepted'}; server ${refused ? `refused: ${message.slice(0, 200)}` : 'accepted'}`);
  }
  summary.push(`broken inputs: ${both} refused by the library and by the API server, ${stricter} refused by the library where the schema is looser`);
  await removeCrds(client, crds);
}

async function lintServer(kubeconfig: string, client: KubeClient): Promise<void> {
  const crds = dynamoCrds(GENERATIONS[1].crds);
  await installCrds(client, crds);
  const broken = BROKEN.map((c) => c.forced());
  const { stringify } = await import('yaml');
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'lint-server-'));
  try {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, broken.map((o) => stringify(o)).join('---\n'));
    const cli = join(__dirname, '..', '..', 'src', 'cli', 'main.ts');
    const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', cli, 'lint', '--crds', join(SHARED, 'crds-v1beta1'), '--server', '--kubeconfig', kubeconfig, '--format', 'json', file], {
      encoding: 'utf8',
      env: { ...process.env, TS_NODE_PROJECT: join(__dirname, '..', 'tsconfig.json') },
    });
    const out = JSON.parse(r.stdout) as { findings: { rule: string; path: string; document: number }[] };
    // a name outside Kubernetes' grammar is refused before it is sent
    const serverFound = new Set(out.findings.filter((f) => f.rule === 'server-rejected' || f.rule === 'server-not-sent').map((f) => f.document));
    const expected = BROKEN.filter((c) => 'refuses' in c.server).length;
    if (r.status !== 1 || serverFound.size < expected) fail(`lint --server: exit ${r.status}, ${serverFound.size} objects refused by the server, expected ${expected}:\n${r.stdout.slice(0, 2000)}${r.stderr.slice(0, 1000)}`);
    summary.push(`lint --server: ${serverFound.size} of the ${broken.length} forced objects refused by the API server, in lint's format (${out.findings.length} findings with the local rules')`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await removeCrds(client, crds);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const skip = new Set(args.includes('--skip') ? args[args.indexOf('--skip') + 1].split(',') : []);
  for (const line of Object.keys(RELEASES)) if (!LINE_VERSIONS[line]) throw new Error(`release line ${line} has no version in test/cluster/run.ts`);
  const built = spawnSync('bash', [join(__dirname, '..', '..', 'scripts', 'build-peers.sh'), skip.has('pulumi') ? 'control-plane' : 'all'], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`scripts/build-peers.sh failed (exit ${built.status})`);
  const started = Date.now();
  const cluster = await startCluster();
  // the suite applies, reads and deletes for real
  const client = new KubeClient(loadKubeconfig(cluster.kubeconfig), { access: 'read-write' });
  try {
    const stack = [...yamlObjects(join(CRDS, 'prometheus-operator')), ...yamlObjects(join(CRDS, 'flux'))];
    await installCrds(client, stack);
    summary.push(`CRDs of the cluster stack: ${stack.map((c) => c.spec.names.kind).join(', ')}`);
    for (const generation of GENERATIONS) await examplesAndMatrix(client, generation);
    await brokenInputs(client);
    await lintServer(cluster.kubeconfig, client);
    if (!skip.has('pulumi')) {
      const crds = dynamoCrds(GENERATIONS[1].crds);
      await installCrds(client, crds);
      for (const line of await pulumiStep(cluster, client, fail)) summary.push(line);
      await removeCrds(client, crds);
    }
    if (!skip.has('cdk8s-cli')) {
      const crds = dynamoCrds(GENERATIONS[1].crds);
      await installCrds(client, crds);
      for (const line of await cdk8sCliStep(client, fail)) summary.push(line);
    }
  } finally {
    client.close();
    await cluster.stop();
  }
  const left = stillRunning();
  if (left.length > 0) fail(`processes left running after the cluster stopped: ${left.join(', ')}`);
  summary.push(`etcd, kube-apiserver and kube-controller-manager stopped; ${left.length} processes left running`);
  for (const s of summary) process.stdout.write(`${s}\n`);
  process.stdout.write(`${failures} failure${failures === 1 ? '' : 's'} (${((Date.now() - started) / 1000).toFixed(0)} s with the cluster up)\n`);
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`cluster: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 2;
  },
);
