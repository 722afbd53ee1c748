import { spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { buildSync } from 'esbuild';
import { CrdValidator } from '../../src/cli/lint/crd-schema';
import { LintFinding, LintNote, lintSources, parseDocuments } from '../../src/cli/lint/lint';
import { run } from '../../src/cli/main';
import { SMALL_CRD } from '../support/crd';

/**
 * `dynamo-constructs lint` on files it did not choose: a directory holding a FIFO, a device, links
 * that loop, dangle or lead out of it, files over the size limit, YAML bombs, escape sequences in
 * names. Each is a finding naming the path and what it is; nothing hangs, nothing prints a stack
 * trace, nothing from the input reaches the terminal raw, and the order is the same everywhere.
 */

const ROOT = path.resolve(__dirname, '../..');

/** What the rules are given for each graph (the objects beside it), recorded by the wrapper below. */
const mockObjectsPerGraph: unknown[] = [];
jest.mock('../../src/core', () => {
  const actual = jest.requireActual<typeof import('../../src/core')>('../../src/core');
  return {
    ...actual,
    checkGraphManifest: (...args: Parameters<typeof actual.checkGraphManifest>) => {
      mockObjectsPerGraph.push(args[1]);
      return actual.checkGraphManifest(...args);
    },
  };
});

/** A ConfigMap whose `data` is not a map: one kubernetes-schema finding, so a file read is seen to be read. */
const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${JSON.stringify(name)}\ndata: 5\n`;

let tmp: string;
let crd: string;
/** The command line bundled as it ships (one esbuild bundle, packages external): a process starts in a fraction of a second. */
let bundle: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-files-'));
  crd = path.join(tmp, 'crd.yaml');
  fs.writeFileSync(crd, SMALL_CRD);
  bundle = path.join(tmp, 'cli', 'main.js');
  buildSync({ absWorkingDir: ROOT, entryPoints: ['src/cli/main.ts'], outfile: bundle, bundle: true, platform: 'node', target: 'node20', format: 'cjs', packages: 'external', logLevel: 'error' });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A fresh directory under the test's temp dir. */
function directory(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: readonly string[], stdin = ''): CliRun {
  let stdout = '';
  let stderr = '';
  const status = run(['lint', '--crds', crd, ...args], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    stdin: () => stdin,
  });
  if (typeof status !== 'number') throw new Error('only --server runs asynchronously');
  return { status, stdout, stderr };
}

interface JsonReport {
  readonly findings: LintFinding[];
  readonly notes: LintNote[];
  readonly summary: { readonly files: number; readonly errors: number; readonly warnings: number };
}

function lintJson(args: readonly string[], stdin?: string): CliRun & { readonly report: JsonReport } {
  const r = cli(['--format', 'json', ...args], stdin);
  return { ...r, report: JSON.parse(r.stdout) as JsonReport };
}

/** The command as a user runs it, in a process of its own, killed if it has not finished in 30 s. */
function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [bundle, 'lint', '--crds', crd, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    // the bundle leaves packages out: they are found in the repository's node_modules
    env: { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules'), ...env },
    timeout: 30_000,
    killSignal: 'SIGKILL',
  });
}

/** A line of a JavaScript stack trace. */
const STACK_LINE = /^\s+at .+\(.*:\d+:\d+\)$|^\s+at .+:\d+:\d+$/m;
const byFile = (findings: readonly LintFinding[]) => (file: string) => findings.filter((f) => f.file === file);
const codeUnitOrder = (names: readonly string[]) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('a directory holding /dev/zero, a FIFO, a self-link and a dangling link', () => {
  let dir: string;
  let names: Record<string, string>;
  let spawned: SpawnSyncReturns<string>;
  const notReadLines = () => spawned.stdout.split('\n').filter((l) => l.endsWith('[file-not-read]'));
  /** In-process, a FIFO that is opened blocks the test run for good: only once a process of its own got through. */
  const inProcess = () => {
    if (spawned.signal !== null || notReadLines().length !== 4) {
      throw new Error(`in a process of its own the command did not report each path (${spawned.signal ?? `exit ${spawned.status}`}): not run in-process, where it could block the test run`);
    }
  };
  beforeAll(() => {
    dir = directory('hostile');
    // named so that the file that reads well comes last in any order
    names = { dangling: 'a-dangling.yaml', self: 'b-self.yaml', fifo: 'c-fifo.yaml', zero: 'd-zero.yaml', ok: 'e-ok.yaml' };
    fs.symlinkSync('does-not-exist.yaml', path.join(dir, names.dangling));
    fs.symlinkSync(names.self, path.join(dir, names.self));
    expect(spawnSync('mkfifo', [path.join(dir, names.fifo)]).status).toBe(0);
    fs.symlinkSync('/dev/zero', path.join(dir, names.zero));
    fs.writeFileSync(path.join(dir, names.ok), configMap('ok'));
    // first in a process of its own: should the command hang, the test run is not blocked with it
    spawned = spawnCli([dir]);
  }, 60_000);

  test('a real process finishes, exit 1, one file-not-read line per path and no stack trace', () => {
    expect(spawned.signal).toBeNull();
    expect(spawned.stderr).not.toMatch(STACK_LINE);
    expect(spawned.status).toBe(1);
    expect(notReadLines().map((l) => path.basename(l.split(': ')[0]))).toEqual([names.dangling, names.self, names.fifo, names.zero]);
    expect(spawned.stderr).toMatch(/^5 errors, 0 warnings in 5 files$/m);
  });

  test('in-process: finishes in seconds with one finding each, naming the path and what it is', () => {
    inProcess();
    const start = Date.now();
    const { status, stderr, report } = lintJson([dir]);
    expect(Date.now() - start).toBeLessThan(15_000);
    expect(status).toBe(1);
    expect(stderr).toBe('');
    const at = byFile(report.findings);
    const one = (name: string) => {
      const found = at(path.join(dir, name));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ rule: 'file-not-read', severity: 'error', path: 'file' });
      return found[0].message;
    };
    expect(one(names.dangling)).toBe('is a dangling link: does-not-exist.yaml does not exist');
    expect(one(names.self)).toMatch(/^is a link that loops/);
    expect(one(names.fifo)).toBe('is a FIFO (named pipe), not a regular file');
    expect(one(names.zero)).toMatch(/^is a link to \/dev\/zero \(a character device\), outside /);
    // the rest is linted as usual
    expect(at(path.join(dir, names.ok)).map((f) => f.rule)).toEqual(['kubernetes-schema']);
    expect(report.summary).toEqual({ files: 5, errors: 5, warnings: 0 });
  });

  test('each alone: the same finding, and a FIFO or device named on the command line is not opened', () => {
    inProcess();
    for (const name of [names.dangling, names.self, names.fifo, names.zero]) {
      const { status, report } = lintJson([path.join(dir, name)]);
      expect(status).toBe(1);
      expect(report.findings.map((f) => `${path.basename(f.file)} ${f.rule}`)).toEqual([`${name} file-not-read`]);
    }
    // named by the user, a link is followed anywhere, but to a regular file only
    expect(lintJson([path.join(dir, names.zero)]).report.findings[0].message).toBe('is a link to /dev/zero, a character device, not a regular file');
    expect(lintJson(['/dev/null']).report.findings[0].message).toMatch(/^is a character device, not a regular file \(to read a pipe, give - /);
  });
});

describe('links', () => {
  test('followed to a regular file inside the directory; a link out of it is reported, not read', () => {
    const outside = path.join(tmp, 'outside.yaml');
    fs.writeFileSync(outside, configMap('outside'));
    const dir = directory('links');
    fs.mkdirSync(path.join(dir, 'real'));
    fs.writeFileSync(path.join(dir, 'real', 'inside.yaml'), configMap('inside'));
    fs.symlinkSync(path.join('real', 'inside.yaml'), path.join(dir, 'in.yaml'));
    fs.symlinkSync(path.join('..', 'outside.yaml'), path.join(dir, 'out.yaml'));
    fs.symlinkSync('real', path.join(dir, 'to-dir.yaml'));
    const { report } = lintJson([dir]);
    const at = byFile(report.findings);
    expect(at(path.join(dir, 'in.yaml')).map((f) => `${f.rule} ${f.name}`)).toEqual(['kubernetes-schema inside']);
    expect(at(path.join(dir, 'out.yaml'))).toEqual([
      expect.objectContaining({ rule: 'file-not-read', message: `is a link to ${fs.realpathSync(outside)} (a regular file), outside ${dir}: lint follows links only to regular files inside the directory it reads` }),
    ]);
    expect(at(path.join(dir, 'to-dir.yaml'))).toEqual([expect.objectContaining({ rule: 'file-not-read', message: `is a link to ${fs.realpathSync(path.join(dir, 'real'))}, a directory, not a regular file` })]);
    // nothing of the file outside was read
    expect(report.findings.filter((f) => f.name === 'outside')).toEqual([]);
  });
});

describe('size limit', () => {
  const big = configMap('big').replace('data: 5\n', `data: 5\nfiller: "${'x'.repeat(2 * 1024 * 1024)}"\n`);

  test('a file over --max-file-size is a finding, not read; a larger limit reads it', () => {
    const file = path.join(directory('size'), 'big.yaml');
    fs.writeFileSync(file, big);
    const capped = lintJson(['--max-file-size', '1MB', file]);
    expect(capped.status).toBe(1);
    expect(capped.report.findings).toEqual([
      expect.objectContaining({ file, rule: 'file-not-read', message: `is ${Buffer.byteLength(big)} bytes, larger than the 1 MiB read per file: not read (raise the limit with --max-file-size)` }),
    ]);
    expect(lintJson(['--max-file-size=3MB', file]).report.findings.map((f) => f.rule)).toEqual(['kubernetes-schema']);
    expect(lintJson([`--max-file-size=${Buffer.byteLength(big)}`, file]).report.findings.map((f) => f.rule)).toEqual(['kubernetes-schema']);
  });

  test('the default limit is 64 MiB: a larger file is reported from its size alone', () => {
    const file = path.join(directory('sparse'), 'huge.yaml');
    // a sparse file: 65 MiB that take no disk, and would take seconds to read
    fs.closeSync(fs.openSync(file, 'w'));
    fs.truncateSync(file, 65 * 1024 * 1024);
    const start = Date.now();
    const { report } = lintJson([file]);
    expect(Date.now() - start).toBeLessThan(10_000);
    expect(report.findings).toEqual([expect.objectContaining({ rule: 'file-not-read', message: expect.stringMatching(/^is 68157440 bytes, larger than the 64 MiB read per file/) })]);
  });

  test('standard input is capped too', () => {
    const { status, report } = lintJson(['--max-file-size', '1KB', '-'], configMap('x') + `# ${'x'.repeat(2048)}\n`);
    expect(status).toBe(1);
    expect(report.findings).toEqual([expect.objectContaining({ file: '<stdin>', rule: 'file-not-read', message: expect.stringMatching(/^is larger than the 1 KiB read per file/) })]);
  });

  test.each([['0'], ['-5'], ['10XB'], ['1GB'], ['257MB'], ['1.5MB']])('--max-file-size %s is a usage error naming the range', (value) => {
    const r = cli([`--max-file-size=${value}`, crd]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--max-file-size must be a size from 1 byte to 256MB, in bytes or with a unit (KB, MB), got ${JSON.stringify(value)}`);
  });
});

describe('read errors are findings naming the path', () => {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  // root reads a mode-000 file all the same: there is no permission error to see
  (root ? test.skip : test)('a file without read permission (skipped as root, who reads it all the same)', () => {
    const file = path.join(directory('unreadable'), 'secret.yaml');
    fs.writeFileSync(file, configMap('x'));
    fs.chmodSync(file, 0o000);
    const { report } = lintJson([path.dirname(file)]);
    expect(report.findings).toEqual([expect.objectContaining({ file, rule: 'file-not-read', message: 'cannot be read: EACCES: permission denied' })]);
  });

  const mem = '/proc/self/mem';
  (fs.existsSync(mem) ? test : test.skip)('a regular file whose read fails (EIO: the start of /proc/self/mem is not mapped)', () => {
    const { status, stderr, report } = lintJson([mem]);
    expect(status).toBe(1);
    expect(stderr).toBe('');
    expect(report.findings).toEqual([expect.objectContaining({ file: mem, rule: 'file-not-read', message: 'cannot be read: EIO: i/o error' })]);
  });
});

describe('YAML bombs', () => {
  const doc = (body: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: bomb }\n${body}`;
  const lintText = (text: string) => {
    const findings: LintFinding[] = [];
    const docs = parseDocuments([{ file: 'bomb.yaml', text }], findings);
    return { docs, findings };
  };

  test('a billion laughs is one yaml-syntax finding at the alias that breaks the bound', () => {
    let lol = 'l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
    for (let i = 1; i < 10; i++) lol += `l${i}: &l${i} [${Array(9).fill(`*l${i - 1}`).join(', ')}]\n`;
    const r = cli(['-'], doc(lol));
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^<stdin>: line \d+:\d+: aliases expand the file past 1048576 nodes and characters \(10 times its size, at least 1048576\): a YAML bomb is not expanded \[yaml-syntax\]\n$/);
  });

  test('one long string repeated by aliases is bounded by the size of the file, not by the count of aliases', () => {
    const long = 'x'.repeat(64 * 1024);
    const { docs, findings } = lintText(doc(`anchor: &a "${long}"\ndata:\n${Array.from({ length: 500 }, (_, i) => `  k${i}: *a`).join('\n')}\n`));
    expect(docs).toEqual([]);
    expect(findings).toEqual([expect.objectContaining({ rule: 'yaml-syntax', message: expect.stringMatching(/^aliases expand the file past/) })]);
    // the same aliases over a short string: an ordinary file
    expect(lintText(doc(`anchor: &a "short"\ndata:\n${Array.from({ length: 500 }, (_, i) => `  k${i}: *a`).join('\n')}\n`)).findings).toEqual([]);
  });

  test('an alias inside the node it names (a recursive value) is a yaml-syntax finding, not a stack overflow', () => {
    const { docs, findings } = lintText(doc('spec: &s\n  again: *s\n'));
    expect(docs).toEqual([]);
    expect(findings).toEqual([
      { file: 'bomb.yaml', document: 1, path: 'line 5:10', severity: 'error', rule: 'yaml-syntax', message: 'alias *s is inside the node it names: a recursive value no Kubernetes object can hold' },
    ]);
  });

  test('nesting deeper than any manifest is a finding', () => {
    const { findings } = lintText(doc(`spec: ${'['.repeat(300)}${']'.repeat(300)}\n`));
    expect(findings.map((f) => f.message)).toEqual(['nests deeper than 256 levels']);
  });

  test('many keys and nested aliases are read in linear time, where the YAML library takes minutes', () => {
    // the YAML library checks each key against every key before it, and counts the aliases inside
    // an aliased list by scanning the whole document once for each of them
    let body = `x:\n${Array.from({ length: 30000 }, (_, i) => `  p${i}: x`).join('\n')}\n${Array.from({ length: 200 }, (_, i) => `  s${i}: &s${i} v`).join('\n')}\n`;
    for (let j = 0; j < 20; j++) body += `  c${j}: &c${j} [${Array.from({ length: 200 }, (_, i) => `*s${i}`).join(',')}]\n  u${j}: *c${j}\n`;
    const start = Date.now();
    const { docs, findings } = lintText(doc(body));
    expect(Date.now() - start).toBeLessThan(20_000);
    expect(findings).toEqual([]);
    const x = (docs[0].object as { x: Record<string, unknown> }).x;
    expect(Object.keys(x)).toHaveLength(30000 + 200 + 2 * 20);
    expect(x.u19).toEqual(Array(200).fill('v'));
  });

  test('merge keys and __proto__ read as kubectl reads them', () => {
    const { docs, findings } = lintText(
      doc('defaults: &d { a: 1, b: 2 }\nmore: &m { b: 3, c: 4 }\ndata:\n  <<: [*d, *m]\n  a: 0\n  __proto__: kept\n'),
    );
    expect(findings).toEqual([]);
    const data = (docs[0].object as { data: Record<string, unknown> }).data;
    expect(data).toEqual(Object.fromEntries([['a', 0], ['b', 2], ['c', 4], ['__proto__', 'kept']]));
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });

  test('parseDocuments never throws: a syntax error, an unknown alias and a non-object are findings', () => {
    const { docs, findings } = lintText(`${doc('data: {}\n')}---\nkey: [unclosed\n---\nx: *nowhere\n---\n- a list\n---\na: 1\nb: 2\na: 3\n`);
    expect(docs.map((d) => d.document)).toEqual([1]);
    expect(findings.map((f) => `${f.document} ${f.rule} ${f.path}`)).toEqual([
      '2 yaml-syntax line 7:1',
      '3 yaml-syntax line 8:4',
      '4 yaml-syntax document 4',
      '5 yaml-syntax line 14:1',
    ]);
    expect(findings[1].message).toBe('alias *nowhere names no anchor before it');
    expect(findings[3].message).toBe('Map keys must be unique: "a" is set twice');
  });
});

