#!/usr/bin/env node
import { CliIo } from './args';
import { runLint, USAGE } from './lint/command';
import { runRehearse } from './rehearse/command';
import { readAtMost } from './sources';

export { CliIo } from './args';
export { BUNDLED_CRDS, bundleCrds } from './lint/command';

/**
 * Runs the command line; returns the exit status (a promise of it with `--server`, which
 * asks the API server).
 */
export function run(argv: readonly string[], io: CliIo): number | Promise<number> {
  if (argv[0] === '-h' || argv[0] === '--help' || argv.length === 0) {
    (argv.length === 0 ? io.stderr : io.stdout)(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === 'rehearse') return runRehearse(argv.slice(1), io);
  if (argv[0] === 'lint') return runLint(argv.slice(1), io);
  io.stderr(`unknown command ${JSON.stringify(argv[0])}\n\n${USAGE}`);
  return 2;
}

if (require.main === module) {
  void Promise.resolve(
    run(process.argv.slice(2), {
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
      stdin: (maxBytes?: number) => readAtMost(0, maxBytes ?? Number.MAX_SAFE_INTEGER).toString('utf8'),
    }),
  ).then((status) => {
    process.exitCode = status;
  });
}
