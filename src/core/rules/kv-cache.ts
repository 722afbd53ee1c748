import { checkInteger } from '../base/checks';
import { kvCacheDtypeProblem } from '../releases/versions';
import { Findings } from './findings';
import { argField, GraphModel, Located, roleFlag, ServiceModel, workers } from '../model/graph-model';
import { announcedBlockSize, blockSize, blockSizeProblem, kvCacheDtype } from './workload';
import { routerSetting } from './router';

/**
 * KV cache agreement: every worker of a graph uses one block size (the KV
 * router computes overlap in those blocks, and prefill hands blocks to decode),
 * prefill and decode use one dtype, and each worker runs the role its
 * subComponentType says (the planner scales workers by it).
 */
export function kvCacheRules(g: GraphModel, f: Findings): void {
  const sized: { s: ServiceModel; size: number; at: Located<unknown> }[] = [];
  for (const s of workers(g)) {
    const size = blockSize(s);
    const n = f.checkNumeric(s, size, (d, path, v) => checkInteger(d, path, v, 1));
    if (n === undefined || size === undefined) continue;
    const problem = blockSizeProblem(s, n);
    if (problem) {
      f.report('value-range', s, size, `is ${n}; ${problem}`);
      continue;
    }
    sized.push({ s, size: n, at: size });
    const announced = announcedBlockSize(s);
    if (announced && announced.field !== size.field && Number(announced.value) !== n) {
      f.report('block-size-mismatch', s, announced, `is ${announced.value}, but the engine config runs ${n} tokens per block; the router would count blocks of the wrong size`);
    }
  }

  const first = sized[0];
  const other = first && sized.find((x) => x.size !== first.size);
  if (first && other) {
    const [mismatch, reference] = other.at.defaulted && !first.at.defaulted ? [first, other] : [other, first];
    f.report(
      'block-size-mismatch',
      mismatch.s,
      mismatch.at,
      `is ${mismatch.size}${mismatch.at.defaulted ? ` (the ${mismatch.s.engine} default)` : ''}, but ${reference.s.name} runs ${reference.size}${reference.at.defaulted ? ` (the ${reference.s.engine} default)` : ''}; all workers of a graph must use one KV block size`,
    );
  }

  const frontend = g.services.find((s) => s.kind === 'frontend');
  const mode = frontend && routerSetting(frontend, 'mode');
  const routerSize = frontend && routerSetting(frontend, 'blockSize');
  if (frontend && mode?.value === 'kv' && routerSize) {
    const announced = f.checkNumeric(frontend, routerSize, (d, path, v) => checkInteger(d, path, v, 1));
    const mismatch = announced !== undefined ? sized.find((x) => x.size !== announced) : undefined;
    if (mismatch) {
      f.report(
        'block-size-mismatch',
        frontend,
        routerSize,
        `is ${announced}, but ${mismatch.s.name} runs block size ${mismatch.size}; the router computes prefill cost in the workers' blocks, so they must match (guide 3)`,
      );
    }
  }

  // a dtype the engine refuses, where the image tag says which engine release runs
  for (const s of workers(g)) {
    const dtype = kvCacheDtype(s);
    if (!s.release || !dtype || dtype.defaulted || typeof dtype.value !== 'string' || (s.engine !== 'vllm' && s.engine !== 'sglang')) continue;
    if (dtype.value.includes('$')) continue;
    const problem = kvCacheDtypeProblem(s.release, s.engine, dtype.value);
    if (problem) f.report('value-range', s, dtype, `is ${JSON.stringify(dtype.value)}; ${problem}`);
  }

  const prefill = workers(g).filter((w) => w.role === 'prefill');
  const decode = workers(g).filter((w) => w.role === 'decode');
  const dtypes = [...prefill, ...decode].map((s) => ({ s, dtype: kvCacheDtype(s) })).filter((x) => x.dtype !== undefined);
  const firstDtype = dtypes[0];
  const otherDtype = firstDtype && dtypes.find((x) => String(x.dtype!.value) !== String(firstDtype.dtype!.value));
  if (firstDtype && otherDtype) {
    // point at a dtype someone wrote, the decode side's when both are written
    const pair = [firstDtype, otherDtype];
    const written = pair.filter((x) => !x.dtype!.defaulted);
    const at = written.length === 1 ? written[0] : (pair.find((x) => x.s.role === 'decode') ?? otherDtype);
    const other = at === firstDtype ? otherDtype : firstDtype;
    const shown = (x: typeof at) => `${x.dtype!.value}${x.dtype!.defaulted ? ' (the default)' : ''}`;
    f.report(
      'kv-dtype-mismatch',
      at.s,
      at.dtype!,
      `is ${shown(at)} on ${at.s.name} but ${shown(other)} on ${other.s.name}; the KV cache is transferred as is, so prefill and decode must use one dtype`,
    );
  }

  for (const s of workers(g)) {
    if (!s.launches || s.engine === undefined || s.engine === 'mocker') continue;
    const sub = s.spec.subComponentType;
    const flagged = roleFlag(s.launch);
    if ((sub === 'prefill' || sub === 'decode') && flagged && flagged.value !== sub) {
      f.report('role-flags', s, flagged, `makes this a ${flagged.value} worker, but its subComponentType is ${sub}; the planner would scale it as ${sub}. Make them agree`);
    } else if ((sub === 'prefill' || (sub === 'decode' && s.engine !== 'vllm')) && !flagged) {
      // (a vLLM decode worker needs no flag before Dynamo 1.0: unflagged, it decodes for the prefill workers)
      const fix = s.engine === 'vllm' ? `--is-${sub}-worker` : `--disaggregation-mode ${sub}`;
      f.report('role-flags', s, { field: argField(fix.split(' ')[0]), option: '' }, `is missing although subComponentType is ${sub}: without it the engine runs aggregated. Add ${fix}`);
    }
  }
}
