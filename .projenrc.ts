import { javascript, typescript } from 'projen';

const project = new typescript.TypeScriptProject({
  name: 'dynamo-constructs',
  description:
    'Typed infrastructure-as-code constructs for NVIDIA Dynamo LLM inference on Kubernetes: cdk8s constructs and Pulumi components from one engine-neutral model.',
  keywords: ['nvidia', 'dynamo', 'llm', 'inference', 'kubernetes', 'cdk8s', 'pulumi', 'gpu'],
  license: 'Apache-2.0',
  copyrightOwner: 'dynamo-constructs authors',
  defaultReleaseBranch: 'main',
  projenrcTs: true,
  packageManager: javascript.NodePackageManager.NPM,
  minNodeVersion: '20.0.0',
  typescriptVersion: '~5.9.3',
  sampleCode: false,
  github: false,
  release: false,
  buildWorkflow: false,
  depsUpgrade: false,
  pullRequestTemplate: false,
  eslint: false,
  entrypoint: 'lib/index.js',
  // ajv: the lint command checks manifests against the Dynamo CRD schemas
  deps: ['yaml@^2.8.0', '@grafana/grafana-foundation-sdk@~0.0.21', 'ajv@^8.17.0'],
  bin: { 'dynamo-constructs': 'lib/cli/main.js' },
  peerDeps: [
    'cdk8s@^2.70.100',
    'constructs@^10.8.1',
    'cdk8s-plus-28@^2.5.6',
    '@pulumi/pulumi@^3.248.0',
    '@pulumi/kubernetes@^4.34.0',
    // the lint command validates core Kubernetes objects with it when installed
    'kubernetes-models@^4.5.1',
  ],
  devDeps: [
    '@swc/core@^1.15.0',
    '@swc/jest@^0.2.39',
    'esbuild@^0.28.0',
    'fast-check@^4.10.0',
    'tsconfig-paths@^4.2.0',
    '@kubernetes-models/flux-cd@^4.0.0',
    '@kubernetes-models/prometheus-operator@^6.0.0',
    '@prometheus-io/lezer-promql@^0.315.0',
  ],
  tsconfig: {
    compilerOptions: {
      lib: ['es2022'],
      target: 'ES2022',
      // package "exports" (e.g. the Grafana SDK's entry points) need node16 resolution; output stays CommonJS
      module: 'node16',
      moduleResolution: javascript.TypeScriptModuleResolution.NODE16,
      skipLibCheck: true,
    },
  },
  tsconfigDev: {
    include: ['../examples/**/*.ts', '../bench/**/*.ts', '../projenrc/**/*.ts'],
    compilerOptions: {
      baseUrl: '..',
      paths: {
        'dynamo-constructs': ['src/index.ts'],
        'dynamo-constructs/*': ['src/*/index.ts'],
      },
    },
  },
  jestOptions: {
    jestVersion: '^30',
    updateSnapshot: javascript.UpdateSnapshot.NEVER,
    passWithNoTests: false,
    junitReporting: false,
    coverageText: false,
  },
});

// Optional peers: a cdk8s user never installs Pulumi, and the reverse.
project.package.addField('peerDependenciesMeta', {
  'cdk8s': { optional: true },
  'constructs': { optional: true },
  'cdk8s-plus-28': { optional: true },
  '@pulumi/pulumi': { optional: true },
  '@pulumi/kubernetes': { optional: true },
  'kubernetes-models': { optional: true },
});

// TypeScript before node16 module resolution finds the subpath entry points through typesVersions.
project.package.addField('typesVersions', {
  '*': { cdk8s: ['lib/cdk8s/index.d.ts'], pulumi: ['lib/pulumi/index.d.ts'] },
});

// Entry points: core (no engine), and one thin shell per engine.
project.package.addField('exports', {
  '.': { types: './lib/index.d.ts', default: './lib/index.js' },
  './cdk8s': { types: './lib/cdk8s/index.d.ts', default: './lib/cdk8s/index.js' },
  './pulumi': { types: './lib/pulumi/index.d.ts', default: './lib/pulumi/index.js' },
  './package.json': './package.json',
});

// Tests: jest transpiles with swc (fast); types are checked once by tsc before jest runs.
const jestConfig = project.jest!.config;
jestConfig.collectCoverage = false;
jestConfig.setupFiles = ['<rootDir>/test/support/setup.ts'];
// the run writes into a temp dir of its own, removed when it ends
jestConfig.globalSetup = '<rootDir>/test/support/global-setup.ts';
jestConfig.globalTeardown = '<rootDir>/test/support/global-teardown.ts';
// the conformance suite's virtualenvs live in .cache/: not part of the module map
jestConfig.modulePathIgnorePatterns = ['<rootDir>/.cache/'];
jestConfig.testMatch = ['<rootDir>/test/**/*.test.ts'];
// packing and installing the tarball takes minutes: its own suite (`npm run test:package`), which CI runs
jestConfig.testPathIgnorePatterns = ['/node_modules/', '<rootDir>/test/package.test.ts'];
jestConfig.transform = { '^.+\\.[t]sx?$': ['@swc/jest', {}] };
jestConfig.moduleNameMapper = {
  '^dynamo-constructs$': '<rootDir>/src/index.ts',
  '^dynamo-constructs/(.*)$': '<rootDir>/src/$1/index.ts',
};
project.deps.removeDependency('ts-jest');

