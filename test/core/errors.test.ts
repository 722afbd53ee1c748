import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App, Chart } from 'cdk8s';
import { bundle, ENTRY_POINTS } from '../../projenrc/bundle';
import {
  aggregatedGraphSpec,
  Backend,
  Diagnostics,
  disaggregatedGraphSpec,
  DisaggregatedDeploymentOptions,
  DynamoValidationError,
  Fabric,
  GRAPH_OPTION_KEYS,
  RELEASES,
  renderGraph,
  ValidationIssue,
} from '../../src/core/internal';
import { checkKnownKeys } from '../../src/core/base/checks';
import { DisaggregatedDeployment } from '../../src/cdk8s';

/** The issues `fn` throws, as `path: message [rule]`. */
function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof DynamoValidationError)) throw e;
    return e.issues.map((i: ValidationIssue) => `${i.path}: ${i.message} [${i.rule}]`);
  }
  return [];
}

/** The unknown-option issue at `path` among `issues`. */
function unknownAt(issues: readonly string[], path: string): string | undefined {
  return issues.find((i) => i.startsWith(`${path}: is not a known option`));
}

/** The options an unknown-option message lists. */
function listed(issue: string): string[] {
  const m = /known options are (.*) \[unknown-option\]$/.exec(issue);
  if (!m) throw new Error(`no list of options in ${issue}`);
  return m[1].split(', ');
}

const MODEL = 'Qwen/Qwen3-32B';
const disaggregated = (o: Record<string, unknown>): DisaggregatedDeploymentOptions =>
  ({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {}, ...o }) as never;

describe('an unknown option', () => {
  test('on a DisaggregatedDeployment, a typo is matched against everything the construct takes', () => {
    const issues = issuesOf(() => new DisaggregatedDeployment(new Chart(new App(), 'c'), 'llm', disaggregated({ frontned: { replicas: 2 } })));
    const issue = unknownAt(issues, 'frontned')!;
    expect(issue).toContain('(did you mean frontend?)');
    // the components and observability, not only the graph-wide options
    expect(listed(issue)).toEqual(expect.arrayContaining([...GRAPH_OPTION_KEYS, 'frontend', 'prefill', 'decode', 'planner', 'observability']));
    // and the construct's own props
    expect(listed(issue)).toEqual(expect.arrayContaining(['name', 'namespace', 'strict']));
    const strict = unknownAt(issuesOf(() => new DisaggregatedDeployment(new Chart(new App(), 'c'), 'llm', disaggregated({ strcit: true }))), 'strcit')!;
    expect(strict).toContain('(did you mean strict?)');
  });

  test('every option the message lists is one the deployment takes', () => {
    const issue = unknownAt(issuesOf(() => renderGraph(disaggregatedGraphSpec('llm', 'ns', disaggregated({ frontned: {} })))), 'frontned')!;
    for (const key of listed(issue)) {
      const given = disaggregated({ [key]: undefined });
      expect(unknownAt(issuesOf(() => renderGraph(disaggregatedGraphSpec('llm', 'ns', given))), key)).toBeUndefined();
    }
    // the aggregated deployment lists its own components
    const agg = unknownAt(issuesOf(() => renderGraph(aggregatedGraphSpec('agg', 'ns', { model: MODEL, backend: Backend.vllm(), workerz: {} } as never))), 'workerz')!;
    expect(agg).toContain('(did you mean workers?)');
    expect(listed(agg)).toEqual(expect.arrayContaining(['frontend', 'workers', 'observability']));
    expect(listed(agg)).not.toContain('prefill');
  });

  test("the keys a construct takes beside the options (its name, namespace, strict) are suggested and listed", () => {
    const spec = disaggregatedGraphSpec('llm', 'ns', disaggregated({ strcit: true, namspace: 'serving' }), ['name', 'namespace', 'strict']);
    const issues = issuesOf(() => renderGraph(spec));
    expect(unknownAt(issues, 'strcit')).toContain('(did you mean strict?)');
    expect(unknownAt(issues, 'namspace')).toContain('(did you mean namespace?)');
    expect(listed(unknownAt(issues, 'strcit')!)).toEqual(expect.arrayContaining(['name', 'namespace', 'strict']));
  });

  test('nested options get the same suggestions', () => {
    const issues = issuesOf(() =>
      renderGraph(disaggregatedGraphSpec('llm', 'ns', disaggregated({ prefill: { tensorParalelSize: 2 }, decode: { replica: 2 }, planner: { ttftMs: 200, itlMs: 20, maxGpuBugdet: 8 } }))),
    );
    expect(unknownAt(issues, 'prefill.tensorParalelSize')).toContain('(did you mean tensorParallelSize?)');
    expect(unknownAt(issues, 'decode.replica')).toContain('(did you mean replicas?)');
    expect(unknownAt(issues, 'planner.maxGpuBugdet')).toContain('(did you mean maxGpuBudget?)');
  });

  // a suggestion is computed: the fewest edits (a swap of neighbours is one), case ignored,
  // within a third of the name's length; equally close names in the order they are known
  const suggestionOf = (key: string, known: readonly string[]): string | undefined => {
    const d = new Diagnostics();
    checkKnownKeys(d, '', { [key]: 1 }, known);
    return /\(did you mean (.*)\?\)/.exec(d.errors[0].message)?.[1];
  };

  test.each([
    ['frontned', 'frontend'], // two neighbours swapped
    ['FrontEnd', 'frontend'], // case
    ['fronted', 'frontend'], // a letter left out
    ['frontendd', 'frontend'], // a letter too many
    ['decdoe', 'decode'],
    ['gpu', 'gpus'],
    ['tensorParallelism', 'tensorParallelSize'],
  ])('%s: did you mean %s?', (key, expected) => {
    expect(suggestionOf(key, ['frontend', 'decode', 'gpus', 'tensorParallelSize', 'pipelineParallelSize'])).toBe(expected);
  });

  test('nothing is suggested when no name is close, and equally close names are all offered, in a fixed order', () => {
    const known = ['frontend', 'prefill', 'decode', 'labels', 'tensorParallelSize'];
    for (const far of ['workers', 'tp', 'x', 'interval', 'model']) expect(suggestionOf(far, known)).toBeUndefined();
    expect(suggestionOf('abel', ['label', 'label1', 'abelx'])).toBe('label or abelx');
    expect(suggestionOf('abel', ['abelx', 'label'])).toBe('abelx or label');
  });
});

