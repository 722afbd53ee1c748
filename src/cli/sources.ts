import * as fs from 'fs';
import * as path from 'path';
import { CliIo, UsageError } from './args';

/** Where the commands read manifests from: files, directories of *.yaml and *.yml, and standard input. */

export interface LintSource {
  /** How the file is named in findings. */
  readonly file: string;
  readonly text: string;
}

function yamlFilesIn(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' || e.name.startsWith('.') ? [] : yamlFilesIn(p);
      return /\.ya?ml$/.test(e.name) ? [p] : [];
    });
}

export function readSources(files: readonly string[], io: CliIo): LintSource[] {
  return files.flatMap((f): LintSource[] => {
    if (f === '-') return [{ file: '<stdin>', text: io.stdin() }];
    if (!fs.existsSync(f)) throw new UsageError(`${f}: no such file or directory`);
    if (fs.statSync(f).isDirectory()) {
      const found = yamlFilesIn(f);
      if (found.length === 0) throw new UsageError(`${f}: no *.yaml or *.yml files`);
      return found.map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
    }
    return [{ file: f, text: fs.readFileSync(f, 'utf8') }];
  });
}

