import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

/**
 * What each entry point loads when it is imported, read from the sources:
 * static imports and re-exports, followed through relative paths. Type-only
 * imports and `require` calls inside functions (loaded on first use) are not
 * loaded at import.
 */

const SRC = path.resolve(__dirname, '../src');

interface ModuleImports {
  /** Imports run when the module loads. */
  readonly eager: string[];
  /** `require(...)` calls inside functions. */
  readonly lazy: string[];
}

function importsOf(file: string): ModuleImports {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const eager: string[] = [];
  const lazy: string[] = [];
  const visit = (node: ts.Node, inFunction: boolean) => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
      const named = node.importClause?.namedBindings;
      const allTypes = named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly) && !node.importClause?.name;
      if (!allTypes) eager.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      eager.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isImportEqualsDeclaration(node) && !node.isTypeOnly && ts.isExternalModuleReference(node.moduleReference)) {
      // import x = require('...')
      (inFunction ? lazy : eager).push((node.moduleReference.expression as ts.StringLiteral).text);
    } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require' && ts.isStringLiteral(node.arguments[0])) {
      (inFunction ? lazy : eager).push(node.arguments[0].text);
    }
    // a function defers its requires, unless it is called where it is defined: (() => require('x'))()
    const invoked = node.parent !== undefined && ts.isParenthesizedExpression(node.parent) && ts.isCallExpression(node.parent.parent) && node.parent.parent.expression === node.parent;
    const fn = ts.isFunctionLike(node) && !invoked;
    ts.forEachChild(node, (child) => visit(child, inFunction || fn));
  };
  visit(source, false);
  return { eager, lazy };
}

function resolveRelative(from: string, spec: string): string {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  throw new Error(`${path.relative(SRC, from)} imports ${spec}, which does not resolve`);
}

/** The source files an entry point loads, and the packages they import at load. */
function loadedBy(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [path.join(SRC, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of importsOf(file).eager) {
      if (spec.startsWith('.')) pending.push(resolveRelative(file, spec));
      else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  }
  return { files, packages };
}

const BUILTINS = new Set(['fs', 'path', 'os', 'child_process']);
const ENGINES = ['cdk8s', 'constructs', 'cdk8s-plus-28', '@pulumi/pulumi', '@pulumi/kubernetes'];

test('the core entry point loads no package when imported: no engine; yaml and the Grafana SDK only when used', () => {
  const core = loadedBy('index.ts');
  expect([...core.packages]).toEqual([]);
  expect([...core.files].every((f) => f.startsWith(path.join(SRC, 'core')) || f === path.join(SRC, 'index.ts'))).toBe(true);
  const lazy = [...core.files].flatMap((f) => importsOf(f).lazy);
  expect(new Set(lazy)).toEqual(new Set(['yaml', '@grafana/grafana-foundation-sdk/dashboard', '@grafana/grafana-foundation-sdk/prometheus', '@grafana/grafana-foundation-sdk/timeseries', '@grafana/grafana-foundation-sdk/stat', '@grafana/grafana-foundation-sdk/statetimeline', '@grafana/grafana-foundation-sdk/common']));
});

test('the cdk8s shell loads cdk8s and never Pulumi; the Pulumi shell the reverse', () => {
  const cdk8s = [...loadedBy('cdk8s/index.ts').packages];
  const pulumi = [...loadedBy('pulumi/index.ts').packages];
  expect(cdk8s.sort()).toEqual(['cdk8s', 'constructs']);
  expect(pulumi.sort()).toEqual(['@pulumi/kubernetes', '@pulumi/pulumi']);
  const cli = [...loadedBy('cli/main.ts').packages].filter((p) => !BUILTINS.has(p));
  expect(cli.filter((p) => ENGINES.includes(p))).toEqual([]);
});

test('the shells and the command line reach the core only through its entry points (public and internal), so that a bundle shares one core', () => {
  const deep: string[] = [];
  const tsFiles = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
  for (const dir of ['cdk8s', 'pulumi', 'cli']) {
    for (const file of tsFiles(path.join(SRC, dir))) {
      const { eager, lazy } = importsOf(file);
      for (const spec of [...eager, ...lazy].filter((s) => s.startsWith('.'))) {
        // whatever the file's depth, what it imports must be in its own shell or be one of the core's entries
        const target = path.resolve(path.dirname(file), spec);
        if (!target.startsWith(path.join(SRC, dir)) && target !== path.join(SRC, 'core') && target !== path.join(SRC, 'core', 'internal')) deep.push(`${path.relative(SRC, file)}: ${spec}`);
      }
    }
  }
  expect(deep).toEqual([]);
});

test("the core's public entry only re-exports (its bundle takes each name from the internal one), and names what it exports", () => {
  const source = ts.createSourceFile('index.ts', fs.readFileSync(path.join(SRC, 'core', 'index.ts'), 'utf8'), ts.ScriptTarget.ES2022, true);
  const other = source.statements.filter((s) => !(ts.isExportDeclaration(s) && s.moduleSpecifier && s.exportClause && ts.isNamedExports(s.exportClause)));
  expect(other.map((s) => s.getText())).toEqual([]);
});

/**
 * The core's folders, lowest first: each imports only from its own folder and the ones before it.
 * `base` (errors, checks, Kubernetes helpers, the rule catalog), `releases` (the versions table),
 * `engines` (the engine renderers), `model` (the graph model and its readers and writers), `rules`,
 * `graph` (the graph's concepts), `observability`, `cluster` (charts, Flux, Secrets), `deployments`.
 */
const CORE_LAYERS = ['base', 'releases', 'engines', 'model', 'rules', 'graph', 'observability', 'cluster', 'deployments'];

/** Every import of every core file, type-only ones included: a type import is a dependency too. */
function coreImports(): Map<string, string[]> {
  const core = path.join(SRC, 'core');
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
  const graph = new Map<string, string[]>();
  for (const file of files(core)) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const targets: string[] = [];
    source.forEachChild((node) => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text.startsWith('.')) {
        targets.push(resolveRelative(file, node.moduleSpecifier.text));
      }
    });
    graph.set(file, targets);
  }
  return graph;
}

const layerOf = (file: string): number => {
  const rel = path.relative(path.join(SRC, 'core'), file).split(path.sep);
  return rel.length === 1 ? CORE_LAYERS.length : CORE_LAYERS.indexOf(rel[0]);
};

test('every core file lives in a layer folder, and imports only from its own layer or lower ones', () => {
  const graph = coreImports();
  const outside = [...graph.keys()].filter((f) => layerOf(f) === -1).map((f) => path.relative(SRC, f));
  expect(outside).toEqual([]);
  const upward = [...graph].flatMap(([file, targets]) => targets.filter((t) => layerOf(t) > layerOf(file)).map((t) => `${path.relative(SRC, file)} -> ${path.relative(SRC, t)}`));
  expect(upward).toEqual([]);
});

test('no import cycle in the core, type imports included', () => {
  const graph = coreImports();
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, trail: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(SRC, f)).join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const t of graph.get(file) ?? []) visit(t, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  expect(cycles).toEqual([]);
});
