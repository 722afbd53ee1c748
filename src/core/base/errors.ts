import type { ErrorRuleId, RuleId, WarningRuleId } from './rule-catalog';

/**
 * One problem found while validating a spec.
 *
 * `path` names the option as the user wrote it (`decode.tensorParallelSize`),
 * `message` says what was given and what is allowed.
 */
export interface ValidationIssue {
  /** Dotted path of the offending option, e.g. `prefill.tensorParallelSize`. */
  readonly path: string;
  /** What is wrong, the value given and what is allowed. */
  readonly message: string;
  /** Identifier of the rule that found the problem, e.g. `value-range` (see `RULES`). */
  readonly rule: RuleId;
}

/** Something legal but probably wrong (e.g. disaggregation over TCP). */
export interface ValidationWarning extends ValidationIssue {}

/**
 * Thrown by every entry point of the library when a spec is invalid.
 *
 * Lists every problem found, not only the first one.
 */
export class DynamoValidationError extends Error {
  /** Every problem found, in the order they were found. */
  public readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[]) {
    const lines = issues.map((i) => `  - ${i.path}: ${i.message} [${i.rule}]`);
    super(`${issues.length} invalid option${issues.length === 1 ? '' : 's'}:\n${lines.join('\n')}`);
    this.name = 'DynamoValidationError';
    this.issues = issues;
    Object.setPrototypeOf(this, DynamoValidationError.prototype);
  }
}

/**
 * Collects errors and warnings while a spec is checked, so that all of them
 * can be reported together.
 */
export class Diagnostics {
  public readonly errors: ValidationIssue[] = [];
  public readonly warnings: ValidationWarning[] = [];

  public error(path: string, message: string, rule: ErrorRuleId): void {
    this.errors.push({ path, message, rule });
  }

  public warn(path: string, message: string, rule: WarningRuleId): void {
    this.warnings.push({ path, message, rule });
  }

  /** Throws a `DynamoValidationError` carrying every error collected so far. */
  public throwIfErrors(): void {
    if (this.errors.length > 0) {
      throw new DynamoValidationError(dedupe(this.errors));
    }
  }
}

/** Throws if `check` found any problem; returns the warnings otherwise. */
export function validate(check: (d: Diagnostics) => void): ValidationWarning[] {
  const d = new Diagnostics();
  check(d);
  d.throwIfErrors();
  return dedupe(d.warnings);
}

/** The issues without repeats (same path, message and rule). */
export function dedupe<T extends ValidationIssue>(items: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    const key = `${item.path}\u0000${item.message}\u0000${item.rule}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(item);
    }
  }
  return out;
}

/** Renders a user-supplied value for an error message. */
/** What JSON leaves as it is but a terminal acts on: C1 controls and bidirectional overrides, as \u escapes. */
function escapeInvisible(json: string): string {
  return json.replace(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return escapeInvisible(JSON.stringify(value));
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return value.toString();
  if (typeof value === 'function') return 'a function';
  try {
    const json = JSON.stringify(value, (_key, v: unknown) =>
      typeof v === 'bigint' ? `${v}n` : typeof v === 'symbol' ? v.toString() : typeof v === 'function' ? 'a function' : v,
    );
    return json === undefined ? 'a value JSON cannot show' : escapeInvisible(json);
  } catch {
    return 'an object that refers to itself';
  }
}
