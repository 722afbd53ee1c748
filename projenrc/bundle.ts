import * as fs from 'fs';
import * as path from 'path';
import { buildSync } from 'esbuild';

/**
 * Build step: one CommonJS bundle per entry point, so that importing the
 * library loads a handful of files instead of one per source module. The
 * core is one bundle (`core/internal.js`, everything the core holds); the
 * core's public entry (`core/index.js`) re-exports its names from it, and the
 * shells and the command line load it rather than a copy: there is one
 * `Backend`, one `DynamoValidationError`, whatever entry points a program
 * mixes. Packages stay external. Type declarations come from tsc.
 */
export const ENTRY_POINTS: Readonly<Record<string, string>> = {
  'src/index.ts': 'index.js',
  'src/core/internal.ts': 'core/internal.js',
  'src/core/index.ts': 'core/index.js',
  'src/cdk8s/index.ts': 'cdk8s/index.js',
  'src/pulumi/index.ts': 'pulumi/index.js',
  'src/cli/main.ts': 'cli/main.js',
};

/** Bundles every entry point of the repository at `root` into `outdir`. */
export function bundle(root: string, outdir: string): void {
  for (const [entry, out] of Object.entries(ENTRY_POINTS)) {
    // the core's public entry holds only re-exports: its bundle takes each name from the one core bundle
    const publicCore = entry === 'src/core/index.ts';
    buildSync({
      absWorkingDir: root,
      ...(publicCore
        ? { stdin: { contents: fs.readFileSync(path.join(root, entry), 'utf8').replace(/from '\.\/[^']+'/g, "from './internal'"), loader: 'ts' as const, resolveDir: path.join(root, 'src/core'), sourcefile: entry } }
        : { entryPoints: [entry] }),
      outfile: path.join(outdir, out),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      packages: 'external',
      // the package entry re-exports ./core; the shells and the command line reach the core through ../core and ../core/internal
      external: entry === 'src/index.ts' ? ['./core'] : publicCore ? ['./internal'] : entry === 'src/core/internal.ts' ? [] : ['../core', '../core/internal'],
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
