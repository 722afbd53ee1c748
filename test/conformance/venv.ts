/**
 * The cached virtualenv of one Dynamo release: created on first use in the user's cache
 * directory, outside any clone (`$DYNAMO_CONSTRUCTS_CACHE`, else
 * `${XDG_CACHE_HOME:-~/.cache}/dynamo-constructs`, under `conformance/`), with pip's
 * download cache beside it, and reused while its install list is unchanged: a new clone
 * (a CI run) finds what the last run installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const CACHE_DIR = join(process.env.DYNAMO_CONSTRUCTS_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'dynamo-constructs'), 'conformance');
/** What one run writes (its cases and results): the clone's own, never shared between clones. */
export const RUN_DIR = resolve(__dirname, '..', '..', '.cache', 'conformance');
const PIP_CACHE = join(CACHE_DIR, 'pip');

/** What the checker itself needs next to Dynamo. */
const CHECKER_PACKAGES = ['pyyaml'];

function version(python: string): string | undefined {
  const r = spawnSync(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** A Python interpreter of `wanted` (`3.11`): on PATH, or installed by pyenv. */
export function findPython(wanted: string): string {
  const candidates = [`python${wanted}`];
  const pyenv = process.env.PYENV_ROOT ?? join(homedir(), '.pyenv');
  const versions = join(pyenv, 'versions');
  if (existsSync(versions)) {
    for (const v of readdirSync(versions).sort().reverse()) {
      if (v === wanted || v.startsWith(`${wanted}.`)) candidates.push(join(versions, v, 'bin', 'python3'));
    }
  }
  candidates.push('python3');
  for (const c of candidates) if (version(c) === wanted) return c;
  throw new Error(`Python ${wanted} was not found (tried ${candidates.join(', ')}); install it (e.g. pyenv install ${wanted}) to run the conformance suite`);
}

function run(command: string, args: string[], what: string): void {
  const r = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal})`);
}

/**
 * The Python of the venv for `name` with `packages` installed; created (and
 * progress printed) only when missing or when the package list changed.
 */
export function ensureVenv(name: string, pythonVersion: string, packages: readonly string[], log: (line: string) => void, noDeps: readonly string[] = []): string {
  const dir = join(CACHE_DIR, `venv-${name}`);
  const python = join(dir, 'bin', 'python');
  const stamp = join(dir, '.installed');
  const want = JSON.stringify({ pythonVersion, packages: [...packages, ...CHECKER_PACKAGES], noDeps });
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want && existsSync(python)) return python;
  const started = Date.now();
  log(`${name}: creating ${dir} (Python ${pythonVersion}; ${[...packages, ...noDeps].join(' ')})`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(CACHE_DIR, { recursive: true });
  run(findPython(pythonVersion), ['-m', 'venv', dir], `python -m venv ${dir}`);
  const pip = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--cache-dir', PIP_CACHE];
  run(python, [...pip, ...packages, ...CHECKER_PACKAGES], `pip install ${packages.join(' ')}`);
  // packages whose own requirement list names one PyPI cannot serve: installed after what they need
  if (noDeps.length > 0) run(python, [...pip, '--no-deps', ...noDeps], `pip install --no-deps ${noDeps.join(' ')}`);
  writeFileSync(stamp, want);
  log(`${name}: installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return python;
}
