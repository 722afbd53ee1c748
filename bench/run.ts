import { spawnSync } from 'child_process';
import * as os from 'os';
import * as path from 'path';
import { buildSync } from 'esbuild';

/**
 * `npm run bench`: the library against the floor (the same final objects
 * through cdk8s or Pulumi alone) and its own construct tree left empty, each
 * measurement in a fresh process, the modes rotated each round, medians and
 * per-round ratios reported; every mode must produce the same objects. Then
 * import costs, and how `dynamo-constructs lint` grows with its input. Prints
 * Markdown.
 */

const ROOT = path.resolve(__dirname, '..');
const HERE = path.join(ROOT, '.bench');

// The measured programs import the built package (`dynamo-constructs/...`, lib/), as users do.
buildSync({
  absWorkingDir: ROOT,
  entryPoints: ['bench/cdk8s.ts', 'bench/pulumi.ts', 'bench/imports.ts', 'bench/lint.ts'],
  outdir: HERE,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  logLevel: 'warning',
});
const SIZES = (process.env.BENCH_SIZES ?? '10,100,1000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const LINT_SIZES = (process.env.BENCH_LINT_SIZES ?? '1,1000,8000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const LINT_RUNS = Number(process.env.BENCH_LINT_RUNS ?? 3);

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
/** `items` started at position `r`: each round runs the modes in another order. */
const rotate = <T>(items: readonly T[], r: number): T[] => items.map((_, i) => items[(i + r) % items.length]);
/** Median of paired per-round ratios, with their range. */
function ratio(a: readonly number[], b: readonly number[]): string {
  const rs = a.map((x, i) => x / b[i]);
  return `**${fixed(median(rs), 2)}** (${fixed(Math.min(...rs), 2)}-${fixed(Math.max(...rs), 2)})`;
}

const MODES = ['library', 'floor', 'structure'] as const;

function compare(title: string, script: string): void {
  const rows: { n: number; ms: Record<string, number[]>; rss: Record<string, number> }[] = [];
  for (const n of SIZES) {
    const ms: Record<string, number[]> = { library: [], floor: [], structure: [] };
    const rss: Record<string, number> = { library: 0, floor: 0, structure: 0 };
    const digests = new Set<string>();
    for (let r = 0; r < RUNS; r++) {
      // every round in another order, so that drift in the machine hits all modes alike
      for (const mode of rotate(MODES, r)) {
        const s = measure(script, [mode, String(n)]) as Sample & { digest: string };
        ms[mode].push(s.ms);
        rss[mode] = Math.max(rss[mode], s.rssMiB);
        digests.add(s.digest);
      }
    }
    if (digests.size !== 1) throw new Error(`${script} N=${n}: the modes produced different objects (${digests.size} digests); the comparison would be meaningless`);
    rows.push({ n, ms, rss });
  }
  console.log(`\n### ${title}\n`);
  console.log('| N | library ms | floor ms | **library / floor** (range) | structure ms | structure / floor (range) | library growth N -> 10N | floor growth N -> 10N | peak RSS library / floor (MiB) |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const next = rows.find((x) => x.n === r.n * 10);
    const growth = (mode: string) => (next === undefined ? '' : `${fixed(median(next.ms[mode]) / median(r.ms[mode]), 1)}x`);
    console.log(
      `| ${r.n} | ${fixed(median(r.ms.library))} | ${fixed(median(r.ms.floor))} | ${ratio(r.ms.library, r.ms.floor)} | ${fixed(median(r.ms.structure))} | ${ratio(r.ms.structure, r.ms.floor)} | ${growth('library')} | ${growth('floor')} | ${r.rss.library} / ${r.rss.floor} |`,
    );
  }
}

function imports(): void {
  const entries = ['core', 'cdk8s', 'cdk8s-shell', 'pulumi', 'pulumi-shell'];
  const ms: Record<string, number[]> = Object.fromEntries(entries.map((e) => [e, []]));
  const modules: Record<string, string[]> = {};
  for (let r = 0; r < RUNS; r++) {
    for (const entry of rotate(entries, r)) {
      const s = measure('imports.js', [entry]) as Sample & { modules: string[] };
      ms[entry].push(s.ms);
      modules[entry] = s.modules;
    }
  }
  console.log('\n### Imports (fresh process, median)\n');
  console.log('| require | ms | engine packages loaded |');
  console.log('|---|---:|---|');
  const label: Record<string, string> = {
    'core': '`dynamo-constructs`',
    'cdk8s': '`cdk8s` + `constructs` (the floor)',
    'cdk8s-shell': '`dynamo-constructs/cdk8s`',
    'pulumi': '`@pulumi/pulumi` + `@pulumi/kubernetes` (the floor)',
    'pulumi-shell': '`dynamo-constructs/pulumi`',
  };
  for (const e of entries) console.log(`| ${label[e]} | ${fixed(median(ms[e]))} | ${modules[e].length ? modules[e].join(', ') : 'none'} |`);
  console.log(`\ncdk8s entry point / cdk8s itself: ${ratio(ms['cdk8s-shell'], ms.cdk8s)}; Pulumi entry point / Pulumi itself: ${ratio(ms['pulumi-shell'], ms.pulumi)}`);
}

/**
 * `dynamo-constructs lint` on one file of N graphs (each with its claim), the sizes rotated each
 * round: the time must grow with N, not with N squared. The growth is read between the two
 * largest sizes (one graph shows what every run pays whatever its input: loading the command and
 * compiling the CRD schemas). Linear is the ratio of the sizes; the target allows a quarter more
 * (10 for 1,000 -> 8,000 graphs).
 */
function lint(): void {
  const ms: Record<number, number[]> = Object.fromEntries(LINT_SIZES.map((n) => [n, []]));
  const rss: Record<number, number> = Object.fromEntries(LINT_SIZES.map((n) => [n, 0]));
  const shape: Record<number, { findings: number; bytes: number }> = {};
  const digests: Record<number, Set<string>> = Object.fromEntries(LINT_SIZES.map((n) => [n, new Set<string>()]));
  for (let r = 0; r < LINT_RUNS; r++) {
    for (const n of rotate(LINT_SIZES, r)) {
      const s = measure('lint.js', [String(n)]) as Sample & { digest: string; findings: number; bytes: number };
      ms[n].push(s.ms);
      rss[n] = Math.max(rss[n], s.rssMiB);
      shape[n] = { findings: s.findings, bytes: s.bytes };
      digests[n].add(s.digest);
    }
  }
  for (const n of LINT_SIZES) if (digests[n].size !== 1) throw new Error(`lint N=${n}: the rounds found different things (${digests[n].size} digests)`);
  console.log(`\n### \`dynamo-constructs lint\`: one file of N graphs and their claims (median of ${LINT_RUNS} rounds)\n`);
  console.log('| graphs | file MiB | ms | ms per graph | peak RSS (MiB) | findings |');
  console.log('|---:|---:|---:|---:|---:|---:|');
  for (const n of LINT_SIZES) {
    console.log(`| ${n} | ${fixed(shape[n].bytes / 2 ** 20, 2)} | ${fixed(median(ms[n]))} | ${fixed(median(ms[n]) / n, 2)} | ${rss[n]} | ${shape[n].findings} |`);
  }
  if (LINT_SIZES.length > 1) {
    const [lo, hi] = LINT_SIZES.slice(-2);
    const growth = median(ms[hi]) / median(ms[lo]);
    const linear = hi / lo;
    const verdict = growth <= 1.25 * linear ? 'met' : '**not met**';
    console.log(`\n${lo} -> ${hi} graphs: time x${fixed(growth, 1)} (rounds: ${ratio(ms[hi], ms[lo])}); linear is x${fixed(linear, 1)}, the target at most x${fixed(1.25 * linear, 1)}: ${verdict}`);
  }
}

console.log(`Node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${RUNS} runs per cell, modes rotated each round; ratios are medians of per-round ratios`);
const only = process.env.BENCH_ONLY;
if (!only || only === 'cdk8s') compare('cdk8s: `app.synthYaml()` of N deployments in one chart', 'cdk8s.js');
if (!only || only === 'pulumi') compare('Pulumi (mocks): N deployments registered', 'pulumi.js');
if (!only || only === 'imports') imports();
if (!only || only === 'lint') lint();
