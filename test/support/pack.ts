import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { bundle } from '../../projenrc/bundle';
import { CRD_DIR, CRD_V1BETA1_DIR } from './crd';

const root = path.resolve(__dirname, '../..');
export const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * Builds the library as `npx projen compile && npx projen post-compile` does (declarations,
 * one bundle per entry point, the lint command's CRD schemas) into `<work>/pkg`, beside the
 * files the package ships from the repository, packs it, and returns the tarball's path.
 */
export function packLibrary(work: string): string {
  const pkg = path.join(work, 'pkg');
  fs.mkdirSync(pkg);
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json', '--emitDeclarationOnly', '--outDir', path.join(pkg, 'lib')], { cwd: root });
  bundle(root, path.join(pkg, 'lib'));
  execFileSync(process.execPath, ['-e', `require(${JSON.stringify(path.join(pkg, 'lib/cli/main'))}).bundleCrds(${JSON.stringify(CRD_DIR)}, ${JSON.stringify(CRD_V1BETA1_DIR)})`], {
    env: { ...process.env, NODE_PATH: path.join(root, 'node_modules') },
  });
  // and what the package ships beside lib/ (README, license, scripts), as npm lists it
  const listing = JSON.parse(execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }))[0] as { files: { path: string }[] };
  for (const { path: f } of listing.files.filter((x) => !x.path.startsWith('lib/'))) {
    fs.mkdirSync(path.dirname(path.join(pkg, f)), { recursive: true });
    fs.copyFileSync(path.join(root, f), path.join(pkg, f));
  }
  // built above: the package's own prepack (a build with projen, which is not here) is not run
  const out = execFileSync(npm, ['pack', '--silent', '--ignore-scripts'], { cwd: pkg, encoding: 'utf8' }).trim().split('\n').pop()!;
  return path.join(pkg, out);
}

/**
 * A fresh checkout of the repository as it stands: every file git would commit (tracked, or new and
 * not ignored), so no node_modules, no lib/ and no caches; in CI's clean clone, exactly a clone. It is
 * made beside the repository, where `../shared` (the CRDs the build bundles) resolves as it does for
 * the repository. The caller removes it.
 */
export function freshCheckout(): string {
  const dest = fs.mkdtempSync(path.join(path.dirname(root), 'pack-clone-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0');
  for (const f of files) {
    const from = path.join(root, f);
    // deleted in the working tree but not yet in git, or a link to a folder (a node_modules of another tree)
    if (f === '' || !fs.statSync(from, { throwIfNoEntry: false })?.isFile()) continue;
    fs.mkdirSync(path.dirname(path.join(dest, f)), { recursive: true });
    fs.copyFileSync(from, path.join(dest, f));
  }
  return dest;
}
