import * as path from 'path';
import * as ts from 'typescript';
import { DEFAULT_DYNAMO_VERSION } from '../../src';

// The declarations are what a newcomer reads in the editor. Every doc comment of the public surface
// (what the three entry points export, and every type those declarations refer to) must say what
// the default release renders, and a claim that holds on Dynamo 0.8/0.9 only must say so.

const ROOT = path.resolve(__dirname, '../..');
const ENTRY_POINTS = ['src/index.ts', 'src/cdk8s/index.ts', 'src/pulumi/index.ts'];

/**
 * Vocabulary of the 0.8/0.9 (v1alpha1) graph, request, flags and charts that 1.x no longer
 * has, each with what takes its place on 1.x (reference-1x.md sections 2-5). Option names of
 * the library that are valid on every release (`sharedMemory`, `deployMocker`, `configMapRef`)
 * are not terms: only the 0.x manifest and command-line vocabulary is.
 */
const ZERO_X_TERMS: readonly { readonly term: RegExp; readonly on1x: string }[] = [
  { term: /v1alpha1/, on1x: '`nvidia.com/v1beta1` (graph and request)' },
  { term: /spec\.services\b/, on1x: '`spec.components[]`, each with its `name`' },
  { term: /spec\.envs\b|`envs`/, on1x: '`spec.env`' },
  { term: /spec\.pvcs\b|`pvcs`/, on1x: 'a pod volume of the claim in `podTemplate.spec.volumes`' },
  { term: /extraPodSpec/, on1x: '`podTemplate.spec`' },
  { term: /mainContainer/, on1x: 'the container named `main` in `podTemplate.spec.containers`' },
  { term: /envFromSecret/, on1x: '`envFrom` of the `main` container' },
  { term: /\bcomponentType\b|subComponentType/, on1x: 'the component `type` (frontend, worker, prefill, decode, planner)' },
  { term: /dynamoNamespace/, on1x: 'nothing: 1.x dropped the field' },
  { term: /profilingConfig/, on1x: 'the v1beta1 request\'s top-level `image`, `hardware`, `workload`, `sla` and `overrides.profilingJob`' },
  { term: /\bdeploymentOverrides\b/, on1x: '`overrides.dgd`' },
  { term: /\bworkersImage\b/, on1x: '`profilerImage` (`spec.image`), from which 1.x derives the worker images' },
  { term: /outputPVC/, on1x: 'a volume mounted through `overrides.profilingJob`' },
  { term: /status\.generatedDeployment/, on1x: '`status.profilingResults.selectedConfig`' },
  { term: /ai ?configurator/i, on1x: "`searchStrategy: 'rapid'` (the profiler's AISimulate model)" },
  { term: /planner_sla/, on1x: '`python3 -m dynamo.planner --config <file>`' },
  { term: /`planner:|planner:\*/, on1x: '`dynamo_planner_*` metrics' },
  { term: /--load-prediction-window-size/, on1x: '`prophet_window_size` of the PlannerConfig' },
  { term: /--is-prefill-worker|--is-decode-worker/, on1x: '`--disaggregation-mode prefill|decode`' },
  { term: /--connector\b/, on1x: '`--kv-transfer-config` (1.x refuses `--connector`)' },
  { term: /--publish-events-and-metrics/, on1x: '`--publish-kv-events`' },
  { term: /--store-kv/, on1x: '`--discovery-backend`' },
  { term: /--kv-overlap-score-weight/, on1x: '`--router-prefill-load-scale`' },
  { term: /--no-kv-events/, on1x: '`--no-router-kv-events`' },
  { term: /--router-ttl(?![\w-])/, on1x: '`--router-ttl-secs`' },
  { term: /--router-max-tree-size|--router-prune-target-ratio/, on1x: 'nothing: the 1.x frontend has no prediction tree settings' },
  { term: /dynamo-crds/, on1x: 'nothing: the 1.x operator installs the CRDs' },
  { term: /CUDA 12|cuda: ?12|-cuda13/, on1x: 'the plain tag, CUDA 13 (1.x runtime images are CUDA 13 only)' },
];

/**
 * A release line named in prose: `0.8`, `0.9`, `0.x`, `1.x`, `1.6`, `1.6.1`, `0.8/0.9`. A bare
 * number in parentheses is a value (`Dynamo's default (1.0)`), not a release.
 */
const RELEASE_LINE = /\b(?:[01]\.x|0\.[89]|1\.\d+)\b/;
const namesReleaseLine = (text: string) => RELEASE_LINE.test(text.replace(/\(\s*\d+(?:\.\d+)*\s*\)/g, ''));

/** A Dynamo version (`1.6.1`, `0.9.0.post1`), or an image tag of Dynamo's registry (`vllm-runtime:<version>`). */
const DYNAMO_VERSION = /(?<![\w.])[01]\.\d+\.\d+(?:\.post\d+)?/g;
const DYNAMO_IMAGE_TAG = /\b(?:[a-z]+-runtime|dynamo-planner|dynamo-frontend):[^\s`),;]+/g;

interface Doc {
  /** The declaration, as a reader finds it (`KvRouterOptions.ttlSeconds`). */
  readonly name: string;
  /** `src/core/router.ts:53`. */
  readonly where: string;
  /** The comment's text and every tag, as one string. */
  readonly text: string;
  /** The text of each `@default` tag. */
  readonly defaults: readonly string[];
}

function jsDocText(c: string | ts.NodeArray<ts.JSDocComment> | undefined): string {
  return (typeof c === 'string' ? c : ts.getTextOfJSDocComment(c)) ?? '';
}

/**
 * The doc comments of the public surface reachable from the entry points under `root`: every
 * exported declaration, its members (type literals included), and the declarations of `src/`
 * their types refer to, whether exported or not (they are in the published declarations too).
 * `@internal` declarations (stripped from them) and private members are left out.
 */
function publicDocs(root: string): Doc[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  })!;
  const entries = ENTRY_POINTS.map((f) => path.join(root, f));
  const program = ts.createProgram({ rootNames: entries, options: { ...parsed.options, noEmit: true } });
  const checker = program.getTypeChecker();
  const src = path.join(root, 'src') + path.sep;
  const docs: Doc[] = [];
  const seen = new Set<ts.Node>();

  const internal = (n: ts.Node) => ts.getJSDocTags(n).some((t) => t.tagName.text === 'internal');
  const priv = (n: ts.Node) =>
    (ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) ||
    ((ts.isPropertyDeclaration(n) || ts.isMethodDeclaration(n)) && ts.isPrivateIdentifier(n.name));

  function record(name: string, node: ts.Node): void {
    for (const doc of ts.getJSDocCommentsAndTags(node)) {
      if (!ts.isJSDoc(doc)) continue;
      const sf = doc.getSourceFile();
      const tags = (doc.tags ?? []).map((t) => ({ tag: t.tagName.text, text: jsDocText(t.comment) }));
      docs.push({
        name,
        where: `${path.relative(root, sf.fileName)}:${sf.getLineAndCharacterOfPosition(doc.getStart()).line + 1}`,
        text: [jsDocText(doc.comment), ...tags.map((t) => `@${t.tag} ${t.text}`)].join('\n'),
        defaults: tags.filter((t) => t.tag === 'default').map((t) => t.text),
      });
    }
  }

  function follow(ref: ts.TypeReferenceNode | ts.ExpressionWithTypeArguments): void {
    let s = checker.getSymbolAtLocation(ts.isTypeReferenceNode(ref) ? ref.typeName : ref.expression);
    if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
    for (const d of s?.declarations ?? []) visit(s!.getName(), d);
  }

  function visit(name: string, node: ts.Node): void {
    if (seen.has(node) || !path.resolve(node.getSourceFile().fileName).startsWith(src) || internal(node)) return;
    seen.add(node);
    const member = (m: ts.Node) => {
      const n = (m as ts.NamedDeclaration).name;
      return `${name}.${n ? n.getText() : ts.isConstructorDeclaration(m) ? 'constructor' : ts.SyntaxKind[m.kind]}`;
    };
    if (ts.isConstructorDeclaration(node)) {
      // parameter properties are public members even where the constructor is private
      for (const p of node.parameters) if (ts.isParameterPropertyDeclaration(p, node) && !priv(p)) visit(`${name.replace(/\.constructor$/, '')}.${p.name.getText()}`, p);
      if (priv(node)) return;
    } else if (priv(node)) {
      return;
    }
    record(name, node);
    if (ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isEnumDeclaration(node)) {
      for (const m of node.members) visit(member(m), m);
    }
    if (ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) {
      for (const h of node.heritageClauses ?? []) for (const t of h.types) follow(t);
    }
    // the types the declaration is written with: inline type literals, and the named types they use
    ts.forEachChild(node, function walk(c: ts.Node): void {
      if (ts.isJSDoc(c) || ts.isBlock(c) || ts.isClassDeclaration(c) || ts.isInterfaceDeclaration(c) || ts.isEnumDeclaration(c)) return;
      if (ts.isPropertyDeclaration(c) || ts.isMethodDeclaration(c) || ts.isConstructorDeclaration(c) || ts.isGetAccessor(c)) return;
      if (ts.isTypeLiteralNode(c)) {
        for (const m of c.members) visit(member(m), m);
        return;
      }
      if (ts.isTypeReferenceNode(c) || ts.isExpressionWithTypeArguments(c)) follow(c);
      if (ts.isVariableDeclaration(c) || ts.isParameter(c)) {
        if (c.type) walk(c.type);
        return;
      }
      ts.forEachChild(c, walk);
    });
  }

  for (const entry of entries) {
    const sf = program.getSourceFile(entry);
    if (!sf) throw new Error(`no entry point ${entry}`);
    for (let s of checker.getExportsOfModule(checker.getSymbolAtLocation(sf)!)) {
      if (s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
      for (const d of s.declarations ?? []) visit(s.getName(), d);
    }
  }
  return docs;
}

/** The 0.x-only terms a comment uses while naming no release line, with what 1.x has instead. */
function unqualifiedZeroXClaims(text: string): string[] {
  if (namesReleaseLine(text)) return [];
  return ZERO_X_TERMS.filter(({ term }) => term.test(text)).map(({ term, on1x }) => `"${text.match(term)![0]}" (0.8/0.9 only; 1.x: ${on1x})`);
}

/**
 * Whether a `@default` that names a Dynamo image tag or version, or is the default of an image
 * option (`image`, `profilerImage`...), says what the default release renders (names
 * `DEFAULT_DYNAMO_VERSION`) or names the release line it is about. A version or tag is not a
 * release line for this purpose: `vllm-runtime:0.9.0` alone is what 0.9 renders, not what the
 * default release does.
 */
function defaultProblem(text: string, imageOption: boolean): string | undefined {
  const versions: readonly string[] = text.match(DYNAMO_VERSION) ?? [];
  const tags: readonly string[] = text.match(DYNAMO_IMAGE_TAG) ?? [];
  if (versions.length === 0 && tags.length === 0 && !imageOption) return undefined;
  if (versions.includes(DEFAULT_DYNAMO_VERSION)) return undefined;
  const rest = text.replace(DYNAMO_IMAGE_TAG, '').replace(DYNAMO_VERSION, '');
  if (namesReleaseLine(rest)) return undefined;
  return `@default "${text}" ${imageOption ? 'of an image option' : 'names an image or version'}, but names neither the default release's (${DEFAULT_DYNAMO_VERSION}) nor the release line it is about`;
}

describe('the rules', () => {
  test.each([
    'Environment of every service (`spec.envs`).',
    'CUDA major version of the default runtime image. @default - the plain tag (CUDA 12 for vLLM and SGLang)',
    'Given to workers as `envFromSecret`.',
    'Without KV events only: seconds after which a predicted block expires. `--router-ttl`.',
    'An SLA-planned deployment: a `nvidia.com/v1alpha1` request, offline with AIConfigurator.',
    'Weight of prefix-cache overlap. `--kv-overlap-score-weight`.\n@default - Dynamo\'s default (1.0)',
  ])('a 0.x-only claim that names no release line is found: %s', (text) => {
    expect(unqualifiedZeroXClaims(text)).not.toEqual([]);
  });

  test.each([
    'Environment of every service (1.x: `spec.env`; 0.8/0.9: `spec.envs`).',
    'On 1.x a `nvidia.com/v1beta1` request; on 0.8/0.9 a `nvidia.com/v1alpha1` one.',
    '1.x `--router-ttl-secs`, 0.8/0.9 `--router-ttl`.',
    'The 1.x frontend has no `--router-max-tree-size`.',
    'Seconds after which a predicted block expires (`--router-ttl-secs`).',
    'Fewest engines the planner keeps per role. @default - the planner\'s default (1)',
  ])('a claim that names its release line, or none that is 0.x-only, passes: %s', (text) => {
    expect(unqualifiedZeroXClaims(text)).toEqual([]);
  });

  test('an image option whose @default names neither the default release nor a line is found', () => {
    expect(defaultProblem('- the backend\'s runtime image for `dynamoVersion`', true)).toBeDefined();
  });

  test.each([
    '`nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0`',
    '`dynamo-planner:<dynamoVersion>`',
    "'1.5.1'",
  ])('a @default naming an image tag or version without the default release or a line is found: %s', (text) => {
    expect(defaultProblem(text, false)).toBeDefined();
  });

  test.each([
    `\`nvcr.io/nvidia/ai-dynamo/dynamo-planner:${DEFAULT_DYNAMO_VERSION}\` (\`dynamo-planner:<dynamoVersion>\`)`,
    '1.x: the release\'s planner image; 0.8/0.9: the graph\'s image',
    'the release\'s: the chart\'s own on 1.x and 0.8; 0.22.3 on 0.9.x',
    "KUBE_PROMETHEUS_STACK_VERSION ('77.6.0': prometheus-operator v0.85.0, Prometheus v3.5.0)",
    "'IfNotPresent'",
  ])('a @default naming the default release, a line, or no Dynamo image passes: %s', (text) => {
    expect(defaultProblem(text, false)).toBeUndefined();
  });

  test('an image option whose @default names the default release or its lines passes', () => {
    expect(defaultProblem(`- \`vllm-runtime:${DEFAULT_DYNAMO_VERSION}\` on ${DEFAULT_DYNAMO_VERSION}`, true)).toBeUndefined();
    expect(defaultProblem("- 1.x: the release's planner image; 0.8/0.9: the graph's image", true)).toBeUndefined();
  });
});

describe('the published declarations', () => {
  const docs = publicDocs(ROOT);

  test('are read from every entry point, down to the options a newcomer sets', () => {
    const names = new Set(docs.map((d) => d.name));
    for (const name of [
      'SlaPlannedDeploymentOptions.profilerImage', // core, through src/index.ts
      'KvRouterOptions.ttlSeconds',
      'BackendOptions.cuda',
      'PlannerOptions.image',
      'GraphOptions.env',
      'HfTokenSecret',
      'ModelCache', // a class of the cdk8s and the Pulumi entry points
      'SlaPlannedDeployment',
      'DynamoGraph',
      'FrontendArgs.serviceName', // Pulumi only
      'DynamoRelease.vllm.kvTransferRoles', // a member of an inline type literal
    ]) {
      expect(names).toContain(name);
    }
    expect(docs.length).toBeGreaterThan(500);
  });

  test('make no 0.x-only claim without naming its release line', () => {
    const problems = docs.flatMap((d) => unqualifiedZeroXClaims(d.text).map((p) => `${d.where} ${d.name}: ${p}`));
    expect(problems).toEqual([]);
  });

  test(`say what the default release (${DEFAULT_DYNAMO_VERSION}) renders in every @default that names an image or version`, () => {
    const problems = docs.flatMap((d) =>
      d.defaults
        .map((text) => defaultProblem(text, /image$/i.test(d.name.split('.').pop()!)))
        .filter((p) => p !== undefined)
        .map((p) => `${d.where} ${d.name}: ${p}`),
    );
    expect(problems).toEqual([]);
  });
});
