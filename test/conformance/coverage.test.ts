/**
 * The conformance matrix reaches every flag, and every value of an enumerated
 * flag, that realistic options put on a command line: a large sample of the
 * fuzz tests' sensible deployments (another seed than the conformance run's)
 * renders no flag and no mounted file the matrix and the examples do not.
 * (Environment names are the user's; the checker applies them as given.)
 */
import { DEFAULT_DYNAMO_VERSION, RELEASES } from '../../src';
import { examples, matrix, Rendered, sample } from './matrix';
import { processesOf } from './processes';

/** Flags whose value selects behaviour: the value is part of what must be covered. */
const ENUMERATED = new Set(['--router-mode', '--disaggregation-mode', '--disaggregation-transfer-backend', '--kv-cache-dtype', '--load-predictor', '--connector', '--environment', '--backend']);

function features(rendered: readonly Rendered[]): Set<string> {
  const out = new Set<string>();
  for (const p of processesOf('coverage', rendered.flatMap((r) => r.objects), DEFAULT_DYNAMO_VERSION)) {
    const line = p.dynamoVersion.split('.').slice(0, 2).join('.');
    const argv = p.process === 'dgdr-planner' ? Object.keys(p.config ?? {}).map((k) => `--${k}`) : p.argv;
    argv.forEach((a, i) => {
      if (!a.startsWith('--')) return;
      const [flag, inline] = a.split('=');
      out.add(`${line} ${p.module} ${flag}`);
      const value = inline ?? argv[i + 1];
      if (ENUMERATED.has(flag)) out.add(`${line} ${p.module} ${flag}=${value}`);
    });
    for (const file of Object.keys(p.files)) out.add(`${line} ${p.module} file ${file}`);
  }
  return out;
}

test('the matrix covers every flag and enumerated value a sample of sensible deployments renders', () => {
  const covered = features([...examples(), ...Object.keys(RELEASES).flatMap((line) => matrix(`${line}.0`))]);
  const sampled = features(sample(7, 400));
  expect(sampled.size).toBeGreaterThan(50);
  expect([...sampled].filter((f) => !covered.has(f)).sort()).toEqual([]);
});
