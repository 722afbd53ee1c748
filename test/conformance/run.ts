/**
 * `npm run conformance`: every process the library configures, checked by the
 * argument parsing of the Dynamo release it runs.
 *
 *   npm run conformance                      # examples, matrix, sample, negative controls; every release line
 *   npm run conformance -- --release 0.9     # one line
 *   npm run conformance -- path/to/dgd.yaml  # also check these manifests (each process must start)
 *
 * For each release line the pinned ai-dynamo release is installed into a
 * cached virtualenv (test/conformance/venv.ts), the cases are written to a
 * file and checker/check.py runs them through Dynamo's own parsers. A failure
 * names the release, the service, the flag and Dynamo's own error line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Dashboards, dashboardQueries, DEFAULT_DYNAMO_VERSION, ledgerFor, RELEASES, renderSlaAlerts, UPGRADE_LEDGER } from '../../src/core/internal';
import { metricNames } from '../support/promql';
import { examples, matrix, Rendered, sample } from './matrix';
import { Process, processesOf } from './processes';
import { ensureVenv, RUN_DIR } from './venv';

const HERE = __dirname;
// the examples' and the matrix's warnings are the unit tests' business
process.env.DYNAMO_CONSTRUCTS_QUIET ??= '1';
const SAMPLE_SEED = 20261201;
const SAMPLE_SIZE = 60;

interface LineConfig {
  readonly dynamo: string;
  readonly python: string;
  readonly install: readonly string[];
  readonly installNoDeps?: readonly string[];
  readonly parsers: Readonly<Record<string, string>>;
  /** Classes (`module:Class`) whose instances register the release's metrics. */
  readonly metrics: readonly string[];
}

/** A process to check, and what Dynamo must say about it. */
export interface Case extends Process {
  /** A substring of Dynamo's error the process must fail with (negative controls); undefined: it must start. */
  readonly expectError?: string;
}

interface Result {
  readonly status: 'ok' | 'error';
  readonly error?: string;
  readonly checks?: readonly string[];
  /** What Dynamo warned the process's flags are deprecated for. */
  readonly deprecations?: readonly string[];
}

/** What the checker says of the metric names the dashboards and alerts read. */
interface MetricsResult {
  readonly catalog: number;
  readonly unknown: Readonly<Record<string, readonly string[]>>;
}

/** The metric names each dashboard and alert rule reads when built for `version`. */
function queriedMetrics(version: string): Record<string, string[]> {
  const sla = { ttftMs: 300, itlMs: 30 };
  const names = (exprs: readonly string[]) => [...new Set(exprs.flatMap(metricNames))].sort();
  const alerts = renderSlaAlerts({ graphName: 'g', frontendService: 'Frontend', plannerService: 'Planner', sla, dynamoVersion: version }, {}) as unknown as {
    spec: { groups: { rules: { expr: string }[] }[] };
  };
  return {
    'serving dashboard': names(dashboardQueries(Dashboards.serving({ sla, dynamoVersion: version }))),
    'planner dashboard': names(dashboardQueries(Dashboards.planner({ sla, dynamoVersion: version }))),
    'SLA alerts': names(alerts.spec.groups.flatMap((g) => g.rules.map((r) => r.expr))),
  };
}

const log = (line: string) => process.stderr.write(`conformance: ${line}\n`);

function lineOf(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

function readReleases(): Record<string, LineConfig> {
  return JSON.parse(readFileSync(join(HERE, 'releases.json'), 'utf8')).lines;
}

function readManifests(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJSON()).filter((o) => o !== null);
}

