/** The engine a worker's command runs. */
export type EngineName = 'vllm' | 'sglang' | 'trtllm' | 'mocker';

/**
 * How a container launches: the Python module it runs and its flags, read
 * from `command` and `args` the way Dynamo's manifests write them: as lists
 * (`[python3, -m, dynamo.vllm]`, `[--model, x]`), or as one shell line
 * (`[/bin/sh, -c]`, `["python3 -m dynamo.vllm --model x && ..."]`).
 */
export interface Launch {
  /** The program the command line starts (`python3`, `components/processor.py`); undefined when it holds only flags. */
  readonly program?: string;
  /** The `-m` module, e.g. `dynamo.vllm`, `dynamo.frontend`, `dynamo.planner` (1.x) or `planner_sla` (0.8/0.9). */
  readonly module?: string;
  /** Flag values by name (`--block-size` -> `'32'`); a flag without a value maps to `true`. The last occurrence wins. */
  readonly flags: ReadonlyMap<string, string | true>;
}

/** Flags that never take a value, so a following token is not read as theirs. */
const BOOLEAN_FLAGS = new Set([
  '--is-prefill-worker',
  '--is-decode-worker',
  '--trust-remote-code',
  '--skip-tokenizer-init',
  '--publish-events-and-metrics',
  '--no-kv-events',
  '--router-replica-sync',
  '--router-reset-states',
  '--no-track-active-blocks',
  '--enforce-disagg',
  '--enforce-eager',
  '--enable-prefix-caching',
  '--no-enable-prefix-caching',
  '--load-predictor-log1p',
  '--no-operation',
  '--no-correction',
  '--kserve-grpc-server',
]);

const SHELLS = /(^|\/)(ba|da|z)?sh$/;
/** Shell options that take the script next: `-c`, `-ec`, `-lc`, `-xc`... */
const SHELL_SCRIPT_OPTION = /^-[a-z]*c[a-z]*$/;
/** Launchers that run the rest of the line: `tini --`, `/usr/bin/env`, `exec`. */
const LAUNCHERS = /(^|\/)(tini|dumb-init|env|exec)$/;
const FLAG = /^--?[A-Za-z]/;
/** Modules the rules know: a shell line is read for the command that runs one of them. */
const KNOWN_MODULE = /^(dynamo\.|planner_sla$)/;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '')) : [];
}

/** Splits a shell line into words: quotes and backslashes, and `&&`, `||`, `;`, `|` and newlines as separators. */
export function shellWords(line: string): string[][] {
  const commands: string[][] = [[]];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  const end = () => {
    if (word !== undefined) commands[commands.length - 1].push(word);
    word = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word = (word ?? '') + line[++i];
      else word = (word ?? '') + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word = word ?? '';
    } else if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') word = (word ?? '') + line[i + 1];
      i++;
    } else if (c === ' ' || c === '\t') {
      end();
    } else if (c === '\n' || c === ';' || c === '&' || c === '|') {
      end();
      if (commands[commands.length - 1].length > 0) commands.push([]);
    } else {
      word = (word ?? '') + c;
    }
  }
  end();
  return commands.filter((c) => c.length > 0);
}

/** The module a command runs (`python3 -m <module>`), if any. */
function moduleOf(words: readonly string[]): string | undefined {
  const m = words.indexOf('-m');
  return m >= 0 && m + 1 < words.length ? words[m + 1] : undefined;
}

/** The command of a shell line that runs a module the rules know, else one that runs any module, else the last. */
function pickCommand(commands: string[][]): string[] {
  return commands.find((c) => KNOWN_MODULE.test(moduleOf(c) ?? '')) ?? commands.find((c) => moduleOf(c) !== undefined) ?? commands[commands.length - 1] ?? [];
}

/** The words of the command that runs a Python module, or the whole command line. */
function launchWords(command: string[], args: string[]): string[] {
  let all = [...command, ...args];
  while (all.length > 0 && (LAUNCHERS.test(all[0]) || all[0] === '--')) all = all.slice(1);
  if (all.length > 0 && SHELLS.test(all[0])) {
    const option = all.findIndex((w, i) => i > 0 && SHELL_SCRIPT_OPTION.test(w));
    if (option > 0 && option + 1 < all.length) return pickCommand(shellWords(all.slice(option + 1).join(' ')));
  }
  // a whole command line in one string, as older manifests write `args`
  if (all.length === 1 && /\s/.test(all[0])) return pickCommand(shellWords(all[0]));
  return all;
}

/** Reads the module and flags of a container (`{ command?, args? }`). */
export function parseLaunch(container: unknown): Launch {
  const c = (typeof container === 'object' && container !== null ? container : {}) as Record<string, unknown>;
  const words = launchWords(strings(c.command), strings(c.args));
  const flags = new Map<string, string | true>();
  let module: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === '-m' && i + 1 < words.length && module === undefined) {
      module = words[++i];
      continue;
    }
    if (!FLAG.test(w)) continue;
    const eq = w.indexOf('=');
    if (eq > 0) {
      flags.set(w.slice(0, eq), w.slice(eq + 1));
      continue;
    }
    const next = words[i + 1];
    if (!BOOLEAN_FLAGS.has(w) && next !== undefined && (!FLAG.test(next) || /^-\d/.test(next))) {
      flags.set(w, next);
      i++;
    } else {
      flags.set(w, true);
    }
  }
  return { program: words.length > 0 && !FLAG.test(words[0]) ? words[0] : undefined, module, flags };
}

/** The value of the first of `names` that is set. */
export function flagValue(launch: Launch, ...names: string[]): { name: string; value: string | true } | undefined {
  for (const name of names) {
    const value = launch.flags.get(name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}