describe('an unsupported dynamoVersion', () => {
  // seven problems: the version, two typos, a negative count, GPUs short of the parallelism
  // and a planner budget (found on a draft of the graph), observability of the wrong type
  const props = (dynamoVersion: string) =>
    disaggregated({
      dynamoVersion,
      frontned: {},
      prefill: { tensorParalelSize: 2, replicas: -1 },
      decode: { tensorParallelSize: 4, gpus: 2 },
      planner: { ttftMs: 200, itlMs: 20, maxGpuBudget: 1 },
      observability: { alerts: { sla: { ttftMs: 300, itlMs: 20 } } },
    });
  const construct = (dynamoVersion: string) => issuesOf(() => new DisaggregatedDeployment(new Chart(new App(), 'c'), 'llm', props(dynamoVersion)));

  test('is reported with every problem that does not depend on the release', () => {
    const unsupported = construct('1.3.1');
    expect(unsupported.filter((i) => i.endsWith('[unknown-version]'))).toEqual([
      expect.stringMatching(/^dynamoVersion: Dynamo "1\.3\.1" is not supported; supported releases are /),
    ]);
    // what every supported release reports alike does not depend on the release
    const perRelease = Object.keys(RELEASES).map((line) => construct(`${line}.0`));
    const common = perRelease[0].filter((i) => perRelease.every((issues) => issues.includes(i)));
    expect(unsupported.filter((i) => !i.endsWith('[unknown-version]'))).toEqual(common);
    expect(unsupported).toHaveLength(7);
    // among them what the rules find on a draft of the graph
    expect(unsupported).toEqual(expect.arrayContaining([expect.stringMatching(/^decode\.gpus: .*\[parallelism-gpus\]$/), expect.stringMatching(/^planner\.maxGpuBudget: .*\[planner-budget\]$/)]));
  });

  test('alone, it comes with what the rules find on a draft on every release, and nothing only some releases find', () => {
    // GPUs short of the parallelism are wrong on any release; a block size of 48 only for the
    // vLLM of 0.8 and 0.9 (1.x takes any): it is left out rather than judged by a release the graph does not run
    const withVersion = (dynamoVersion: string) =>
      issuesOf(() =>
        renderGraph(disaggregatedGraphSpec('llm', 'ns', disaggregated({ dynamoVersion, prefill: { blockSize: 48 }, decode: { blockSize: 48, tensorParallelSize: 4, gpus: 2 } }))),
      );
    const rules = (issues: string[]) => issues.map((i) => /\[(.*)\]$/.exec(i)![1]);
    const onEach = Object.keys(RELEASES).map((line) => rules(withVersion(`${line}.0`)));
    expect(onEach.filter((found) => found.includes('value-range')).length).toBeGreaterThan(0);
    expect(onEach.filter((found) => !found.includes('value-range')).length).toBeGreaterThan(0);
    expect(rules(withVersion('9.9.9'))).toEqual(['unknown-version', 'parallelism-gpus']);
  });
});

describe('the bundled library', () => {
  // what the build ships: projenrc/bundle.ts run on a temporary directory, loaded by Node as a consumer would
  const root = resolve(__dirname, '..', '..');
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'bundle-'));
    bundle(root, out);
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  const run = (script: string): string =>
    execFileSync(process.execPath, ['-e', script], { cwd: out, env: { ...process.env, NODE_PATH: join(root, 'node_modules') }, encoding: 'utf8' });

  test('every exported class keeps its name', () => {
    const entries = JSON.stringify(Object.values(ENTRY_POINTS));
    const found: [string, string, string][] = JSON.parse(
      run(`
        const out = [];
        for (const file of ${entries}) {
          for (const [key, value] of Object.entries(require('./' + file))) {
            if (typeof value === 'function' && /^class\\b/.test(Function.prototype.toString.call(value))) out.push([file, key, value.name]);
          }
        }
        process.stdout.write(JSON.stringify(out));
      `),
    );
    const keys = found.map(([file, key]) => `${file}:${key}`);
    expect(keys).toEqual(expect.arrayContaining(['core/index.js:DynamoValidationError', 'core/index.js:Backend', 'cdk8s/index.js:DisaggregatedDeployment', 'pulumi/index.js:DisaggregatedDeployment']));
    expect(found.filter(([, key, name]) => key !== name)).toEqual([]);
  });

  test('a validation error prints as DynamoValidationError', () => {
    const printed = run(`
      const { aggregatedGraphSpec, Backend, renderGraph } = require('./index.js');
      try {
        renderGraph(aggregatedGraphSpec('g', 'ns', { model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), workers: { replicas: -1 } }));
      } catch (e) {
        // as Node prints an uncaught error, and the class a handler sees
        process.stdout.write(require('node:util').inspect(e).split('\\n')[0] + '\\n' + e.constructor.name);
      }
    `);
    expect(printed.split('\n')).toEqual(['DynamoValidationError: 1 invalid option:', 'DynamoValidationError']);
  });
});