// JavaScript comes bundled, one file per entry point (projenrc/bundle.ts); tsc emits the declarations.
project.preCompileTask.exec('rm -rf lib', { name: 'no declarations of deleted sources' });
project.compileTask.reset('tsc -p tsconfig.json --emitDeclarationOnly');
project.tasks.tryFind('post-compile')!.exec('ts-node --project projenrc/tsconfig.json projenrc/bundle.ts lib', {
  name: 'bundle each entry point',
});
// The lint command validates against Dynamo's CRDs: bundle their schemas with the build.
project.tasks.tryFind('post-compile')!.exec(`node -e "require('./lib/cli/main').bundleCrds('../shared/dynamo/crds', '../shared/dynamo/crds-v1beta1')"`, {
  name: 'bundle the Dynamo CRD schemas for dynamo-constructs lint',
});

// `npm pack` and `npm publish` build first: a fresh clone has no lib/, and a package without it is empty.
// The build only (pre-compile, compile, post-compile): the tests are `npm test`'s to run.
const prepack = project.addTask('prepack', { description: 'Build lib/ before npm packs the package (npm pack, npm publish)' });
prepack.spawn(project.preCompileTask);
prepack.spawn(project.compileTask);
prepack.spawn(project.postCompileTask);
// `npx projen build` has just built lib/ when it packs: its pack does not build again.
project.packageTask.reset('mkdir -p dist/js');
project.packageTask.exec('npm pack --ignore-scripts --pack-destination dist/js');

const test = project.tasks.tryFind('test')!;
test.prependExec('tsc --noEmit -p test/tsconfig.json', { name: 'type-check src, tests and examples' });

// The main job: synthesize every example into dist/.
project.addTask('synth', {
  description: 'Synthesize the examples into dist/',
  exec: 'ts-node --transpile-only -r tsconfig-paths/register --project test/tsconfig.json examples/synth.ts',
});

// `npm run conformance`: every process the library configures, through the argument parsing of each
// supported Dynamo release's own code, in cached virtualenvs (test/conformance/).
project.addTask('conformance', {
  description: "Check every synthesized command line with Dynamo's own parsers, per release line",
  exec: 'ts-node --transpile-only -r tsconfig-paths/register --project test/tsconfig.json test/conformance/run.ts',
  receiveArgs: true,
});

// `npm run test:cluster`: everything the library writes applied to a real kube-apiserver, and the
// Pulumi examples run by the real engine and provider against it (test/cluster/; binaries built from
// the Go module proxy into the user's cache directory on first use).
project.addTask('test:cluster', {
  description: 'Apply every example to a real kube-apiserver; run the Pulumi examples with the real engine',
  exec: 'ts-node --transpile-only -r tsconfig-paths/register --project test/tsconfig.json test/cluster/run.ts',
  receiveArgs: true,
});

// `npm run test:rehearse`: the examples rehearsed for real with Dynamo's mocker (test/rehearsal/).
project.addTask('test:rehearse', {
  description: 'Rehearse the disaggregated (1.6.1) and aggregated (0.9.0) examples with the mocker, locally',
  exec: 'ts-node --transpile-only -r tsconfig-paths/register --project test/tsconfig.json test/rehearsal/run.ts',
});

// `npm run test:sla`: the planned example's whole SLA loop, rehearsed with the real planner,
// prometheus-operator, Prometheus and kube-apiserver (test/sla/; peers built into the user's cache).
project.addTask('test:sla', {
  description: 'Rehearse the planned example\'s SLA loop on 1.6.1 and 0.9.0 (planner_sla): scale up and down, panels on live data, alerts slow and fast',
  exec: 'ts-node --transpile-only -r tsconfig-paths/register --project test/tsconfig.json test/sla/run.ts',
});

// `npm run test:package`: the library built, packed and installed into fresh consumer projects (test/package.test.ts).
project.addTask('test:package', {
  description: 'Build and pack the library, install the tarball into fresh projects, and use it',
  exec: 'jest --ci --testPathIgnorePatterns /node_modules/ --runTestsByPath test/package.test.ts',
});

// `npm run api`: the public surface written to API.md, which test/api-report.test.ts compares with the sources.
project.addTask('api', {
  description: 'Write the public surface of each entry point to API.md',
  exec: 'ts-node --transpile-only --project test/tsconfig.json test/support/write-api-report.ts',
});

// `npm run bench`: the library against cdk8s and Pulumi alone, on the built package (BENCHMARKS.md).
const bench = project.addTask('bench', { description: 'Benchmark synthesis and imports against cdk8s and Pulumi alone' });
bench.spawn(project.compileTask);
bench.spawn(project.tasks.tryFind('post-compile')!);
bench.exec('ts-node --transpile-only --project test/tsconfig.json bench/run.ts');

project.gitignore.exclude('/dist/', '/.bench/', '/.cache/');
project.npmignore?.exclude('/examples/', '/dist/', '/.ci/', '/bench/', '/.bench/', '/.cache/', '/projenrc/', 'BENCHMARKS.md', 'API.md');

project.synth();
