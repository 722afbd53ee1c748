import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { finalObjects, peakRssMiB } from './fleet';

/**
 * One measurement, in a fresh process: `node lint.js <N>` writes the fleet's N graphs and their
 * claims to one file (once; before the clock), then times `dynamo-constructs lint --format json`
 * on it, run in-process from the built command line (lib/cli/main.js, the bundled CRDs), and
 * prints `{ ms, rssMiB, digest }`. `digest` is the report's summary and rules, so the runner can
 * check every round found the same.
 */

const n = Number(process.argv[2]);
const ROOT = path.resolve(__dirname, '..');
const file = path.join(__dirname, `lint-${n}.yaml`);
if (!fs.existsSync(file)) {
  const docs = Array.from({ length: n }, (_, i) => finalObjects(i)).flat();
  fs.writeFileSync(`${file}.tmp`, docs.map((d) => YAML.stringify(d)).join('---\n'));
  fs.renameSync(`${file}.tmp`, file);
}
// the command as published, loaded before the clock: import time is measured on its own
const cli = require(path.join(ROOT, 'lib/cli/main.js')) as typeof import('../src/cli/main');

let stdout = '';
const start = process.hrtime.bigint();
const status = cli.run(['lint', '--format', 'json', file], { stdout: (t) => (stdout += t), stderr: () => undefined, stdin: () => '' });
const ms = Number(process.hrtime.bigint() - start) / 1e6;
if (typeof status !== 'number') throw new Error('lint without --server runs synchronously');
const report = JSON.parse(stdout) as { findings: { rule: string }[]; summary: { files: number; errors: number; warnings: number } };
const rules = [...new Set(report.findings.map((f) => f.rule))].sort();
const digest = createHash('sha256').update(JSON.stringify({ status, summary: report.summary, rules })).digest('hex');
process.stdout.write(`${JSON.stringify({ ms, rssMiB: peakRssMiB(), digest, findings: report.findings.length, bytes: fs.statSync(file).size })}\n`);
