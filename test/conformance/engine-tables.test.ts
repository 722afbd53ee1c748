/**
 * The engine values the library checks options against (src/core/versions.ts)
 * are the ones the engines' own parsers accept, as recorded in the flag tables
 * generated from them (engines/generate.py). No Python needed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RELEASES } from '../../src';

interface Action {
  readonly flags: readonly string[];
  readonly choices: readonly unknown[] | null;
}

function table(engine: string, version: string): { version: string; actions: Action[] } {
  return JSON.parse(readFileSync(join(__dirname, 'engines', `${engine}-${version}.json`), 'utf8'));
}

function choices(t: { actions: Action[] }, flag: string): readonly unknown[] | null | undefined {
  return t.actions.find((a) => a.flags.includes(flag))?.choices;
}

const LINES = Object.entries(RELEASES);

describe.each(LINES)('Dynamo %s.x', (_line, release) => {
  test('vLLM: KV cache dtypes and block sizes are those of the pinned vLLM', () => {
    const t = table('vllm', release.engines.vllm.version);
    expect(t.version).toBe(release.engines.vllm.version);
    expect(choices(t, '--kv-cache-dtype')).toEqual(release.engines.vllm.kvCacheDtypes);
    // (a parser without choices takes any size: the library then has no list either)
    expect(choices(t, '--block-size') ?? undefined).toEqual(release.engines.vllm.blockSizes);
  });

  test('SGLang: KV cache dtypes are those of the pinned SGLang', () => {
    const t = table('sglang', release.engines.sglang.version);
    expect(t.version).toBe(release.engines.sglang.version);
    expect(choices(t, '--kv-cache-dtype')).toEqual(release.engines.sglang.kvCacheDtypes);
  });
});

test('every release line of the versions table is installed by the conformance suite', () => {
  const lines = JSON.parse(readFileSync(join(__dirname, 'releases.json'), 'utf8')).lines;
  expect(Object.keys(lines).sort()).toEqual(Object.keys(RELEASES).sort());
  for (const [line, config] of Object.entries<{ dynamo: string }>(lines)) expect(config.dynamo.startsWith(`${line}.`)).toBe(true);
});
