import { Findings } from './findings';
import { GraphModel, isDisaggregated, workers } from '../model/graph-model';
import { modelOf } from './workload';

/** Below this many parameters, guide 2 measures aggregated serving faster than disaggregated. */
export const SMALL_MODEL_BILLIONS = 10;

/**
 * Parameters of a model, in billions, from its name: `Llama-3.3-70B-Instruct`
 * -> 70, `Mixtral-8x7B` -> 56, `Qwen3-30B-A3B` -> 30 (total, not active),
 * `Nemotron-Nano-4B-v1.1` -> 4. Undefined when the name does not say.
 */
export function parameterBillions(model: string): number | undefined {
  const name = model.split('/').pop() ?? model;
  let best: number | undefined;
  for (const m of name.matchAll(/(?:^|[-_.])(?:(\d+)x)?(\d+(?:\.\d+)?)([bBmM])(?=$|[-_.])/g)) {
    const experts = m[1] !== undefined ? Number(m[1]) : 1;
    const size = Number(m[2]) * experts * (m[3].toLowerCase() === 'm' ? 0.001 : 1);
    best = best === undefined ? size : Math.max(best, size);
  }
  return best;
}

/** A model's attention heads: `num_attention_heads` and `num_key_value_heads` of its config.json. */
export interface AttentionHeads {
  readonly attention: number;
  readonly keyValue: number;
}

/**
 * The attention heads of the models the library's examples and Dynamo's guides serve, from
 * each model's config.json on Hugging Face. A Map, looked up by the name from the manifest.
 * Quantized and renamed copies (`nvidia/Llama-3.3-70B-Instruct-FP8`) keep their base's heads.
 */
const ATTENTION_HEADS: ReadonlyMap<string, AttentionHeads> = new Map([
  ['qwen/qwen3-0.6b', { attention: 16, keyValue: 8 }],
  ['qwen/qwen3-8b', { attention: 32, keyValue: 8 }],
  ['qwen/qwen3-32b', { attention: 64, keyValue: 8 }],
  ['meta-llama/llama-3.3-70b-instruct', { attention: 64, keyValue: 8 }],
  ['nvidia/llama-3.3-70b-instruct-fp8', { attention: 64, keyValue: 8 }],
]);

/** The attention heads of a model the library knows, by its Hugging Face name (any case). */
export function attentionHeads(model: string): AttentionHeads | undefined {
  return ATTENTION_HEADS.get(model.trim().toLowerCase());
}

export function modelSizeRules(g: GraphModel, f: Findings): void {
  if (!isDisaggregated(g)) return;
  // mocker workers simulate engines: the model's size costs nothing there
  const worker = workers(g).find((w) => w.engine !== 'mocker' && modelOf(w) !== undefined);
  const model = worker && modelOf(worker);
  if (!worker || !model) return;
  const billions = parameterBillions(model.value);
  if (billions === undefined || billions >= SMALL_MODEL_BILLIONS) return;
  f.report(
    'small-model-disaggregated',
    worker,
    model,
    `is ${JSON.stringify(model.value)} (~${billions}B parameters), served disaggregated; below ${SMALL_MODEL_BILLIONS}B the KV transfer costs more than splitting saves (guide 2 measures aggregated ~23% faster per GPU for a 4B model). Serve it aggregated unless you are testing disaggregation`,
  );
}