describe('escape sequences from the input are printed escaped', () => {
  const ESC = '\u001b';
  const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  test('in a manifest name, a file name and a note, text and JSON', () => {
    const dir = directory('ansi');
    const fileName = `evil${ESC}[2J${ESC}]0;title\u0007.yaml`;
    fs.writeFileSync(path.join(dir, fileName), configMap(`red${ESC}[31m\u009b1m`));
    // a Dynamo object the small CRD does not know: a note on stderr that names it
    fs.writeFileSync(path.join(dir, 'graph.yaml'), `apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: { name: "g${ESC}[8m" }\nspec: {}\n`);
    const text = cli([dir]);
    expect(text.status).toBe(1);
    for (const out of [text.stdout, text.stderr]) expect(out).not.toMatch(RAW);
    expect(text.stdout).toContain(`evil\\x1b[2J\\x1b]0;title\\x07.yaml: ConfigMap/red\\x1b[31m\\u009b1m.data:`);
    expect(text.stderr).toContain('DynamoGraphDeployment/g\\x1b[8m: skipped');

    const json = cli(['--format', 'json', dir]);
    expect(json.stdout).not.toMatch(RAW);
    const report = JSON.parse(json.stdout) as JsonReport;
    // JSON escapes stand for the same text: nothing lost
    expect(report.findings.map((f) => f.name)).toContain(`red${ESC}[31m\u009b1m`);
    expect(report.notes.map((n) => path.basename(n.file))).toEqual(['graph.yaml']);
  });

  test('a newline in a name cannot forge a line of output', () => {
    const { stdout } = cli(['-'], configMap('x\nforged.yaml: fake: all clean [yaml-syntax]'));
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/^<stdin>: ConfigMap\/x\\nforged\.yaml: fake: all clean \[yaml-syntax\]\.\S*: /);
  });

  test('a usage error naming a path is escaped too', () => {
    const r = cli([path.join(tmp, `missing${ESC}[2J.yaml`)]);
    expect(r.status).toBe(2);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain('missing\\x1b[2J.yaml: no such file or directory');
  });
});

