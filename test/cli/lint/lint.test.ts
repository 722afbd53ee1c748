import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { CrdSchemas, CrdValidator, loadCrds } from '../../../src/cli/lint/crd-schema';
import { LintFinding, LintNote, lintSources, LintSource } from '../../../src/cli/lint/lint';
import { serverFindings } from '../../../src/cli/lint/server';
import { run } from '../../../src/cli/main';
import { RuleId, RULES, severityOf } from '../../../src/core/rules';
import { CRD_DIR, CRD_V1BETA1_DIR } from '../../support/crd';

/**
 * `dynamo-constructs lint`, run in-process through `run(argv, io)` against
 * Dynamo's CRDs in ../shared/dynamo/crds.
 *
 * The broken fixtures describe themselves in their leading comments, and the
 * table below is read from them:
 *
 *   # breaks: <rule-id>: <what was changed>
 *   # at: <the path the linter prints for that finding>
 *   # also: <rule-id> at <path>        (one per further finding the change legitimately causes)
 *
 * Files named warn-*.yaml break a warning-severity rule only.
 */

/*
 * Loading the CRDs (a 780 KB YAML) and compiling their schemas costs ~0.5 s,
 * which every run() would pay again. The CLI still receives `--crds <dir>` and
 * checks it; only the work is memoized: one path gives the same schemas, and
 * the same schemas the same compiled validator.
 */
jest.mock('../../../src/cli/lint/crd-schema', () => {
  const actual = jest.requireActual<typeof import('../../../src/cli/lint/crd-schema')>('../../../src/cli/lint/crd-schema');
  const { resolve } = jest.requireActual<typeof import('path')>('path');
  const loaded = new Map<string, CrdSchemas[]>();
  const ids = new WeakMap<object, number>();
  let nextId = 0;
  const idOf = (o: object) => {
    if (!ids.has(o)) ids.set(o, nextId++);
    return ids.get(o)!;
  };
  const validators = new Map<string, InstanceType<typeof actual.CrdValidator>>();
  class MemoizedCrdValidator extends actual.CrdValidator {
    constructor(crds: readonly CrdSchemas[], options: { readonly strictMetadata?: boolean } = {}) {
      const key = `${crds.map(idOf).join(',')}|${JSON.stringify(options)}`;
      const known = validators.get(key);
      if (known) return known;
      super(crds, options);
      validators.set(key, this);
    }
  }
  return {
    ...actual,
    CrdValidator: MemoizedCrdValidator,
    loadCrds: (file: string) => {
      const key = resolve(file);
      if (!loaded.has(key)) loaded.set(key, actual.loadCrds(file));
      return loaded.get(key)!;
    },
  };
});

if (!fs.existsSync(CRD_DIR)) {
  throw new Error(`Dynamo CRDs not found at ${CRD_DIR}: the lint tests validate against ../shared/dynamo/crds (next to the repository)`);
}

// ---------------------------------------------------------------------------
// Helpers

const FIXTURES = path.resolve(__dirname, '../../fixtures/lint');
const VALID_DIR = path.join(FIXTURES, 'valid');
const BROKEN_DIR = path.join(FIXTURES, 'broken');

function yamlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

const VALID = yamlFiles(VALID_DIR);
const BROKEN = yamlFiles(BROKEN_DIR);
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the command line with captured output. */
function cli(argv: readonly string[], stdin = ''): CliRun {
  let stdout = '';
  let stderr = '';
  const status = run(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    stdin: () => stdin,
  });
  if (typeof status !== 'number') throw new Error('only --server runs asynchronously');
  return { status, stdout, stderr };
}

/** `dynamo-constructs lint --crds <Dynamo CRDs> ...args`. */
const lint = (args: readonly string[], stdin?: string) => cli(['lint', '--crds', CRD_DIR, ...args], stdin);

interface JsonReport {
  readonly findings: LintFinding[];
  readonly notes: LintNote[];
  readonly summary: { readonly files: number; readonly errors: number; readonly warnings: number };
}

