import { checkInteger, checkNumber } from '../base/checks';
import { DEFAULT_DYNAMO_VERSION, DynamoRelease, RELEASES } from '../releases/versions';
import { Findings } from './findings';
import { argField, GraphModel, Located, ServiceModel, workers } from '../model/graph-model';
import { flagValue } from '../model/launch';
import { engineGpus, replicasOf } from './workload';

/** The planner's defaults (the same in every release the library knows). */
export const PLANNER_DEFAULTS = RELEASES[DEFAULT_DYNAMO_VERSION.split('.').slice(0, 2).join('.')].planner.defaults;

/**
 * Each setting as a 0.8/0.9 flag, and as the keys of the 1.x PlannerConfig document
 * (its field name first, then the aliases it accepts; inline JSON of 1.1-era manifests
 * uses the aliases).
 */
const SETTINGS = {
  mode: { flag: '--mode', keys: ['mode'] },
  maxGpuBudget: { flag: '--max-gpu-budget', keys: ['max_gpu_budget'] },
  minEndpoint: { flag: '--min-endpoint', keys: ['min_endpoint'] },
  adjustmentIntervalSeconds: { flag: '--adjustment-interval', keys: ['throughput_adjustment_interval_seconds', 'throughput_adjustment_interval'] },
  ttftMs: { flag: '--ttft', keys: ['ttft_ms', 'ttft'] },
  itlMs: { flag: '--itl', keys: ['itl_ms', 'itl'] },
} as const;

type PlannerSetting = keyof typeof SETTINGS;

export function plannerSetting(s: ServiceModel, key: PlannerSetting): Located<string | number | true> | undefined {
  const { flag, keys } = SETTINGS[key];
  const f = flagValue(s.launch, flag);
  if (f) return { value: f.value, field: argField(flag), option: key };
  const config = s.plannerConfig;
  for (const k of keys) {
    const v = config?.values[k];
    if (typeof v === 'number' || typeof v === 'string') return { value: v, field: `${config!.field}.${k}`, option: key };
  }
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

  // a config file the objects do not hold keeps the budget out of sight; a 1.x config without one has the default
  const config = flagValue(planner.launch, '--config')?.value;
  if (!budgetAt && typeof config === 'string' && !planner.plannerConfig) return;
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

/** GPU counts of a disaggregated graph the planner's budget must cover. */
export interface PlannedGraphGpus {
  readonly prefillGpusPerEngine: number;
  readonly decodeGpusPerEngine: number;
  /** GPUs the graph uses at its configured replica counts (a graph; a request has none). */
  readonly initialGpus?: number;
}

/**
 * The planner's budget must cover the graph at its minimum (minEndpoint
 * engines of each role) and, for a graph, at its starting replica counts.
 * Returns what is wrong, or undefined. A budget of -1 means none.
 */
export function plannerBudgetProblem(
  settings: { readonly maxGpuBudget?: number; readonly minEndpoint?: number },
  defaults: DynamoRelease['planner']['defaults'],
  gpus: PlannedGraphGpus,
): string | undefined {
  const minEndpoint = settings.minEndpoint ?? defaults.minEndpoint;
  const budget = settings.maxGpuBudget ?? defaults.maxGpuBudget;
  if (budget === -1) return undefined;
  const budgetText = settings.maxGpuBudget === undefined ? `the planner's default budget of ${budget} GPUs` : `${budget}`;
  const minimum = minEndpoint * (gpus.prefillGpusPerEngine + gpus.decodeGpusPerEngine);
  if (budget < minimum) {
    return `is ${budgetText}, below the ${minimum} GPUs the graph needs at its minimum (minEndpoint ${minEndpoint} x (${gpus.prefillGpusPerEngine} prefill + ${gpus.decodeGpusPerEngine} decode GPUs per engine)); raise maxGpuBudget to at least ${minimum}`;
  }
  if (gpus.initialGpus !== undefined && budget < gpus.initialGpus) {
    return `is ${budgetText}, below the ${gpus.initialGpus} GPUs the graph starts with at its configured replicas; raise maxGpuBudget to at least ${gpus.initialGpus} or start with fewer replicas`;
  }
  return undefined;
}