describe('order', () => {
  // code-unit order puts B before a and z before ä; collation puts a before B, and ä before z
  // in English but after it in Swedish
  const names = ['a.yaml', 'B.yaml', 'z.yaml', '\u00e4.yaml', '_x.yaml'];
  let dir: string;
  beforeAll(() => {
    dir = directory('order');
    for (const n of names) fs.writeFileSync(path.join(dir, n), configMap('cm'));
  });
  const order = (findings: readonly LintFinding[]) => findings.map((f) => path.basename(f.file));

  test('files are linted in code-unit order of their names, which collation would not give', () => {
    expect(names.slice().sort((a, b) => a.localeCompare(b))).not.toEqual(codeUnitOrder(names));
    expect(order(lintJson([dir]).report.findings)).toEqual(codeUnitOrder(names));
  });

  test('the same under LC_ALL=C and a Swedish locale, in processes of their own', () => {
    const c = spawnCli(['--format', 'json', dir], { LC_ALL: 'C', LANG: 'C' });
    const sv = spawnCli(['--format', 'json', dir], { LC_ALL: 'sv_SE.UTF-8', LANG: 'sv_SE.UTF-8' });
    expect([c.signal, sv.signal]).toEqual([null, null]);
    expect(order((JSON.parse(c.stdout) as JsonReport).findings)).toEqual(codeUnitOrder(names));
    expect(sv.stdout).toBe(c.stdout);
  }, 90_000);
});

describe('linear time', () => {
  test('every graph is checked against one index of the objects, built once', () => {
    const graph = (i: number) =>
      `apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: { name: g${i} }\nspec:\n  services:\n    Frontend: { componentType: frontend, replicas: 1 }\n`;
    const crds = new CrdValidator([{ group: 'nvidia.com', kind: 'DynamoGraphDeployment', versions: { v1alpha1: { type: 'object' } } }]);
    mockObjectsPerGraph.length = 0;
    lintSources([{ file: 'g.yaml', text: [0, 1, 2].map(graph).join('---\n') }], { crds, validateKubernetes: () => [] });
    expect(mockObjectsPerGraph).toHaveLength(3);
    expect(mockObjectsPerGraph[0]).toBeInstanceOf(Map);
    expect(new Set(mockObjectsPerGraph).size).toBe(1);
  });
});
