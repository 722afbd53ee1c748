import { checkDnsSubdomain, checkInteger, checkNumber, isPlainObject } from '../base/checks';
import { PLANNER_DEFAULTS, plannerBudgetProblem } from './planner';
import { DynamoRelease } from '../releases/versions';
import { Findings } from './findings';
import { at, Located } from '../model/graph-model';


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

/**
 * Runs the request rules: the 0.8/0.9 request (`nvidia.com/v1alpha1`, everything in
 * `profilingConfig.config`) or the 1.x one (`nvidia.com/v1beta1`, top-level fields).
 * `release`: the release the request will run on, when it is checked for one.
 */
export function requestRules(request: Readonly<Record<string, unknown>>, f: Findings, release?: DynamoRelease): void {
  f.check(undefined, { field: 'metadata.name', option: 'name' }, (d, path) => checkDnsSubdomain(d, path, at(request, 'metadata.name')));
  if (request.apiVersion === 'nvidia.com/v1beta1') {
    v1beta1RequestRules(request, f);
    return;
  }
  if (release?.apiVersion === 'nvidia.com/v1beta1') {
    f.report(
      'deprecated',
      undefined,
      { field: 'apiVersion', option: 'dynamoVersion' },
      `is nvidia.com/v1alpha1, deprecated in Dynamo ${release.line}.x, whose requests are v1beta1: profilingConfig becomes top-level sla, workload, hardware and features fields, and autoApply defaults to true`,
    );
  }
  v1alpha1RequestRules(request, f);
}

/** A value of the 1.x request at a dotted path under `spec`. */
function field(request: unknown, path: string, option: string): Located<string | number | true> | undefined {
  const v = at(request, `spec.${path}`);
  return typeof v === 'number' || typeof v === 'string' ? { value: v, field: `spec.${path}`, option } : undefined;
}

function v1beta1RequestRules(request: Readonly<Record<string, unknown>>, f: Findings): void {
  if (at(request, 'spec.autoApply') === undefined) {
    f.report(
      'auto-apply-unset',
      undefined,
      { field: 'spec.autoApply', option: 'autoApply' },
      'is not set, and the v1beta1 CRD defaults it to true: the graph the profiler picks is deployed, and its GPUs requested, as soon as profiling ends. Write autoApply: false to review it in status.profilingResults.selectedConfig first, or autoApply: true to deploy it unreviewed',
    );
  }
  const tokens = (d: Parameters<Parameters<Findings['checkNumeric']>[2]>[0], path: string, n: number) => checkInteger(d, path, n, 1, 'a whole number of tokens > 0');
  f.checkNumeric(undefined, field(request, 'workload.isl', 'sla.isl'), tokens);
  f.checkNumeric(undefined, field(request, 'workload.osl', 'sla.osl'), tokens);
  for (const [key, option] of [['sla.ttft', 'sla.ttftMs'], ['sla.itl', 'sla.itlMs'], ['workload.requestRate', 'workload.requestRate']] as const) {
    f.checkNumeric(undefined, field(request, key, option), (d, path, n) => checkNumber(d, path, n, { min: 0, exclusiveMin: true }));
  }
  f.checkNumeric(undefined, field(request, 'workload.concurrency', 'workload.concurrency'), (d, path, n) => checkInteger(d, path, n, 1));
  f.checkNumeric(undefined, field(request, 'hardware.totalGpus', 'hardware.totalGpus'), (d, path, n) => checkInteger(d, path, n, 1));
  f.checkNumeric(undefined, field(request, 'hardware.numGpusPerNode', 'hardware.gpusPerNode'), (d, path, n) => checkInteger(d, path, n, 1));
  f.checkNumeric(undefined, field(request, 'hardware.vramMb', 'hardware.vramMb'), (d, path, n) => checkNumber(d, path, n, { min: 0, exclusiveMin: true }));

  const planner = at(request, 'spec.features.planner');
  if (!isPlainObject(planner)) return;
  const budgetAt = field(request, 'features.planner.max_gpu_budget', 'planner.maxGpuBudget');
  const budget = f.checkNumeric(undefined, budgetAt, (d, path, n) => {
    if (n !== -1) checkInteger(d, path, n, 1, 'a whole number of GPUs >= 1 (or -1 for no budget)');
  });
  const minEndpoint = f.checkNumeric(undefined, field(request, 'features.planner.min_endpoint', 'planner.minEndpoint'), (d, path, n) => checkInteger(d, path, n, 1));
  f.checkNumeric(undefined, field(request, 'features.planner.throughput_adjustment_interval_seconds', 'planner.adjustmentIntervalSeconds'), (d, path, n) =>
    checkInteger(d, path, n, 1, 'a whole number of seconds > 0'),
  );
  if (budgetAt && budget === undefined) return;
  const problem = plannerBudgetProblem({ maxGpuBudget: budget, minEndpoint }, PLANNER_DEFAULTS, { prefillGpusPerEngine: 1, decodeGpusPerEngine: 1 });
  if (problem) f.report('planner-budget', undefined, budgetAt ?? { field: 'spec.features.planner.max_gpu_budget', option: 'planner.maxGpuBudget' }, problem);
}

function v1alpha1RequestRules(request: Readonly<Record<string, unknown>>, f: Findings): void {
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