/** `lint --format json`; the whole of stdout must parse. */
function lintJson(args: readonly string[], stdin?: string): CliRun & { readonly report: JsonReport } {
  const r = lint(['--format', 'json', ...args], stdin);
  return { ...r, report: JSON.parse(r.stdout) as JsonReport };
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const summaryLine = (errors: number, warnings: number, files: number) =>
  `${plural(errors, 'error')}, ${plural(warnings, 'warning')} in ${plural(files, 'file')}`;

/** How a finding reads in the text format. */
const textLine = (f: LintFinding) => `${f.file}: ${f.path}: ${f.severity === 'warning' ? 'warning: ' : ''}${f.message} [${f.rule}]`;
/** `rule at path`, the form the fixture headers use. */
const located = (f: { readonly rule: string; readonly path: string }) => `${f.rule} at ${f.path}`;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const RULE_IDS = Object.keys(RULES) as RuleId[];
/** `<file>: <path>: [warning: ]<message> [<rule-id>]`, with a rule of the catalog. */
const lineFormat = (file: string) => new RegExp(`^${escape(file)}: (\\S.*?): (warning: )?(\\S.*) \\[(${RULE_IDS.map(escape).join('|')})\\]$`);

/** Replaces text that must occur exactly once. */
function edit(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`expected ${JSON.stringify(from)} exactly once`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

interface Expected {
  readonly rule: RuleId;
  readonly path: string;
}

interface BrokenFixture {
  readonly file: string;
  readonly name: string;
  readonly breaks: Expected & { readonly change: string };
  readonly also: readonly Expected[];
  /** warn-*.yaml: only warnings. */
  readonly warnOnly: boolean;
}

function ruleId(file: string, id: string): RuleId {
  if (!(id in RULES)) throw new Error(`${file}: ${id} is not a rule of the catalog`);
  return id as RuleId;
}

/** Reads a broken fixture's header. */
function brokenFixture(file: string): BrokenFixture {
  const header: string[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('#')) break;
    header.push(line);
  }
  const matches = (pattern: RegExp, prefix: string) => {
    const found = header.filter((l) => l.startsWith(prefix));
    const bad = found.find((l) => !pattern.test(l));
    if (bad) throw new Error(`${file}: malformed header line ${JSON.stringify(bad)}`);
    return found.map((l) => pattern.exec(l)!);
  };
  const breaks = matches(/^# breaks: ([a-z-]+): (\S.*)$/, '# breaks:');
  const at = matches(/^# at: (\S.*)$/, '# at:');
  const also = matches(/^# also: ([a-z-]+) at (\S.*)$/, '# also:');
  if (breaks.length !== 1 || at.length !== 1) {
    throw new Error(`${file}: the header needs one "# breaks: <rule-id>: <change>" and one "# at: <path>" line`);
  }
  const name = path.basename(file);
  return {
    file,
    name,
    breaks: { rule: ruleId(file, breaks[0][1]), change: breaks[0][2], path: at[0][1] },
    also: also.map((m) => ({ rule: ruleId(file, m[1]), path: m[2] })),
    warnOnly: name.startsWith('warn-'),
  };
}

const BROKEN_FIXTURES = BROKEN.map(brokenFixture);

// ---------------------------------------------------------------------------

describe('fixtures', () => {
  test('there are valid and broken fixtures', () => {
    expect(VALID.length).toBeGreaterThan(5);
    expect(BROKEN.length).toBeGreaterThan(20);
  });

  test.each(BROKEN_FIXTURES.map((f) => [f.name, f] as const))('%s is named after the rule it breaks, warn- for warnings', (name, f) => {
    expect(name.replace(/^warn-/, '').replace(/(-\d+)?\.yaml$/, '')).toBe(f.breaks.rule);
    expect(f.warnOnly).toBe(RULES[f.breaks.rule].severity === 'warning');
  });
});

describe('valid fixtures', () => {
  test('linted together: exit 0, no findings, no notes', () => {
    const r = lint(VALID);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${summaryLine(0, 0, VALID.length)}\n`);
    expect(r.status).toBe(0);
  });

  test.each(VALID.map((f) => [path.basename(f), f]))('%s alone: exit 0, no findings, no notes', (_name, file) => {
    const r = lint([file]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${summaryLine(0, 0, 1)}\n`);
    expect(r.status).toBe(0);
  });

  test('--strict changes nothing', () => {
    expect(lint(['--strict', ...VALID])).toEqual({ status: 0, stdout: '', stderr: `${summaryLine(0, 0, VALID.length)}\n` });
  });
});

describe.each(BROKEN_FIXTURES.map((f) => [f.name, f] as const))('broken/%s', (_name, f) => {
  let text: CliRun;
  let json: CliRun & { report: JsonReport };
  let strict: CliRun;
  beforeAll(() => {
    text = lint([f.file]);
    json = lintJson([f.file]);
    strict = lint(['--strict', f.file]);
  });

  test(`prints ${f.breaks.rule} at ${f.breaks.path}`, () => {
    expect(json.report.findings.map(located)).toContain(located(f.breaks));
    const printed = lines(text.stdout).filter((l) => l.startsWith(`${f.file}: ${f.breaks.path}: `) && l.endsWith(` [${f.breaks.rule}]`));
    expect(printed).not.toHaveLength(0);
  });

  test('reports exactly the findings of its breaks and also lines', () => {
    const expected = [f.breaks, ...f.also].map(located).sort();
    expect(json.report.findings.map(located).sort()).toEqual(expected);
  });

  test(`exits ${f.warnOnly ? '0 (warnings only)' : '1 (errors)'}`, () => {
    const severities = new Set(json.report.findings.map((x) => x.severity));
    if (f.warnOnly) expect([...severities]).toEqual(['warning']);
    else expect(severities).toContain('error');
    expect(text.status).toBe(f.warnOnly ? 0 : 1);
    expect(json.status).toBe(text.status);
    const errors = json.report.findings.filter((x) => x.severity === 'error').length;
    expect(text.stderr).toBe(`${summaryLine(errors, json.report.findings.length - errors, 1)}\n`);
  });

  test('--strict exits 1 and reports every finding as an error', () => {
    expect(strict.status).toBe(1);
    expect(strict.stdout).not.toContain(': warning: ');
    expect(strict.stdout).toBe(text.stdout.split(': warning: ').join(': '));
    expect(strict.stderr).toBe(`${summaryLine(json.report.findings.length, 0, 1)}\n`);
  });

  test('every line reads <file>: <path>: [warning: ]<message> [<rule-id>], warnings marked', () => {
    const format = lineFormat(f.file);
    const printed = lines(text.stdout);
    expect(printed).toHaveLength(json.report.findings.length);
    for (const line of printed) {
      const m = format.exec(line);
      if (!m) throw new Error(`unexpected output line: ${line}`);
      const rule = m[4] as RuleId;
      expect({ line, warning: m[2] !== undefined }).toEqual({ line, warning: RULES[rule].severity === 'warning' });
    }
  });

  test('--format json gives the same findings as the text format', () => {
    const { findings, notes, summary } = json.report;
    expect(Object.keys(json.report).sort()).toEqual(['findings', 'notes', 'summary']);
    expect(findings.map(textLine)).toEqual(lines(text.stdout));
    for (const x of findings) {
      expect(x).toEqual(
        expect.objectContaining({
          file: f.file,
          document: expect.any(Number),
          path: expect.any(String),
          severity: severityOf(x.rule),
          rule: expect.any(String),
          message: expect.any(String),
        }),
      );
      // a YAML syntax error has no object, hence no kind or name
      if (x.rule !== 'yaml-syntax') expect(x).toEqual(expect.objectContaining({ kind: expect.any(String), name: expect.any(String) }));
    }
    expect(notes).toEqual([]);
    expect(summary).toEqual({
      files: 1,
      errors: findings.filter((x) => x.severity === 'error').length,
      warnings: findings.filter((x) => x.severity === 'warning').length,
    });
    expect(json.stderr).toBe('');
  });
});

describe('--format json', () => {
  test('matches the text format on many files, notes included', () => {
    const stdin = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n';
    const args = [...BROKEN, VALID_DIR, '-'];
    const text = lint(args, stdin);
    const json = lintJson(args, stdin);
    const { findings, notes, summary } = json.report;
    expect(json.status).toBe(text.status);
    expect(findings.map(textLine)).toEqual(lines(text.stdout));
    expect(notes.length).toBeGreaterThan(0);
    expect(lines(text.stderr)).toEqual([...notes.map((n) => `${n.file}: note: ${n.message}`), summaryLine(summary.errors, summary.warnings, summary.files)]);
    expect(summary.files).toBe(BROKEN.length + VALID.length + 1);
  });

  test('--format=json is --format json', () => {
    expect(lint(['--format=json', BROKEN[0]])).toEqual(lint(['--format', 'json', BROKEN[0]]));
  });
});

describe('usage', () => {
  const file = path.join(VALID_DIR, 'vllm-agg.yaml');
  test.each([
    ['no files', ['lint', '--crds', CRD_DIR], /no files given/],
    ['no arguments after lint', ['lint'], /no files given/],
    ['an unknown option', ['lint', '--crds', CRD_DIR, '--fix', file], /unknown option --fix/],
    ['--format xml', ['lint', '--crds', CRD_DIR, '--format', 'xml', file], /--format must be text or json, got "xml"/],
    ['--format without a value', ['lint', '--crds', CRD_DIR, file, '--format'], /--format needs a value/],
    ['a missing file', ['lint', '--crds', CRD_DIR, file, 'no-such-file.yaml'], /no-such-file\.yaml: no such file or directory/],
    ['--crds at a missing path', ['lint', '--crds', path.join(CRD_DIR, 'missing'), file], /--crds .*missing: no such file or directory/],
    ['--crds at a file without CRDs', ['lint', '--crds', file, file], /no CustomResourceDefinition found/],
    ['an unknown command', ['check', file], /unknown command "check"/],
    ['nothing at all', [], /^Usage: dynamo-constructs lint/],
  ])('%s: exit 2, message and usage on stderr', (_what, argv, message) => {
    const r = cli(argv);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('Usage: dynamo-constructs lint [options] <file|directory|->...');
  });

  test('--help prints usage on stdout and exits 0', () => {
    const r = cli(['--help']);
    expect(r).toEqual({ status: 0, stdout: expect.stringMatching(/^Usage: dynamo-constructs lint/), stderr: '' });
    expect(r.stdout).toContain('--strict');
    expect(r.stdout).toContain('--format <fmt>');
    expect(r.stdout).toContain('--crds <path>');
    expect(r.stdout).toContain('--max-file-size <size>');
  });

  // The usage lists -h, --help among the options of `lint` itself.
  test.each([['--help'], ['-h']])('lint %s prints usage on stdout and exits 0', (flag) => {
    expect(cli(['lint', flag])).toEqual({ status: 0, stdout: expect.stringMatching(/^Usage: dynamo-constructs lint/), stderr: '' });
  });

  test('- reads standard input, named <stdin>', () => {
    const broken = path.join(BROKEN_DIR, 'value-range.yaml');
    const fromFile = lintJson([broken]).report.findings;
    const r = lintJson(['-'], fs.readFileSync(broken, 'utf8'));
    expect(r.status).toBe(1);
    expect(r.report.findings).toEqual(fromFile.map((x) => ({ ...x, file: '<stdin>' })));
    expect(lint(['-'], fixture('valid/vllm-agg.yaml'))).toEqual({ status: 0, stdout: '', stderr: `${summaryLine(0, 0, 1)}\n` });
  });
});

describe('directories', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-test-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('linting valid/ as a directory finds all its files', () => {
    expect(lint([VALID_DIR])).toEqual({ status: 0, stdout: '', stderr: `${summaryLine(0, 0, VALID.length)}\n` });
    expect(lintJson([VALID_DIR]).report).toEqual(lintJson(VALID).report);
  });

  test('linting broken/ as a directory reports every file in it', () => {
    const { status, report } = lintJson([BROKEN_DIR]);
    expect(status).toBe(1);
    expect(report.summary.files).toBe(BROKEN.length);
    expect([...new Set(report.findings.map((f) => f.file))].sort()).toEqual(BROKEN);
  });

  test('subdirectories and .yml are searched; other files and dot directories are not', () => {
    const dir = path.join(tmp, 'tree');
    fs.mkdirSync(path.join(dir, 'nested'), { recursive: true });
    fs.mkdirSync(path.join(dir, '.hidden'));
    fs.writeFileSync(path.join(dir, 'a.yaml'), fixture('valid/vllm-agg.yaml'));
    fs.writeFileSync(path.join(dir, 'nested', 'b.yml'), fixture('broken/value-range.yaml'));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'kind: [not yaml');
    fs.writeFileSync(path.join(dir, '.hidden', 'c.yaml'), 'kind: [not yaml');
    const { report } = lintJson([dir]);
    expect(report.summary.files).toBe(2);
    expect(report.findings.map((f) => `${path.relative(dir, f.file)}: ${located(f)}`)).toEqual([
      `${path.join('nested', 'b.yml')}: value-range at VllmWorker.extraPodSpec.mainContainer.args[--tensor-parallel-size]`,
    ]);
  });

  test('a directory without YAML files is a usage error', () => {
    const empty = path.join(tmp, 'empty');
    fs.mkdirSync(empty);
    const r = lint([empty]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${empty}: no *.yaml or *.yml files`);
  });
});

describe('notes and core objects', () => {
  test.each([
    ['a kind of an API group kubernetes-models does not know', 'example.com/v1', 'Widget'],
    ['an unknown kind of a core API group', 'v1', 'Gadget'],
  ])('%s is skipped with a note, not an error', (_what, apiVersion, kind) => {
    const r = lint(['-'], `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: w\nspec:\n  size: 3\n`);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([`<stdin>: note: ${kind}/w: skipped: ${apiVersion} ${kind} is not a kind lint validates`, summaryLine(0, 0, 1)]);
  });

  test('a DynamoGraphDeployment of a version the CRDs do not have is skipped with a note naming the known one', () => {
    const r = lint(['-'], edit(fixture('valid/vllm-agg.yaml'), 'apiVersion: nvidia.com/v1alpha1', 'apiVersion: nvidia.com/v1beta1'));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const [note, summary] = lines(r.stderr);
    expect(note).toMatch(/^<stdin>: note: DynamoGraphDeployment\/vllm-agg: skipped: nvidia\.com\/v1beta1 is not a version of the CRD \(nvidia\.com\/v1alpha1\)/);
    expect(summary).toBe(summaryLine(0, 0, 1));
  });

  test.each([
    ['a Service port that is a string', 'valid/mixed-kinds.yaml', '      port: 80\n', '      port: "80"\n', 'Service/open-webui.spec.ports[0].port', /^must be integer$/],
    ['Deployment replicas that are a string', 'valid/mixed-kinds.yaml', '  replicas: 1\n  selector:', '  replicas: "1"\n  selector:', 'Deployment/open-webui.spec.replicas', /^must be integer$/],
    ['claim access modes that are not a list', 'valid/vllm-disagg-rdma.yaml', 'accessModes:\n    - ReadWriteMany', 'accessModes: ReadWriteMany', 'PersistentVolumeClaim/model-cache.spec.accessModes', /^must be array$/],
  ])('core objects are validated: %s is a kubernetes-schema error', (_what, source, from, to, at, message) => {
    const { status, report } = lintJson(['-'], edit(fixture(source), from, to));
    expect(status).toBe(1);
    expect(report.findings).toEqual([expect.objectContaining({ path: at, rule: 'kubernetes-schema', severity: 'error', message: expect.stringMatching(message) })]);
    expect(report.notes).toEqual([]);
  });
});

describe('references across files', () => {
  const crds = new CrdValidator(loadCrds(CRD_DIR));
  const FRONTEND_BLOCK_SIZE = 'Frontend.extraPodSpec.mainContainer.args[--kv-cache-block-size]';

  /** trtllm-disagg.yaml as two files: the engine ConfigMaps, and the graph that mounts them. */
  function splitTrtllm(tokensPerBlock = 32): { engines: LintSource; graph: LintSource } {
    const docs = YAML.parseAllDocuments(fixture('valid/trtllm-disagg.yaml'));
    const of = (kind: string) => docs.filter((d) => d.get('kind') === kind).map((d) => d.toString()).join('---\n');
    const engines = of('ConfigMap').split('tokens_per_block: 32').join(`tokens_per_block: ${tokensPerBlock}`);
    expect(of('ConfigMap').match(/tokens_per_block: 32/g)).toHaveLength(2);
    return { engines: { file: 'engines.yaml', text: engines }, graph: { file: 'graph.yaml', text: of('DynamoGraphDeployment') } };
  }
  const findingsOf = (...sources: LintSource[]) => lintSources(sources, { crds }).findings.map((f) => `${f.file}: ${located(f)}`);

  test('the split files are valid together', () => {
    const { engines, graph } = splitTrtllm();
    expect(findingsOf(engines, graph)).toEqual([]);
  });

  test.each([
    ['engines first', (s: ReturnType<typeof splitTrtllm>) => [s.engines, s.graph]],
    ['graph first', (s: ReturnType<typeof splitTrtllm>) => [s.graph, s.engines]],
  ])('an engine ConfigMap in another file is followed (%s): its block size differs from the router', (_order, order) => {
    const sources = order(splitTrtllm(64));
    expect(findingsOf(...sources)).toEqual([`graph.yaml: block-size-mismatch at ${FRONTEND_BLOCK_SIZE}`]);
    const [finding] = lintSources(sources, { crds }).findings;
    expect(finding.message).toMatch(/^is 32, but TRTLLMPrefillWorker runs block size 64/);
  });

  test('without the ConfigMaps the engines block size is unknown, so nothing is reported', () => {
    expect(findingsOf(splitTrtllm(64).graph)).toEqual([]);
  });

  test('the CLI follows the reference across the files it is given', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-refs-'));
    try {
      const { engines, graph } = splitTrtllm(64);
      for (const s of [engines, graph]) fs.writeFileSync(path.join(dir, s.file), s.text);
      const r = lint([path.join(dir, 'engines.yaml'), path.join(dir, 'graph.yaml')]);
      expect(r.status).toBe(1);
      expect(lines(r.stdout)).toEqual([expect.stringMatching(new RegExp(`^${escape(path.join(dir, 'graph.yaml'))}: ${escape(FRONTEND_BLOCK_SIZE)}: is 32, .* \\[block-size-mismatch\\]$`))]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('inputs that used to crash the command', () => {
  test('a --crds file that does not parse is a usage error', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-crds-'));
    try {
      fs.writeFileSync(path.join(dir, 'broken.json'), '{ not json');
      const r = cli(['lint', '--crds', dir, path.join(VALID_DIR, 'vllm-agg.yaml')]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/--crds .*broken\.json: not a CRD file/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a document whose aliases expand without end is a yaml-syntax error, not a crash', () => {
    const levels = Array.from({ length: 8 }, (_, i) => `l${i + 1}: &l${i + 1} [${Array(10).fill(`*l${i}`).join(', ')}]`).join('\n');
    const r = lint(['-'], `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\nl0: &l0 [lol, lol, lol]\n${levels}\n`);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^<stdin>: line \d+:\d+: aliases expand the file past .* \[yaml-syntax\]$/m);
  });

  test('many aliases of a small anchor are read, as kubectl reads them', () => {
    const aliases = Array.from({ length: 1100 }, (_, i) => `  k${i}: *a`).join('\n');
    const { report } = lintJson(['-'], `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\nanchor: &a x\ndata:\n${aliases}\n`);
    expect(report.findings.filter((f) => f.rule === 'yaml-syntax')).toEqual([]);
  });
});

describe('--dynamo-version: a manifest checked for the release it will run', () => {
  const guide2 = path.resolve(__dirname, '../../fixtures/guide2-disaggregated.yaml');

  test('a 0.9 manifest checked for 1.6.1 names what breaks; without the option its images decide (0.9)', () => {
    const both = (args: string[]) => cli(['lint', '--crds', CRD_DIR, '--crds', CRD_V1BETA1_DIR, ...args]);
    const today = both([guide2]);
    expect(today.status).toBe(0);
    const upgrade = both(['--dynamo-version', '1.6.1', guide2]);
    expect(upgrade.status).toBe(1);
    expect(lines(upgrade.stdout).filter((l) => /\[(unsupported-on-release|required|deprecated)\]$/.test(l)).map((l) => l.replace(/^[^:]+: /, '').replace(/: .*\[/, ' ['))).toEqual([
      'VLLMPrefillWorker.extraPodSpec.mainContainer.args[--is-prefill-worker] [unsupported-on-release]',
      'VLLMDecodeWorker.extraPodSpec.mainContainer.args[--is-decode-worker] [unsupported-on-release]',
      'apiVersion [deprecated]',
      'VLLMPrefillWorker.extraPodSpec.mainContainer.args[--kv-transfer-config] [required]',
    ]);
  });

  test('a release the library has no table for is a usage error naming the supported lines', () => {
    const r = lint(['--dynamo-version', '1.3.0', guide2]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Dynamo "1\.3\.0" is not supported; supported releases are 0\.8\.x, 0\.9\.x, 1\.4\.x, 1\.5\.x, 1\.6\.x/);
  });
});

describe('lint --server, against a stand-in API server (the cluster suite runs a real one)', () => {
  /** Answers as kube-apiserver does: 200 for what it accepts, a Status with causes for what it refuses. */
  const standIn = (answer: (obj: any) => { status: number; body?: unknown }) =>
    ({ apply: async (obj: any) => ({ body: {}, ...answer(obj) }) }) as unknown as import('../../../src/cli/kube-client').KubeClient;
  const manifest = [
    'apiVersion: v1\nkind: Namespace\nmetadata: { name: serving }',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: ok, namespace: default }\ndata: { a: b }',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: new-ns, namespace: serving }\ndata: { a: b }',
    'apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: { name: llm, namespace: default }\nspec: { components: [] }',
  ].join('\n---\n');

  test('refusals become server-rejected findings at the fields the server names; what the files create first is a note', async () => {
    const out = await serverFindings([{ file: 'm.yaml', text: manifest }], standIn((obj) => {
      if (obj.kind === 'DynamoGraphDeployment') {
        return { status: 422, body: { message: 'DynamoGraphDeployment.nvidia.com "llm" is invalid', details: { causes: [{ field: 'spec.components[0].name', message: 'Invalid value: "a_b": must match' }] } } };
      }
      if (obj.metadata.namespace === 'serving') return { status: 404, body: { message: 'namespaces "serving" not found' } };
      return { status: 200 };
    }));
    expect(out.findings.map((f) => `${f.path}: ${f.message} [${f.rule}]`)).toEqual(['DynamoGraphDeployment/llm.spec.components[0].name: Invalid value: "a_b": must match [server-rejected]']);
    expect(out.notes.map((n) => n.message)).toEqual(['ConfigMap/new-ns: not checked by the server: namespaces "serving" not found (the same files create it)']);
  });

  test('--kubeconfig without --server, and a missing kubeconfig, are usage errors', () => {
    expect(lint(['--kubeconfig', '/nowhere', path.join(VALID_DIR, 'vllm-agg.yaml')]).stderr).toMatch(/--kubeconfig and --context need --server/);
    const r = cli(['lint', '--crds', CRD_DIR, '--server', '--kubeconfig', '/nowhere/config', path.join(VALID_DIR, 'vllm-agg.yaml')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--server: no kubeconfig at \/nowhere\/config/);
  });
});
