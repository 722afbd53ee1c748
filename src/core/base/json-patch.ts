import { Diagnostics, show } from './errors';

/** One JSON Patch operation (RFC 6902), as plain data. */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'];

/** The tokens of a JSON pointer (RFC 6901); undefined when `pointer` is not one. */
function tokensOf(pointer: unknown): string[] | undefined {
  if (pointer === '') return [];
  if (typeof pointer !== 'string' || !/^(\/([^~]|~[01])*)+$/.test(pointer)) return undefined;
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Checks that `ops` is a list of operations with JSON pointers, each problem an error at `field[i]`. */
export function checkJsonPatch(d: Diagnostics, field: string, ops: readonly unknown[]): boolean {
  const before = d.errors.length;
  ops.forEach((raw, i) => {
    const o = raw as Record<string, unknown> | null;
    const at = `${field}[${i}]`;
    if (typeof o !== 'object' || o === null || !OPS.includes(o.op as string)) {
      d.error(at, `must be a JSON Patch operation ({ op, path, value? from? }, op one of ${OPS.join(', ')}), got ${show(raw)}`, 'value-format');
      return;
    }
    if (tokensOf(o.path) === undefined) d.error(`${at}.path`, `must be a JSON pointer starting with "/" (e.g. "/hostNetwork"), got ${show(o.path)}`, 'value-format');
    if ((o.op === 'move' || o.op === 'copy') && tokensOf(o.from) === undefined) d.error(`${at}.from`, `must be a JSON pointer starting with "/", got ${show(o.from)}`, 'value-format');
    if ((o.op === 'add' || o.op === 'replace' || o.op === 'test') && !('value' in o)) d.error(`${at}.value`, `is required for op "${o.op}"`, 'required');
  });
  return d.errors.length === before;
}

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));
const equal = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * `doc` with `ops` applied in order (RFC 6902), on a copy. An operation that does not apply (a
 * missing parent, an index out of range, a failed test) is an error on `d` at `fieldOf(i)`,
 * naming the pointer; the operations after it are not applied.
 */
export function applyJsonPatch<T>(d: Diagnostics, doc: T, ops: readonly JsonPatchOperation[], fieldOf: (index: number) => string = (i) => `patches[${i}]`): T {
  let root: unknown = clone(doc);
  for (const [i, op] of ops.entries()) {
    const fail = (why: string) => d.error(fieldOf(i), `${op.op} ${op.path}: ${why}`, 'value-format');
    // the container of the pointer's last token, and that token
    const locate = (pointer: string): { parent: any; key: string } | undefined => {
      const tokens = tokensOf(pointer)!;
      let parent: any = root;
      for (const t of tokens.slice(0, -1)) {
        const next = Array.isArray(parent) ? parent[Number(t)] : typeof parent === 'object' && parent !== null && Object.prototype.hasOwnProperty.call(parent, t) ? parent[t] : undefined;
        if (typeof next !== 'object' || next === null) return undefined;
        parent = next;
      }
      return { parent, key: tokens[tokens.length - 1] };
    };
    const read = (pointer: string): { found: boolean; value?: unknown } => {
      if (pointer === '') return { found: true, value: root };
      const at = locate(pointer);
      if (!at) return { found: false };
      if (Array.isArray(at.parent)) return /^(0|[1-9]\d*)$/.test(at.key) && Number(at.key) < at.parent.length ? { found: true, value: at.parent[Number(at.key)] } : { found: false };
      return Object.prototype.hasOwnProperty.call(at.parent, at.key) ? { found: true, value: at.parent[at.key] } : { found: false };
    };
    const remove = (pointer: string): boolean => {
      if (!read(pointer).found || pointer === '') return false;
      const at = locate(pointer)!;
      if (Array.isArray(at.parent)) at.parent.splice(Number(at.key), 1);
      else delete at.parent[at.key];
      return true;
    };
    const add = (pointer: string, value: unknown): boolean => {
      if (pointer === '') {
        root = value;
        return true;
      }
      const at = locate(pointer);
      if (!at) return false;
      if (Array.isArray(at.parent)) {
        const index = at.key === '-' ? at.parent.length : /^(0|[1-9]\d*)$/.test(at.key) ? Number(at.key) : -1;
        if (index < 0 || index > at.parent.length) return false;
        at.parent.splice(index, 0, value);
      } else {
        at.parent[at.key] = value;
      }
      return true;
    };
    let ok: boolean;
    switch (op.op) {
      case 'add':
        ok = add(op.path, clone(op.value)) || (fail('its parent does not exist (or the index is out of range)'), false);
        break;
      case 'remove':
        ok = remove(op.path) || (fail('nothing is there to remove'), false);
        break;
      case 'replace':
        ok = (read(op.path).found && remove(op.path) && add(op.path, clone(op.value))) || (op.path === '' && add('', clone(op.value))) || (fail('nothing is there to replace'), false);
        break;
      case 'test': {
        const found = read(op.path);
        ok = (found.found && equal(found.value, op.value)) || (fail(found.found ? `the value is ${show(found.value)}, not ${show(op.value)}` : 'nothing is there'), false);
        break;
      }
      default: {
        const source = read(op.from);
        if (!source.found) {
          ok = (fail(`nothing is at ${op.from}`), false);
        } else if (op.op === 'move' && op.path.startsWith(`${op.from}/`)) {
          ok = (fail(`cannot move ${op.from} into itself`), false);
        } else {
          const value = clone(source.value);
          if (op.op === 'move') remove(op.from);
          ok = add(op.path, value) || (fail('its parent does not exist (or the index is out of range)'), false);
        }
      }
    }
    if (!ok) break;
  }
  return root as T;
}
