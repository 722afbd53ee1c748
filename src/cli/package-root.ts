import * as fs from 'fs';
import * as path from 'path';

/**
 * A file shipped with the package (`scripts/...`), found from wherever this code runs: the sources
 * (`src/cli/<command>/`) or the bundle (`lib/cli/main.js`) sit at different depths, and both are
 * inside the folder that holds the package's `package.json`.
 */
export function packageFile(...parts: string[]): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${__dirname}: cannot find ${path.join(...parts)}`);
    dir = up;
  }
  return path.join(dir, ...parts);
}
