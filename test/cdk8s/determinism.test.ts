import { execFileSync } from 'child_process';
import * as path from 'path';

/**
 * Same program, byte-identical YAML: every example synthesized in two fresh
 * processes (so no state, hash seed or ordering can leak between them).
 */
test('two separate processes synthesize byte-identical YAML', () => {
  const root = path.resolve(__dirname, '../..');
  const run = () =>
    execFileSync(
      process.execPath,
      [require.resolve('ts-node/dist/bin'), '--transpile-only', '-r', 'tsconfig-paths/register', '--project', 'test/tsconfig.json', 'test/support/print-examples.ts'],
      { cwd: root, env: { ...process.env, DYNAMO_CONSTRUCTS_QUIET: '1' }, encoding: 'utf8' },
    );
  const first = run();
  expect(first).toContain('kind: DynamoGraphDeployment');
  expect(first).toContain('kind: DynamoGraphDeploymentRequest');
  expect(run()).toBe(first);
}, 60_000);
