import * as fs from 'fs';
import * as path from 'path';
import { Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { EXAMPLES } from '../../examples';
import { DynamoValidationError, Diagnostics, patchPointer, RELEASES } from '../../src/core/internal';
import { GRAPH_FORMATS, graphFormatOf } from '../../src/core/model/graph-formats';

/** One writer and one reader per API version of the graph: what is read and written back is what was read. */

const FIXTURES = path.resolve(__dirname, '../fixtures');

/** Objects compared as Kubernetes compares them: key order is not part of an object. */
const canonical = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(canonical) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])])) : v;

function yamlFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? yamlFiles(path.join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [path.join(dir, e.name)] : []));
}

/** Every graph of the examples and the test fixtures (Dynamo's own manifests among them), with where it came from. */
function graphs(): [string, Record<string, unknown>][] {
  const found: [string, Record<string, unknown>][] = [];
  for (const [name, Chart] of Object.entries(EXAMPLES)) {
    for (const o of Testing.synth(new Chart(Testing.app(), name))) if (o.kind === 'DynamoGraphDeployment') found.push([`examples/${name}`, o]);
  }
  for (const file of yamlFiles(FIXTURES)) {
    let docs: unknown[];
    try {
      docs = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => d.toJS());
    } catch {
      continue; // the broken-YAML fixtures of lint
    }
    for (const o of docs) {
      if ((o as { kind?: unknown } | null)?.kind === 'DynamoGraphDeployment') found.push([path.relative(FIXTURES, file), o as Record<string, unknown>]);
    }
  }
  return found;
}

const all = graphs();

test('the examples and fixtures hold graphs of both API versions', () => {
  const versions = new Set(all.map(([, g]) => g.apiVersion));
  expect([...versions].sort()).toEqual(['nvidia.com/v1alpha1', 'nvidia.com/v1beta1']);
  expect(all.length).toBeGreaterThan(40);
});

test.each(all)('%s: read into the normalized graph and written back, it is what was read', (_source, graph) => {
  const format = graphFormatOf(graph.apiVersion);
  const back = format.write(format.read(graph) as never, {});
  expect(canonical(back)).toEqual(canonical(graph));
});

test('every release line writes an API version the registry has', () => {
  for (const release of Object.values(RELEASES)) expect(Object.keys(GRAPH_FORMATS)).toContain(release.apiVersion);
});

test('patch pointers per API version, and a path that is no pointer', () => {
  const d = new Diagnostics();
  expect(patchPointer(d, 'nvidia.com/v1beta1', '/spec/components/2', 'container', '/env/-')).toBe('/spec/components/2/podTemplate/spec/containers/0/env/-');
  expect(patchPointer(d, 'nvidia.com/v1alpha1', '/spec/services/Frontend', 'pod', '/hostNetwork')).toBe('/spec/services/Frontend/extraPodSpec/hostNetwork');
  expect(d.errors).toEqual([]);
  patchPointer(d, 'nvidia.com/v1beta1', '/spec/components/0', 'pod', '~bad', 'patch');
  expect(() => d.throwIfErrors()).toThrow(DynamoValidationError);
});
