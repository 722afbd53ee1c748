/**
 * Options a deployment validated as a whole. The components it builds from
 * them skip checking them again; anything else is checked as usual.
 */
const CHECKED = new WeakSet<object>();

/** Marks an options object as validated. @internal */
export function markChecked<T extends object>(options: T): T {
  CHECKED.add(options);
  return options;
}

/** Whether a deployment validated this options object already. @internal */
export function isChecked(options: unknown): boolean {
  return typeof options === 'object' && options !== null && CHECKED.has(options);
}
