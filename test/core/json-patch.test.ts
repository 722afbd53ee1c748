import { applyJsonPatch, checkJsonPatch, Diagnostics, JsonPatchOperation } from '../../src/core/internal';

/** JSON Patch (RFC 6902) as the Pulumi components' patches apply it to the rendered graph. */
function apply(doc: unknown, ops: JsonPatchOperation[]) {
  const d = new Diagnostics();
  const out = applyJsonPatch(d, doc, ops);
  return { out, errors: d.errors.map((e) => `${e.path}: ${e.message}`) };
}

const doc = { spec: { containers: [{ name: 'main' }, { name: 'side' }], 'a/b': 1, 'm~n': 2 } };

test('add, remove, replace, move, copy and test, in order, on a copy', () => {
  const { out, errors } = apply(doc, [
    { op: 'add', path: '/spec/containers/1', value: { name: 'mid' } },
    { op: 'add', path: '/spec/containers/-', value: { name: 'last' } },
    { op: 'remove', path: '/spec/containers/0' },
    { op: 'replace', path: '/spec/a~1b', value: 10 },
    { op: 'move', from: '/spec/m~0n', path: '/spec/moved' },
    { op: 'copy', from: '/spec/containers/0', path: '/spec/first' },
    { op: 'test', path: '/spec/first/name', value: 'mid' },
  ]);
  expect(errors).toEqual([]);
  expect(out).toEqual({ spec: { containers: [{ name: 'mid' }, { name: 'side' }, { name: 'last' }], 'a/b': 10, moved: 2, first: { name: 'mid' } } });
  // the input is untouched
  expect(doc.spec.containers).toEqual([{ name: 'main' }, { name: 'side' }]);
});

test.each<[string, JsonPatchOperation, string]>([
  ['a missing parent', { op: 'add', path: '/spec/none/x', value: 1 }, 'patches[0]: add /spec/none/x: its parent does not exist (or the index is out of range)'],
  ['an index past the end', { op: 'add', path: '/spec/containers/5', value: 1 }, 'patches[0]: add /spec/containers/5: its parent does not exist (or the index is out of range)'],
  ['removing what is not there', { op: 'remove', path: '/spec/none' }, 'patches[0]: remove /spec/none: nothing is there to remove'],
  ['replacing what is not there', { op: 'replace', path: '/spec/containers/2', value: 1 }, 'patches[0]: replace /spec/containers/2: nothing is there to replace'],
  ['a failed test', { op: 'test', path: '/spec/a~1b', value: 2 }, 'patches[0]: test /spec/a~1b: the value is 1, not 2'],
  ['a move into itself', { op: 'move', from: '/spec', path: '/spec/inner' }, 'patches[0]: move /spec/inner: cannot move /spec into itself'],
])('%s is an error naming the operation and the pointer; later operations are not applied', (_what, op, message) => {
  const { out, errors } = apply(doc, [op, { op: 'add', path: '/after', value: true }]);
  expect(errors).toEqual([message]);
  expect((out as Record<string, unknown>).after).toBeUndefined();
});

test('operations are checked for shape before any applies: the op, the pointers, the value', () => {
  const d = new Diagnostics();
  const ok = checkJsonPatch(d, 'patches', [{ op: 'add', path: 'x', value: 1 }, { op: 'copy', path: '/y' }, { op: 'replace', path: '/z' }, { op: 'merge', path: '/w' }, null]);
  expect(ok).toBe(false);
  expect(d.errors.map((e) => e.path)).toEqual(['patches[0].path', 'patches[1].from', 'patches[2].value', 'patches[3]', 'patches[4]']);
});
