import { checkDnsSubdomain, checkInteger, checkNumber, isPlainObject } from '../checks';
import { plannerBudgetProblem } from '../planner';
import { Findings } from './findings';
import { at, Located } from './graph-model';
import { PLANNER_DEFAULTS } from './planner';

/**
 * A DynamoGraphDeploymentRequest: the SLA it profiles for, the hardware it
 * searches and the planner it configures. The profiler reads
 * `profilingConfig.config` in camelCase (0.8.1 on) or snake_case (before).
 */

const CONFIG = 'spec.profilingConfig.config';

/** A config value under either spelling of its key. */
function setting(config: unknown, section: string, camel: string, snake: string, option: string): Located<string | number | true> | undefined {
  for (const key of [camel, snake]) {
    const v = at(config, `${section}.${key}`);
    if (typeof v === 'number' || typeof v === 'string') return { value: v, field: `${CONFIG}.${section}.${key}`, option };
  }
  return undefined;
}

export function requestRules(request: Readonly<Record<string, unknown>>, f: Findings): void {
  f.check(undefined, { field: 'metadata.name', option: 'name' }, (d, path) => checkDnsSubdomain(d, path, at(request, 'metadata.name')));
  const config = at(request, CONFIG);
  if (!isPlainObject(config)) return;

  for (const [key, option] of [['isl', 'sla.isl'], ['osl', 'sla.osl']] as const) {
    f.checkNumeric(undefined, setting(config, 'sla', key, key, option), (d, path, n) => checkInteger(d, path, n, 1, 'a whole number of tokens > 0'));
  }
  for (const [key, option] of [['ttft', 'sla.ttftMs'], ['itl', 'sla.itlMs']] as const) {
    f.checkNumeric(undefined, setting(config, 'sla', key, key, option), (d, path, n) => checkNumber(d, path, n, { min: 0, exclusiveMin: true }));
  }

  // 0 leaves the search bound to the profiler
  const gpusAt = (camel: string, snake: string, option: string) => setting(config, 'hardware', camel, snake, option);
  const minAt = gpusAt('minNumGpusPerEngine', 'min_num_gpus_per_engine', 'hardware.minGpusPerEngine');
  const maxAt = gpusAt('maxNumGpusPerEngine', 'max_num_gpus_per_engine', 'hardware.maxGpusPerEngine');
  const minGpus = f.checkNumeric(undefined, minAt, (d, path, n) => checkInteger(d, path, n, 0));
  const maxGpus = f.checkNumeric(undefined, maxAt, (d, path, n) => checkInteger(d, path, n, 0));
  f.checkNumeric(undefined, gpusAt('numGpusPerNode', 'num_gpus_per_node', 'hardware.gpusPerNode'), (d, path, n) => checkInteger(d, path, n, 0));
  if (minGpus && maxGpus && minGpus > maxGpus) f.report('value-range', undefined, maxAt!, `is ${maxGpus}, below the minimum of ${minGpus} GPUs per engine`);

  const budgetAt = setting(config, 'planner', 'plannerMaxGpuBudget', 'planner_max_gpu_budget', 'planner.maxGpuBudget');
  const budget = f.checkNumeric(undefined, budgetAt, (d, path, n) => {
    if (n !== -1) checkInteger(d, path, n, 1, 'a whole number of GPUs >= 1 (or -1 for no budget)');
  });
  const minEndpoint = f.checkNumeric(undefined, setting(config, 'planner', 'plannerMinEndpoint', 'planner_min_endpoint', 'planner.minEndpoint'), (d, path, n) =>
    checkInteger(d, path, n, 1),
  );
  if (!isPlainObject(at(config, 'planner')) || (budgetAt && budget === undefined)) return;
  // The budget must hold the smallest disaggregated graph: minEndpoint engines of each role.
  const perEngine = minGpus || 1;
  const problem = plannerBudgetProblem({ maxGpuBudget: budget, minEndpoint }, PLANNER_DEFAULTS, { prefillGpusPerEngine: perEngine, decodeGpusPerEngine: perEngine });
  if (problem) f.report('planner-budget', undefined, budgetAt ?? { field: `${CONFIG}.planner.plannerMaxGpuBudget`, option: 'planner.maxGpuBudget' }, problem);
}
