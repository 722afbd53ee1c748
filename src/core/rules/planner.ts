import { checkInteger, checkNumber, isPlainObject } from '../checks';
import { plannerBudgetProblem } from '../planner';
import { DEFAULT_DYNAMO_VERSION, RELEASES } from '../versions';
import { Findings } from './findings';
import { argField, GraphModel, Located, ServiceModel, workers } from './graph-model';
import { flagValue } from './launch';
import { engineGpus, replicasOf } from './workload';

/** The planner's defaults (the same in every release the library knows). */
export const PLANNER_DEFAULTS = RELEASES[DEFAULT_DYNAMO_VERSION.split('.').slice(0, 2).join('.')].planner.defaults;

const SETTINGS = {
  mode: { flag: '--mode', key: 'mode' },
  maxGpuBudget: { flag: '--max-gpu-budget', key: 'max_gpu_budget' },
  minEndpoint: { flag: '--min-endpoint', key: 'min_endpoint' },
  adjustmentIntervalSeconds: { flag: '--adjustment-interval', key: 'throughput_adjustment_interval' },
  ttftMs: { flag: '--ttft', key: 'ttft' },
  itlMs: { flag: '--itl', key: 'itl' },
} as const;

type PlannerSetting = keyof typeof SETTINGS;

/** The planner's JSON config (`--config '{...}'`, Dynamo 1.1 and later), when inline. */
export function inlineConfig(s: ServiceModel): Record<string, unknown> | undefined {
  const config = flagValue(s.launch, '--config')?.value;
  if (typeof config !== 'string' || !config.trim().startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(config);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function plannerSetting(s: ServiceModel, key: PlannerSetting): Located<string | number | true> | undefined {
  const { flag, key: configKey } = SETTINGS[key];
  const f = flagValue(s.launch, flag);
  if (f) return { value: f.value, field: argField(flag), option: key };
  const v = inlineConfig(s)?.[configKey];
  if (typeof v === 'number' || typeof v === 'string') return { value: v, field: `${argField('--config')}.${configKey}`, option: key };
  return undefined;
}

/** The planner: settings in range, a budget that holds the graph, replicas it owns. */
export function plannerRules(g: GraphModel, f: Findings): void {
  const planner = g.services.find((s) => s.kind === 'planner');
  if (!planner) return;

  const budgetAt = plannerSetting(planner, 'maxGpuBudget');
  const budget = f.checkNumeric(planner, budgetAt, (d, path, n) => {
    if (n !== -1) checkInteger(d, path, n, 1, 'a whole number of GPUs >= 1 (or -1 for no budget)');
  });
  const minEndpoint = f.checkNumeric(planner, plannerSetting(planner, 'minEndpoint'), (d, path, n) => checkInteger(d, path, n, 1));
  f.checkNumeric(planner, plannerSetting(planner, 'adjustmentIntervalSeconds'), (d, path, n) => checkInteger(d, path, n, 1, 'a whole number of seconds > 0'));
  for (const key of ['ttftMs', 'itlMs'] as const) {
    f.checkNumeric(planner, plannerSetting(planner, key), (d, path, n) => checkNumber(d, path, n, { min: 0, exclusiveMin: true }));
  }

  const pool = workers(g);
  for (const w of pool.filter((x) => (x.role === 'prefill' || x.role === 'decode') && typeof x.spec.replicas === 'number')) {
    f.report(
      'planner-replicas',
      w,
      { field: 'replicas', option: 'replicas' },
      `is ${String(w.spec.replicas)}, but the planner scales this pool: every apply (GitOps sync, pulumi up) resets it to ${String(w.spec.replicas)}, undoing the planner's decision. Leave replicas out; the planner starts from 1`,
    );
  }

  // a config file, or a planner that takes its settings only from one, keeps its budget out of the manifest
  const config = flagValue(planner.launch, '--config')?.value;
  const budgetUnknown = !budgetAt && ((typeof config === 'string' && !inlineConfig(planner)) || planner.launch.module === 'dynamo.planner');
  if (budgetUnknown) return;
  const prefill = pool.find((w) => w.role === 'prefill');
  const decode = pool.find((w) => w.role === 'decode');
  const prefillGpus = prefill && engineGpus(prefill);
  const decodeGpus = decode && engineGpus(decode);
  if ((budgetAt && budget === undefined) || prefillGpus === undefined || decodeGpus === undefined) return;
  const gpus = pool.map((w) => ({ gpus: engineGpus(w), replicas: replicasOf(w) }));
  if (gpus.some((x) => x.gpus === undefined)) return;
  const problem = plannerBudgetProblem({ maxGpuBudget: budget, minEndpoint }, PLANNER_DEFAULTS, {
    prefillGpusPerEngine: prefillGpus,
    decodeGpusPerEngine: decodeGpus,
    initialGpus: gpus.reduce((sum, x) => sum + x.gpus! * x.replicas, 0),
  });
  if (problem) f.report('planner-budget', planner, budgetAt ?? { field: argField('--max-gpu-budget'), option: 'maxGpuBudget' }, problem);
}
