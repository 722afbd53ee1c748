/**
 * How a container launches: the Python module it runs and its flags, read
 * from `command` and `args` the way Dynamo's manifests write them: as lists
 * (`[python3, -m, dynamo.vllm]`, `[--model, x]`), or as one shell line
 * (`[/bin/sh, -c]`, `["python3 -m dynamo.vllm --model x && ..."]`).
 */
export interface Launch {
  /** The `-m` module, e.g. `dynamo.vllm`, `dynamo.frontend`, `planner_sla`. */
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
const FLAG = /^--?[A-Za-z]/;

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

/** The words of the command that runs a Python module, or the whole command line. */
function launchWords(command: string[], args: string[]): string[] {
  const all = [...command, ...args];
  const dashC = all.indexOf('-c');
  if (all.length > 0 && SHELLS.test(all[0]) && dashC > 0 && dashC + 1 < all.length) {
    const commands = shellWords(all.slice(dashC + 1).join(' '));
    return commands.find((c) => c.includes('-m')) ?? commands[commands.length - 1] ?? [];
  }
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
  return { module, flags };
}

/** The value of the first of `names` that is set. */
export function flagValue(launch: Launch, ...names: string[]): { name: string; value: string | true } | undefined {
  for (const name of names) {
    const value = launch.flags.get(name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}