/** Negative controls: manifests a header comment says Dynamo must reject, and with what. */
function negativeControls(): Case[] {
  const dir = join(HERE, 'fixtures');
  const cases: Case[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const text = readFileSync(join(dir, file), 'utf8');
    const expectations = new Map<string, string>();
    for (const m of text.matchAll(/^# conformance-expect: (\S+): (.+)$/gm)) expectations.set(m[1], m[2].trim());
    if (expectations.size === 0) throw new Error(`fixtures/${file}: no "# conformance-expect: <service>: <error>" line`);
    const processes = processesOf(`fixtures/${basename(file, '.yaml')}`, readManifests(join(dir, file)), DEFAULT_DYNAMO_VERSION);
    for (const [service, error] of expectations) {
      const p = processes.find((x) => x.id.endsWith(`/${service}`));
      if (!p) throw new Error(`fixtures/${file}: no service ${service}`);
      cases.push({ ...p, expectError: error });
    }
  }
  return cases;
}

/**
 * The upgrade ledger's flags, each run through the parsers of every release line it
 * applies to: appended to a command line the library renders for that line, a removed
 * flag must be refused (Dynamo's error naming it) and a deprecated one accepted.
 */
function ledgerControls(line: string, rendered: readonly Process[]): Case[] {
  const release = RELEASES[line];
  const cases: Case[] = [];
  for (const module of [...new Set(UPGRADE_LEDGER.flatMap((e) => e.modules))].sort()) {
    const base = rendered.find((p) => p.module === module);
    if (!base) continue;
    for (const e of ledgerFor(release, module).filter((x) => x.sample !== undefined)) {
      cases.push({
        ...base,
        id: `ledger/${line}/${module}/${e.sample![0]}`,
        argv: [...base.argv, ...e.sample!],
        expectError: e.change === 'removed' ? e.sample![0] : undefined,
      });
    }
  }
  return cases;
}

function casesOf(rendered: readonly Rendered[]): Process[] {
  return rendered.flatMap((r) => processesOf(r.source, r.objects, DEFAULT_DYNAMO_VERSION));
}

/** The engine halves a line's checker stands in for, from the versions table. */
function engineTables(line: string): Record<string, string> {
  const engines = RELEASES[line].engines;
  const tables: Record<string, string> = {};
  for (const engine of ['vllm', 'sglang'] as const) {
    const file = `engines/${engine}-${engines[engine].version}.json`;
    if (!existsSync(join(HERE, file))) throw new Error(`${file} is missing: generate it with test/conformance/engines/generate.sh ${engine} ${engines[engine].version}`);
    tables[engine] = file;
  }
  return tables;
}

function check(
  line: string,
  config: LineConfig,
  cases: readonly Case[],
): { results: Record<string, Result>; standIns: Record<string, string>; metrics: MetricsResult; queried: Record<string, string[]> } {
  const python = ensureVenv(config.dynamo, config.python, config.install, log, config.installNoDeps);
  mkdirSync(RUN_DIR, { recursive: true });
  const casesFile = join(RUN_DIR, `cases-${config.dynamo}.json`);
  const resultsFile = join(RUN_DIR, `results-${config.dynamo}.json`);
  const release = { dynamo: config.dynamo, parsers: config.parsers, engines: engineTables(line), metrics: config.metrics };
  const queried = queriedMetrics(config.dynamo);
  writeFileSync(casesFile, JSON.stringify({ release, cases, metrics: queried }, null, 1));
  const started = Date.now();
  const r = spawnSync(python, [join(HERE, 'checker', 'check.py'), casesFile, resultsFile], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`the checker of Dynamo ${config.dynamo} failed (exit ${r.status}):\n${r.stderr}`);
  const out = JSON.parse(readFileSync(resultsFile, 'utf8'));
  log(`Dynamo ${config.dynamo}: ${cases.length} processes parsed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { ...out, queried };
}

/** What went wrong with one case, or undefined. */
function verdict(c: Case, r: Result | undefined): string | undefined {
  if (!r) return 'no result';
  if (c.expectError === undefined) return r.status === 'ok' ? undefined : r.error;
  if (r.status === 'ok') return `Dynamo accepted a command line it must reject with "${c.expectError}"`;
  return r.error?.includes(c.expectError) ? undefined : `rejected with "${r.error}", expected "${c.expectError}"`;
}

function flagsOf(argv: readonly string[]): string {
  return argv.join(' ');
}

function main(): number {
  const args = process.argv.slice(2);
  const onlyLine = args.includes('--release') ? args[args.indexOf('--release') + 1] : undefined;
  const files = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--release');
  const releases = readReleases();
  for (const line of Object.keys(RELEASES)) {
    if (!releases[line]) throw new Error(`release line ${line} is in src/core/versions.ts but not in test/conformance/releases.json`);
  }

  const byLine = new Map<string, Case[]>();
  const add = (c: Case) => {
    const line = lineOf(c.dynamoVersion);
    if (!releases[line]) throw new Error(`${c.id}: runs Dynamo ${c.dynamoVersion}, a release line the suite does not install`);
    if (!byLine.has(line)) byLine.set(line, []);
    byLine.get(line)!.push(c);
  };
  for (const c of casesOf(examples())) add(c);
  for (const line of Object.keys(releases)) {
    const rendered = casesOf(matrix(releases[line].dynamo));
    for (const c of rendered) add(c);
    for (const c of ledgerControls(line, rendered)) add(c);
  }
  for (const c of casesOf(sample(SAMPLE_SEED, SAMPLE_SIZE))) add(c);
  for (const c of negativeControls()) add(c);
  for (const file of files) for (const c of processesOf(file, readManifests(resolve(file)), DEFAULT_DYNAMO_VERSION)) add(c);

  let failures = 0;
  const summary: string[] = [];
  for (const [line, cases] of [...byLine.entries()].sort()) {
    if (onlyLine !== undefined && line !== onlyLine) continue;
    const config = releases[line];
    const { results, standIns, metrics, queried } = check(line, config, cases);
    let lines = 0;
    let configs = 0;
    let controls = 0;
    const deprecations = new Map<string, number>();
    for (const c of cases) {
      const r = results[c.id];
      const problem = verdict(c, r);
      if (problem === undefined) {
        if (c.expectError !== undefined) controls++;
        else lines++;
        configs += r?.checks?.length ?? 0;
        for (const m of r?.deprecations ?? []) deprecations.set(m, (deprecations.get(m) ?? 0) + 1);
      } else {
        failures++;
        process.stdout.write(`FAIL Dynamo ${config.dynamo} ${c.id} (python3 -m ${c.module} ${flagsOf(c.argv)}): ${problem}\n`);
      }
    }
    for (const [source, unknown] of Object.entries(metrics.unknown)) {
      failures++;
      process.stdout.write(`FAIL Dynamo ${config.dynamo} ${source} reads metrics the release does not define: ${unknown.join(', ')}\n`);
    }
    const metricCount = new Set(Object.values(queried).flat()).size;
    const engines = Object.values(standIns).join('; ');
    summary.push(
      `Dynamo ${config.dynamo}: ${lines} command lines and ${configs} configs accepted, ${controls} negative controls rejected as expected, ` +
        `${metricCount} metric names of the dashboards and alerts found among the ${metrics.catalog} the release defines (${engines})`,
    );
    // the library warns about these options on this release; Dynamo's own words, for the record
    for (const [message, count] of [...deprecations.entries()].sort()) summary.push(`  deprecated in ${config.dynamo} (${count} command lines): ${message}`);
  }
  for (const s of summary) process.stdout.write(`${s}\n`);
  process.stdout.write(`${failures} failure${failures === 1 ? '' : 's'}\n`);
  return failures === 0 ? 0 : 1;
}

if (require.main === module) {
  try {
    process.exitCode = main();
  } catch (e) {
    process.stderr.write(`conformance: ${(e as Error).message}\n`);
    process.exitCode = 2;
  }
}
