import { Diagnostics } from '../base/errors';
import { RuleId, RULES, Severity } from '../base/rule-catalog';
import { Located, Place, ServiceModel } from '../model/graph-model';

/** One problem a rule found in a manifest. */
export interface Finding extends Place {
  readonly rule: RuleId;
  readonly severity: Severity;
  /** What is wrong: the value found and the fix. Does not repeat the location. */
  readonly message: string;
  /** The service (1.x: the component's `name`; 0.8/0.9: its key under `spec.services`), or undefined for the object itself. */
  readonly service?: string;
}

/** Collects the findings of the rules run over one object. */
export class Findings {
  public readonly all: Finding[] = [];

  private readonly seen = new Set<string>();

  public report(rule: RuleId, service: ServiceModel | string | undefined, place: Place, message: string): void {
    const name = typeof service === 'string' ? service : service?.name;
    const key = `${rule}\u0000${name}\u0000${place.field}\u0000${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.all.push({
      rule,
      severity: RULES[rule].severity,
      message,
      service: name,
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
    // `$(VAR)` (expanded by Kubernetes) or `${VAR}` (by a shell): the value is not in the manifest
    if (typeof value.value === 'string' && value.value.includes('$')) return undefined;
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

/** Whether option path `a` is `b` or lies inside it. */
function within(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || a.startsWith(`${b}[`);
}

/**
 * When the options have errors, what the rules find on a draft rendered from
 * them joins the same error, so that every problem shows at once. Kept are the
 * findings the option errors do not explain: none at or around an option that
 * has an error (except a finding about a whole component, such as its name),
 * and no value range on a component whose options have errors (its draft
 * values come from them). `draft` may throw: options too broken to render
 * report their own errors only.
 */
export function reportDraftFindings(
  d: Diagnostics,
  draft: () => readonly Finding[] | undefined,
  locate: (f: Finding) => string,
  componentPaths: readonly string[],
): void {
  const optionErrors = d.errors.map((e) => e.path);
  let found: readonly Finding[] | undefined;
  try {
    found = draft();
  } catch {
    return;
  }
  const rules = new Diagnostics();
  reportFindings(rules, found ?? [], locate);
  const componentOf = (path: string) => componentPaths.filter((c) => c !== '' && within(path, c)).sort((a, b) => b.length - a.length)[0];
  for (const e of rules.errors) {
    const whole = componentPaths.includes(e.path);
    if (!whole && optionErrors.some((p) => within(p, e.path) || within(e.path, p))) continue;
    const component = componentOf(e.path);
    if (e.rule === 'value-range' && (component === undefined ? optionErrors.length > 0 : optionErrors.some((p) => within(p, component)))) continue;
    d.errors.push(e);
  }
}
