import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkGraphManifest, indexObjects, manifestModel, manifestPath, RELEASES } from '../../src/core/internal';
import { DYNAMO_WORKER_FLAGS, engineFlags } from '../../src/core/engines/engine-flags';

/**
 * Worker flags are read as the engine's parser reads them: argparse takes an unambiguous
 * prefix of a long flag for the flag (SGLang's `--tp` is `--tp-size`, as Dynamo's own SGLang
 * examples write it) and refuses an ambiguous one, in the engines whose parser abbreviates
 * (vLLM, SGLang), against the flag tables generated from their real parsers.
 */

const ENGINES = join(__dirname, '../conformance/engines');
const CLI_1_6_1 = join(__dirname, '../../../shared/dynamo/cli-1.6.1/worker-dynamo-flags-1.6.1.md');

/** A graph of one aggregated worker with the flags given, on the images of `tag`. */
function graph(engine: 'vllm' | 'sglang', args: readonly string[], gpu = '4', tag = '1.6.1'): Record<string, unknown> {
  const image = `nvcr.io/nvidia/ai-dynamo/${engine}-runtime:${tag}`;
  return {
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeployment',
    metadata: { name: 'g' },
    spec: {
      services: {
        Frontend: { componentType: 'frontend', extraPodSpec: { mainContainer: { image, command: ['python3', '-m', 'dynamo.frontend'] } } },
        worker: { componentType: 'worker', resources: { limits: { gpu } }, extraPodSpec: { mainContainer: { image, command: ['python3', '-m', `dynamo.${engine}`], args: [...args] } } },
      },
    },
  };
}

const found = (g: Record<string, unknown>, rules: readonly string[]) =>
  checkGraphManifest(g)
    .filter((f) => rules.includes(f.rule))
    .map((f) => `${manifestPath(f)} [${f.rule}]: ${f.message}`);

test('the flag tables the rules resolve against are those the conformance suite generated from the engines', () => {
  const files = readdirSync(ENGINES).filter((f) => /^(vllm|sglang)-.*\.json$/.test(f));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const t = JSON.parse(readFileSync(join(ENGINES, file), 'utf8')) as { engine: string; version: string; actions: { flags: string[] }[] };
    const long = new Set(t.actions.flatMap((a) => a.flags).filter((f) => f.startsWith('--')));
    expect({ file, flags: [...(engineFlags(t.engine, t.version) ?? [])].sort() }).toEqual({ file, flags: [...long].sort() });
  }
  // every engine version a release pins has its table
  for (const r of Object.values(RELEASES)) for (const e of ['vllm', 'sglang'] as const) expect(engineFlags(e, r.engines[e].version)).toBeDefined();
  // and Dynamo's own 1.6.1 worker flags, which its parser takes before the engine sees the rest
  const dynamo = new Set([...readFileSync(CLI_1_6_1, 'utf8').matchAll(/^\| ([^|]*--[^|]*)\|/gm)].flatMap((m) => m[1].match(/--[A-Za-z0-9._-]+/g) ?? []));
  expect([...DYNAMO_WORKER_FLAGS].sort()).toEqual([...dynamo].sort());
});

test("SGLang's --tp, as Dynamo's own examples write it, is read as --tp-size and found where it is written", () => {
  const model = manifestModel(graph('sglang', ['--model-path', 'Qwen/Qwen3-32B', '--tp', '8']), indexObjects([]));
  const worker = model.services.find((s) => s.name === 'worker')!;
  expect(worker.launch.flags.get('--tp-size')).toBe('8');
  expect(worker.spelled.get('--tp-size')).toBe('--tp');
  expect(found(graph('sglang', ['--model-path', 'Qwen/Qwen3-32B', '--tp', '8']), ['parallelism-gpus'])).toEqual([
    "worker.resources.limits.gpu [parallelism-gpus]: is 4, fewer than the 8 GPUs each engine's parallelism needs (tensor 8); give each engine at least 8 GPUs",
  ]);
});

test('any unambiguous prefix is the flag it abbreviates: SGLang --tp-s, --dp; vLLM --tensor-parallel and --tensor_parallel_size', () => {
  expect(found(graph('sglang', ['--model-path', 'm', '--tp-s', '8']), ['parallelism-gpus'])).toEqual([
    "worker.resources.limits.gpu [parallelism-gpus]: is 4, fewer than the 8 GPUs each engine's parallelism needs (tensor 8); give each engine at least 8 GPUs",
  ]);
  expect(found(graph('sglang', ['--model-path', 'm', '--tp-size', '2', '--dp', '4']), ['parallelism-gpus'])).toEqual([
    "worker.resources.limits.gpu [parallelism-gpus]: is 4, fewer than the 8 GPUs each engine's parallelism needs (tensor 2 x data 4); give each engine at least 8 GPUs",
  ]);
  for (const spelling of ['--tensor-parallel', '--tensor_parallel_size']) {
    expect(found(graph('vllm', ['--model', 'm', spelling, '8']), ['parallelism-gpus'])).toEqual([
      "worker.resources.limits.gpu [parallelism-gpus]: is 4, fewer than the 8 GPUs each engine's parallelism needs (tensor 8); give each engine at least 8 GPUs",
    ]);
  }
});

test('an ambiguous prefix is what argparse refuses: an error naming the flags it could be', () => {
  expect(found(graph('sglang', ['--model-path', 'm', '--tp-size', '2', '--pp', '2']), ['ambiguous-flag', 'parallelism-gpus'])).toEqual([
    'worker.extraPodSpec.mainContainer.args[--pp] [ambiguous-flag]: is no flag of SGLang 0.5.21, and its parser refuses it as an abbreviation: it could be --pp-async-batch-depth, --pp-max-micro-batch-size or --pp-size. Write the flag in full',
    "worker.resources.limits.gpu [parallelism-gpus]: is 4, but each engine's parallelism (tensor 2) runs on 2: 2 GPUs would sit idle. Give each engine 2 GPUs, or raise the tensor parallel size to 4 (tensor x pipeline x data parallel = the GPUs across the nodes)",
  ]);
  // written in full, it is read
  expect(found(graph('sglang', ['--model-path', 'm', '--tp-size', '2', '--pp-size', '2']), ['ambiguous-flag', 'parallelism-gpus'])).toEqual([]);
});

test("Dynamo's own flags and flags the engine has are never taken for abbreviations", () => {
  const model = manifestModel(graph('vllm', ['--model', 'm', '--enable-multimodal', '--disaggregation-mode', 'prefill', '--config', 'c.yaml']), indexObjects([]));
  const worker = model.services.find((s) => s.name === 'worker')!;
  expect([...worker.launch.flags.keys()]).toEqual(['--model', '--enable-multimodal', '--disaggregation-mode', '--config']);
  expect(worker.ambiguousFlags).toEqual([]);
});
