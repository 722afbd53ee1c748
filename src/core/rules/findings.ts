import { Diagnostics } from '../errors';
import { RuleId, RULES, Severity } from './catalog';
import { Located, Place, ServiceModel } from './graph-model';

/** One problem a rule found in a manifest. */
export interface Finding extends Place {
  readonly rule: RuleId;
  readonly severity: Severity;
  /** What is wrong: the value found and the fix. Does not repeat the location. */
  readonly message: string;
  /** The service (key under `spec.services`), or undefined for the object itself. */
  readonly service?: string;
}

/** Collects the findings of the rules run over one object. */
export class Findings {
  public readonly all: Finding[] = [];

  public report(rule: RuleId, service: ServiceModel | string | undefined, place: Place, message: string): void {
    this.all.push({
      rule,
      severity: RULES[rule].severity,
      message,
      service: typeof service === 'string' ? service : service?.name,
      field: place.field,
      option: place.option,
    });
  }

  /**
   * Runs an option check (`checkInteger`, `checkNumber`...) on a value found
   * in the manifest and reports what it finds at `place`. Returns whether the
   * value passed.
   */
  public check(service: ServiceModel | undefined, place: Place, check: (d: Diagnostics, path: string) => void): boolean {
    const d = new Diagnostics();
    check(d, '');
    for (const e of d.errors) this.report(e.rule, service, place, e.message);
    return d.errors.length === 0;
  }

  /**
   * A number read from a flag or an environment variable (strings in a
   * manifest), checked like the option it corresponds to.
   */
  public checkNumeric(
    service: ServiceModel | undefined,
    value: Located<string | number | true> | undefined,
    check: (d: Diagnostics, path: string, n: number) => void,
  ): number | undefined {
    if (value === undefined) return undefined;
    const n = typeof value.value === 'number' ? value.value : typeof value.value === 'string' && value.value.trim() !== '' ? Number(value.value) : NaN;
    if (!Number.isFinite(n)) {
      this.report('value-range', service, value, `must be a number, got ${value.value === true ? 'no value' : JSON.stringify(value.value)}`);
      return undefined;
    }
    return this.check(service, value, (d, path) => check(d, path, n)) ? n : undefined;
  }
}

/** Where a finding points: `Service.field` (or the field of the object). */
export function manifestPath(f: Finding): string {
  if (f.service === undefined) return f.field;
  return f.field === '' ? f.service : `${f.service}.${f.field}`;
}

/**
 * Turns findings into a Diagnostics' errors and warnings, at the paths `locate`
 * gives (manifest paths for lint, option paths for the constructs).
 */
export function reportFindings(d: Diagnostics, findings: readonly Finding[], locate: (f: Finding) => string = manifestPath): void {
  for (const f of findings) {
    const path = locate(f);
    if (f.severity === 'error') d.errors.push({ path, message: f.message, rule: f.rule });
    else d.warnings.push({ path, message: f.message, rule: f.rule });
  }
}
