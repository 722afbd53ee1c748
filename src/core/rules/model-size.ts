import { Findings } from './findings';
import { GraphModel, isDisaggregated, workers } from './graph-model';
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
