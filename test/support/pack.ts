import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { bundle } from '../../projenrc/bundle';
import { CRD_DIR, CRD_V1BETA1_DIR } from './crd';

const root = path.resolve(__dirname, '../..');
export const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * Builds the library as `npx projen compile && npx projen post-compile` does (declarations,
 * one bundle per entry point, the lint command's CRD schemas) into `<work>/pkg`, packs it,
 * and returns the tarball's path.
 */
export function packLibrary(work: string): string {
  const pkg = path.join(work, 'pkg');
  fs.mkdirSync(pkg);
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json', '--emitDeclarationOnly', '--outDir', path.join(pkg, 'lib')], { cwd: root });
  bundle(root, path.join(pkg, 'lib'));
  execFileSync(process.execPath, ['-e', `require(${JSON.stringify(path.join(pkg, 'lib/cli/main'))}).bundleCrds(${JSON.stringify(CRD_DIR)}, ${JSON.stringify(CRD_V1BETA1_DIR)})`], {
    env: { ...process.env, NODE_PATH: path.join(root, 'node_modules') },
  });
  for (const f of ['package.json', 'README.md', 'LICENSE']) fs.copyFileSync(path.join(root, f), path.join(pkg, f));
  const out = execFileSync(npm, ['pack', '--silent'], { cwd: pkg, encoding: 'utf8' }).trim().split('\n').pop()!;
  return path.join(pkg, out);
}
