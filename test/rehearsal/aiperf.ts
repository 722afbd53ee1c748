/** AIPerf for the rehearsal suites: installed once into a cached virtualenv next to the rehearsal's. */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pythonOf, userCache } from '../../src/cli/rehearse/rehearse';

const AIPERF = 'aiperf==0.13.0';

/** AIPerf in its own cached virtualenv (next to the rehearsal's), installed on first use. */
export function aiperfExecutable(say: (line: string) => void): string {
  const dir = join(userCache(), 'rehearse', `venv-${AIPERF.replace('==', '-')}`);
  const bin = join(dir, 'bin', 'aiperf');
  const stamp = join(dir, '.installed');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === AIPERF && existsSync(bin)) return bin;
  say(`installing ${AIPERF} into ${dir} (first run: about a minute)`);
  rmSync(dir, { recursive: true, force: true });
  for (const [cmd, args] of [[pythonOf('3.11', undefined), ['-m', 'venv', dir]], [join(dir, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', AIPERF]]] as const) {
    const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
  }
  writeFileSync(stamp, AIPERF);
  return bin;
}

