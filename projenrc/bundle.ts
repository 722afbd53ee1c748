import * as path from 'path';
import { buildSync } from 'esbuild';

/**
 * Build step: one CommonJS bundle per entry point, so that importing the
 * library loads a handful of files instead of one per source module. The
 * shells and the command line load the core bundle (`../core`) rather than
 * a copy of it: there is one `Backend`, one `DynamoValidationError`, whatever
 * entry points a program mixes. Packages stay external. Type declarations
 * come from tsc.
 */
export const ENTRY_POINTS: Readonly<Record<string, string>> = {
  'src/index.ts': 'index.js',
  'src/core/index.ts': 'core/index.js',
  'src/cdk8s/index.ts': 'cdk8s/index.js',
  'src/pulumi/index.ts': 'pulumi/index.js',
  'src/cli/main.ts': 'cli/main.js',
};

/** Bundles every entry point of the repository at `root` into `outdir`. */
export function bundle(root: string, outdir: string): void {
  for (const [entry, out] of Object.entries(ENTRY_POINTS)) {
    buildSync({
      absWorkingDir: root,
      entryPoints: [entry],
      outfile: path.join(outdir, out),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      packages: 'external',
      // the core entry re-exports ./core; everything else reaches the core through ../core
      external: entry === 'src/index.ts' ? ['./core'] : entry === 'src/core/index.ts' ? [] : ['../core'],
      sourcemap: true,
      // esbuild renames a class that refers to itself (`_DynamoValidationError`) unless told to keep
      // names: errors would print under the renamed class, and `constructor.name` would not match
      keepNames: true,
      logLevel: 'warning',
    });
  }
}

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  bundle(root, path.join(root, process.argv[2] ?? 'lib'));
}
