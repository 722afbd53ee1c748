import { DYNAMO_WORKER_FLAGS, engineFlags } from '../engines/engine-flags';
import { EngineName, Launch } from './launch';

/**
 * Worker flags read as the engine's own parser reads them. Python's argparse takes an
 * unambiguous prefix of a long flag for the flag (`--tp 2` is SGLang's `--tp-size 2`) unless
 * the parser is built with `allow_abbrev=False`, and refuses a prefix that several flags
 * start with (`--pp` could be SGLang's `--pp-size`, `--pp-max-micro-batch-size` or
 * `--pp-async-batch-depth`).
 *
 * Which parsers abbreviate, as measured in the releases' code: Dynamo's vLLM worker
 * hands the flags it does not know to vLLM's FlexibleArgumentParser, which keeps argparse's
 * `allow_abbrev=True` (vLLM 0.31.0) and also reads `--flag_name` as `--flag-name`; Dynamo's
 * SGLang worker hands them to a plain `argparse.ArgumentParser(add_help=False)` holding
 * SGLang's ServerArgs flags. TensorRT-LLM has no parser of its own in Dynamo's worker (its
 * settings come from the engine config file), so its flags are read as written.
 */

/** Engines whose parser, as Dynamo runs it, resolves abbreviations. */
const ABBREVIATING_ENGINES: ReadonlySet<EngineName> = new Set(['vllm', 'sglang']);

/** A flag the engine's parser refuses: a prefix of several of its flags. */
export interface AmbiguousFlag {
  /** As written in the manifest. */
  readonly written: string;
  /** The engine's flags it could abbreviate, sorted. */
  readonly candidates: readonly string[];
}

export interface EngineLaunch {
  /** The launch with every flag under the name the engine's parser gives it. */
  readonly launch: Launch;
  /** How each resolved flag was written (`--tp-size` -> `--tp`), for pointing at the manifest. */
  readonly spelled: ReadonlyMap<string, string>;
  readonly ambiguous: readonly AmbiguousFlag[];
}

/**
 * Resolves a worker's flags against its engine's flag table: a flag that is not one of the
 * engine's or Dynamo's own spellings, and that exactly one engine flag starts with, is that
 * flag; one that several start with is ambiguous. Without a table for the engine version the
 * flags stay as written.
 */
export function engineLaunch(launch: Launch, engine: EngineName | undefined, engineVersion: string | undefined): EngineLaunch {
  const table = engine !== undefined && engineVersion !== undefined && ABBREVIATING_ENGINES.has(engine) ? engineFlags(engine, engineVersion) : undefined;
  if (!table) return { launch, spelled: new Map(), ambiguous: [] };
  const flags = new Map<string, string | true>();
  const spelled = new Map<string, string>();
  const ambiguous: AmbiguousFlag[] = [];
  for (const [written, value] of launch.flags) {
    const name = resolve(written, table, engine === 'vllm');
    if (Array.isArray(name)) {
      ambiguous.push({ written, candidates: name });
      flags.set(written, value);
    } else {
      if (name !== written) spelled.set(name, written);
      flags.set(name, value);
    }
  }
  return { launch: { ...launch, flags }, spelled, ambiguous };
}

/** vLLM's parser reads its `--config` file itself, before argparse sees the flags. */
const VLLM_OWN_FLAGS: ReadonlySet<string> = new Set(['--config']);

/** The flag `written` stands for; the candidates when it is ambiguous. */
function resolve(written: string, table: ReadonlySet<string>, vllm: boolean): string | string[] {
  if (!written.startsWith('--') || table.has(written) || DYNAMO_WORKER_FLAGS.has(written) || (vllm && VLLM_OWN_FLAGS.has(written))) return written;
  const underscores = vllm;
  // vLLM's parser rewrites `_` to `-` in a flag's name before argparse sees it
  const dot = written.indexOf('.');
  const name = underscores ? (dot < 0 ? written : written.slice(0, dot)).replace(/_/g, '-') + (dot < 0 ? '' : written.slice(dot)) : written;
  if (table.has(name)) return name;
  const candidates = [...table].filter((f) => f.startsWith(name)).sort();
  if (candidates.length === 1) return candidates[0];
  return candidates.length > 1 ? candidates : written;
}
