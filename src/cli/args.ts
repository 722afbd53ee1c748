/** What the commands share: their input and output, usage errors, and flag parsing. */

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Standard input as text; at most `maxBytes` bytes of it are read (one more says it is longer). */
  readonly stdin: (maxBytes?: number) => string;
}

/** A command line the command cannot run: printed with the usage, exit status 2. */
export class UsageError extends Error {}

/**
 * Calls `each` with every argument in turn and a function that takes the value of the flag it is
 * (`--flag=value`, or the next argument, which is then consumed).
 */
export function eachArgument(argv: readonly string[], each: (arg: string, value: () => string) => void): void {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    each(a, () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${a.split('=')[0]} needs a value`);
      return v;
    });
  }
}

