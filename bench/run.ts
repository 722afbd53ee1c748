import { spawnSync } from 'child_process';
import * as os from 'os';
import * as path from 'path';
import { buildSync } from 'esbuild';

/**
 * `npm run bench`: the library against the floor (the same final objects
 * through cdk8s or Pulumi alone), each measurement in a fresh process, the
 * two alternated, medians reported; then import costs. Prints Markdown.
 */

const ROOT = path.resolve(__dirname, '..');
const HERE = path.join(ROOT, '.bench');

// The measured programs import the built package (`dynamo-constructs/...`, lib/), as users do.
buildSync({
  absWorkingDir: ROOT,
  entryPoints: ['bench/cdk8s.ts', 'bench/pulumi.ts', 'bench/imports.ts'],
  outdir: HERE,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  logLevel: 'warning',
});
const SIZES = (process.env.BENCH_SIZES ?? '10,100,1000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

interface Sample {
  readonly ms: number;
  readonly rssMiB: number;
}

function measure(script: string, args: string[]): Sample {
  const run = spawnSync(process.execPath, [path.join(HERE, script), ...args], {
    encoding: 'utf8',
    env: { ...process.env, DYNAMO_CONSTRUCTS_QUIET: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`${script} ${args.join(' ')} failed:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fixed = (x: number, digits = 0) => x.toFixed(digits);

function compare(title: string, script: string): void {
  const rows: { n: number; lib: number; structure: number; floor: number; libRss: number; floorRss: number }[] = [];
  for (const n of SIZES) {
    const samples: Record<string, Sample[]> = { library: [], structure: [], floor: [] };
    // alternate, so that machine noise hits all alike
    for (let r = 0; r < RUNS; r++) {
      for (const mode of Object.keys(samples)) samples[mode].push(measure(script, [mode, String(n)]));
    }
    const ms = (mode: string) => median(samples[mode].map((s) => s.ms));
    const rss = (mode: string) => Math.max(...samples[mode].map((s) => s.rssMiB));
    rows.push({ n, lib: ms('library'), structure: ms('structure'), floor: ms('floor'), libRss: rss('library'), floorRss: rss('floor') });
  }
  console.log(`\n### ${title}\n`);
  console.log('| N | library ms | floor ms | **library / floor** | structure ms | structure / floor | library growth N -> 10N | floor growth N -> 10N | peak RSS library / floor (MiB) |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const next = rows.find((x) => x.n === r.n * 10);
    const growth = (a: number | undefined, b: number) => (a === undefined ? '' : `${fixed(a / b, 1)}x`);
    console.log(
      `| ${r.n} | ${fixed(r.lib)} | ${fixed(r.floor)} | **${fixed(r.lib / r.floor, 2)}** | ${fixed(r.structure)} | ${fixed(r.structure / r.floor, 2)} | ${growth(next?.lib, r.lib)} | ${growth(next?.floor, r.floor)} | ${r.libRss} / ${r.floorRss} |`,
    );
  }
}

function imports(): void {
  const entries = ['core', 'cdk8s', 'cdk8s-shell', 'pulumi', 'pulumi-shell'];
  const results = entries.map((entry) => {
    const samples = Array.from({ length: RUNS }, () => measure('imports.js', [entry]) as Sample & { modules: string[] });
    return { entry, ms: median(samples.map((s) => s.ms)), modules: samples[0].modules };
  });
  const ms = (entry: string) => results.find((r) => r.entry === entry)!.ms;
  console.log('\n### Imports (fresh process, median)\n');
  console.log('| require | ms | engine packages loaded |');
  console.log('|---|---:|---|');
  const label: Record<string, string> = {
    'core': "`dynamo-constructs`",
    'cdk8s': "`cdk8s` + `constructs` (the floor)",
    'cdk8s-shell': "`dynamo-constructs/cdk8s`",
    'pulumi': "`@pulumi/pulumi` + `@pulumi/kubernetes` (the floor)",
    'pulumi-shell': "`dynamo-constructs/pulumi`",
  };
  for (const r of results) console.log(`| ${label[r.entry]} | ${fixed(r.ms)} | ${r.modules.length ? r.modules.join(', ') : 'none'} |`);
  console.log(`\ncdk8s entry point / cdk8s itself: ${fixed(ms('cdk8s-shell') / ms('cdk8s'), 2)}; Pulumi entry point / Pulumi itself: ${fixed(ms('pulumi-shell') / ms('pulumi'), 2)}`);
}

console.log(`Node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${RUNS} runs per cell`);
const only = process.env.BENCH_ONLY;
if (!only || only === 'cdk8s') compare('cdk8s: `app.synthYaml()` of N deployments in one chart', 'cdk8s.js');
if (!only || only === 'pulumi') compare('Pulumi (mocks): N deployments registered', 'pulumi.js');
if (!only || only === 'imports') imports();
