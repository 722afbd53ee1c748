import { checkKnownKeys, checkNumber, isPlainObject, join } from '../base/checks';
import { Diagnostics, show } from '../base/errors';

/** The latency targets of an SLA, which dashboards and alerts draw from. */
export interface SlaTargets {
  /** Time-to-first-token target in milliseconds. */
  readonly ttftMs: number;
  /** Inter-token latency target in milliseconds. */
  readonly itlMs: number;
}

export function checkSlaTargets(d: Diagnostics, path: string, sla: unknown): sla is SlaTargets {
  if (!isPlainObject(sla)) {
    if (sla === undefined) d.error(path, 'is required: { ttftMs, itlMs }', 'required');
    else d.error(path, `must be { ttftMs, itlMs }, got ${show(sla)}`, 'value-type');
    return false;
  }
  checkKnownKeys(d, path, sla, ['ttftMs', 'itlMs', 'isl', 'osl']);
  for (const key of ['ttftMs', 'itlMs'] as const) {
    if (sla[key] === undefined) d.error(join(path, key), 'is required: a latency target in milliseconds', 'required');
    else checkNumber(d, join(path, key), sla[key], { min: 0, exclusiveMin: true });
  }
  return true;
}
