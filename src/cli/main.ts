#!/usr/bin/env node
import * as fs from 'fs';
import * as path from 'path';
import { Diagnostics, DynamoRelease, lookupRelease } from '../core';
import { CrdFileError, CrdSchemas, CrdValidator, loadCrds } from './crd-schema';
import { formatJson, formatText, LintResult, lintSources, LintSource, serverFindings, withServerFindings } from './lint';
import { rehearse, RehearseOptions } from './rehearse';
import { RehearsalError } from './rehearse-plan';
import { KubeClient, KubeconfigError, loadKubeconfig } from './server';

/** The Dynamo CRD schemas bundled at build time, next to this file. */
export const BUNDLED_CRDS = path.join(__dirname, 'dynamo-crds.json');

const REHEARSE_USAGE = `Usage: dynamo-constructs rehearse [options] <file|directory>...

Runs a synthesized DynamoGraphDeployment on this machine without GPUs: its frontend
with the manifest's flags, every engine worker as Dynamo's mocker in its role, from
Dynamo's packages of the graph's release (a cached virtualenv), all on 127.0.0.1. It
waits for the model, sends bounded OpenAI chat requests, prints TTFT and ITL next to
the SLA, and stops everything it started.

Options:
  --graph <name>          the graph to rehearse, when the files hold several
  --requests <n>          requests to send (default 8)
  --concurrency <n>       requests at a time (default 2)
  --max-tokens <n>        tokens per answer (default 32)
  --tokenizer <dir>       a local model directory (tokenizer.json, config) standing in
                          for the model; default: the model's own, from the hub
  --dynamo-version <v>    when the images name no release
  --python <path>         the Python that creates the virtualenv
  --timeout <seconds>     for the model to be served (default 180)
  --sla-ttft-ms <ms>, --sla-itl-ms <ms>
                          targets to print (default: the graph's planner's)
  --load-generator <g>    what sends the requests: aiperf (NVIDIA AIPerf), http (plain
                          streaming HTTP) or auto (default: AIPerf where it runs)
  --aiperf <path>         the aiperf executable (default: aiperf on PATH)
  --keep-logs <dir>       copy every process's log (and AIPerf's exports) there
  -h, --help              show this help

Exit status: 0 when every request succeeded, 1 when one failed or the graph did not
start, 2 on usage errors.
`;

const USAGE = `Usage: dynamo-constructs lint [options] <file|directory|->...
       dynamo-constructs rehearse [options] <file|directory>...   (see rehearse --help)

Checks Dynamo manifests (DynamoGraphDeployment, DynamoGraphDeploymentRequest and
the objects deployed with them) against the Dynamo CRD schemas and the rules
dynamo-constructs applies to the deployments it generates.

Options:
  --strict          report warnings as errors
  --format <fmt>    text (default: one line per finding) or json
  --crds <path>     CRD file or directory to validate against (repeatable);
                    default: the Dynamo CRDs bundled with this package
                    (0.9's v1alpha1 and 1.6's v1beta1)
  --dynamo-version <version>
                    check the manifests as the Dynamo release they will run
                    (e.g. 1.6.1 before an upgrade): flags, variables and fields
                    it removed or deprecates are reported; default: the
                    release each manifest's images name
  --server          then dry-run every document against the API server of the
                    current kubeconfig context (server-side apply, strict field
                    validation) and report what it refuses
  --kubeconfig <path>, --context <name>
                    which API server --server asks (default: $KUBECONFIG or
                    ~/.kube/config, its current context)
  -h, --help        show this help

Directories are searched for *.yaml and *.yml files; - reads standard input.
Exit status: 0 when no errors (warnings allowed), 1 on errors, 2 on usage errors.
`;

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdin: () => string;
}

class UsageError extends Error {}

interface Args {
  readonly files: string[];
  readonly strict: boolean;
  readonly format: 'text' | 'json';
  readonly crds: string[];
  readonly dynamoVersion?: string;
  readonly server: boolean;
  readonly kubeconfig?: string;
  readonly context?: string;
}

/**
 * Calls `each` with every argument in turn and a function that takes the value of the flag it is
 * (`--flag=value`, or the next argument, which is then consumed).
 */
function eachArgument(argv: readonly string[], each: (arg: string, value: () => string) => void): void {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    each(a, () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${a.split('=')[0]} needs a value`);
      return v;
    });
  }
}

function parseArgs(argv: readonly string[]): Args {
  const files: string[] = [];
  const crds: string[] = [];
  let strict = false;
  let format: 'text' | 'json' = 'text';
  let dynamoVersion: string | undefined;
  let server = false;
  let kubeconfig: string | undefined;
  let context: string | undefined;
  eachArgument(argv, (a, value) => {
    if (a === '--strict') strict = true;
    else if (a === '--format' || a.startsWith('--format=')) {
      const f = value();
      if (f !== 'text' && f !== 'json') throw new UsageError(`--format must be text or json, got ${JSON.stringify(f)}`);
      format = f;
    } else if (a === '--crds' || a.startsWith('--crds=')) crds.push(value());
    else if (a === '--dynamo-version' || a.startsWith('--dynamo-version=')) dynamoVersion = value();
    else if (a === '--server') server = true;
    else if (a === '--kubeconfig' || a.startsWith('--kubeconfig=')) kubeconfig = value();
    else if (a === '--context' || a.startsWith('--context=')) context = value();
    else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
    else files.push(a);
  });
  if (files.length === 0) throw new UsageError('no files given');
  if ((kubeconfig !== undefined || context !== undefined) && !server) throw new UsageError('--kubeconfig and --context need --server');
  return { files, strict, format, crds, dynamoVersion, server, kubeconfig, context };
}

function yamlFilesIn(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' || e.name.startsWith('.') ? [] : yamlFilesIn(p);
      return /\.ya?ml$/.test(e.name) ? [p] : [];
    });
}

function readSources(files: readonly string[], io: CliIo): LintSource[] {
  return files.flatMap((f): LintSource[] => {
    if (f === '-') return [{ file: '<stdin>', text: io.stdin() }];
    if (!fs.existsSync(f)) throw new UsageError(`${f}: no such file or directory`);
    if (fs.statSync(f).isDirectory()) {
      const found = yamlFilesIn(f);
      if (found.length === 0) throw new UsageError(`${f}: no *.yaml or *.yml files`);
      return found.map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
    }
    return [{ file: f, text: fs.readFileSync(f, 'utf8') }];
  });
}

function releaseFor(version: string | undefined): DynamoRelease | undefined {
  if (version === undefined) return undefined;
  const d = new Diagnostics();
  const release = lookupRelease(d, '--dynamo-version', version);
  if (!release) throw new UsageError(d.errors[0].message);
  return release;
}

function crdsFrom(paths: readonly string[]): CrdSchemas[] {
  if (paths.length === 0) {
    if (!fs.existsSync(BUNDLED_CRDS)) throw new UsageError('this build bundles no Dynamo CRDs; pass them with --crds <file|directory>');
    return (JSON.parse(fs.readFileSync(BUNDLED_CRDS, 'utf8')) as CrdSchemas[]);
  }
  return paths.flatMap((p) => {
    if (!fs.existsSync(p)) throw new UsageError(`--crds ${p}: no such file or directory`);
    let found: CrdSchemas[];
    try {
      found = loadCrds(p);
    } catch (e) {
      if (e instanceof CrdFileError) throw new UsageError(`--crds ${e.message}`);
      throw e;
    }
    if (found.length === 0) throw new UsageError(`--crds ${p}: no CustomResourceDefinition found`);
    return found;
  });
}

/**
 * Build step: bundles the CRDs of `source` (a file or directory) with the
 * compiled command, where it finds them when no --crds is given.
 */
export function bundleCrds(...sources: string[]): void {
  const crds = sources.flatMap((source) => {
    const found = loadCrds(source);
    if (found.length === 0) throw new Error(`no CustomResourceDefinition found in ${source}`);
    return found;
  });
  fs.writeFileSync(BUNDLED_CRDS, JSON.stringify(crds));
}

function report(args: Args, result: LintResult, io: CliIo): number {
  io.stdout(args.format === 'json' ? formatJson(result) : formatText(result));
  if (args.format === 'text') {
    for (const n of result.notes) io.stderr(`${n.file}: note: ${n.message}\n`);
    const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
    io.stderr(`${plural(result.errors, 'error')}, ${plural(result.warnings, 'warning')} in ${plural(result.files.length, 'file')}\n`);
  }
  return result.errors > 0 ? 1 : 0;
}

function usageError(e: unknown, io: CliIo): number {
  if (e instanceof UsageError) {
    io.stderr(`dynamo-constructs lint: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (e instanceof KubeconfigError) {
    io.stderr(`dynamo-constructs lint: --server: ${e.message}\n`);
    return 2;
  }
  throw e;
}

function parseRehearse(argv: readonly string[]): { files: string[]; options: RehearseOptions } {
  const files: string[] = [];
  const o: { -readonly [K in keyof RehearseOptions]: RehearseOptions[K] } = { requests: 8, concurrency: 2, maxTokens: 32, startTimeout: 180, requestTimeout: 60 };
  let ttft: number | undefined;
  let itl: number | undefined;
  eachArgument(argv, (a, value) => {
    const count = (min: number) => {
      const flag = a.split('=')[0];
      const v = value();
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be a whole number >= ${min}, got ${JSON.stringify(v)}`);
      return n;
    };
    const name = a.split('=')[0];
    if (name === '--graph') o.graph = value();
    else if (name === '--requests') o.requests = count(1);
    else if (name === '--concurrency') o.concurrency = count(1);
    else if (name === '--max-tokens') o.maxTokens = count(1);
    else if (name === '--tokenizer') o.tokenizer = value();
    else if (name === '--dynamo-version') o.dynamoVersion = value();
    else if (name === '--python') o.python = value();
    else if (name === '--timeout') o.startTimeout = count(1);
    else if (name === '--sla-ttft-ms') ttft = count(1);
    else if (name === '--sla-itl-ms') itl = count(1);
    else if (name === '--keep-logs') o.keepLogs = value();
    else if (name === '--aiperf') o.aiperf = value();
    else if (name === '--load-generator') {
      const g = value();
      if (g !== 'auto' && g !== 'aiperf' && g !== 'http') throw new UsageError(`--load-generator must be auto, aiperf or http, got ${JSON.stringify(g)}`);
      o.loadGenerator = g;
    }
    else if (a.startsWith('-')) throw new UsageError(`unknown option ${a}`);
    else files.push(a);
  });
  if (files.length === 0) throw new UsageError('no files given');
  if ((ttft === undefined) !== (itl === undefined)) throw new UsageError('--sla-ttft-ms and --sla-itl-ms go together');
  if (o.aiperf !== undefined && o.loadGenerator === 'http') throw new UsageError('--aiperf and --load-generator http contradict each other');
  if (ttft !== undefined && itl !== undefined) o.sla = { ttftMs: ttft, itlMs: itl };
  return { files, options: o };
}

function runRehearse(argv: readonly string[], io: CliIo): number | Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout(REHEARSE_USAGE);
    return 0;
  }
  let parsed: { files: string[]; options: RehearseOptions };
  let sources: LintSource[];
  try {
    parsed = parseRehearse(argv);
    sources = readSources(parsed.files, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`dynamo-constructs rehearse: ${e.message}\n\n${REHEARSE_USAGE}`);
      return 2;
    }
    throw e;
  }
  return rehearse(sources, parsed.options, io).then(
    (r) => (r.failed === 0 ? 0 : 1),
    (e: unknown) => {
      if (!(e instanceof RehearsalError)) throw e;
      io.stderr(`dynamo-constructs rehearse: ${e.message}\n`);
      return 1;
    },
  );
}

/**
 * Runs the command line; returns the exit status (a promise of it with `--server`, which
 * asks the API server).
 */
export function run(argv: readonly string[], io: CliIo): number | Promise<number> {
  if (argv[0] === '-h' || argv[0] === '--help' || argv.length === 0) {
    (argv.length === 0 ? io.stderr : io.stdout)(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === 'lint' && (argv.includes('-h') || argv.includes('--help'))) {
    io.stdout(USAGE);
    return 0;
  }
  if (argv[0] === 'rehearse') return runRehearse(argv.slice(1), io);
  if (argv[0] !== 'lint') {
    io.stderr(`unknown command ${JSON.stringify(argv[0])}\n\n${USAGE}`);
    return 2;
  }
  try {
    const args = parseArgs(argv.slice(1));
    const crds = new CrdValidator(crdsFrom(args.crds));
    const sources = readSources(args.files, io);
    const result = lintSources(sources, { crds, strict: args.strict, release: releaseFor(args.dynamoVersion) });
    if (!args.server) return report(args, result, io);
    const client = new KubeClient(loadKubeconfig(args.kubeconfig, args.context));
    return serverFindings(sources, client)
      .then((server) => report(args, withServerFindings(result, server, args.strict), io))
      .catch((e: Error) => {
        io.stderr(`dynamo-constructs lint: --server: the API server at ${client.connection.server} did not answer: ${e.message}\n`);
        return 2;
      })
      .finally(() => client.close());
  } catch (e) {
    return usageError(e, io);
  }
}

if (require.main === module) {
  void Promise.resolve(
    run(process.argv.slice(2), {
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
      stdin: () => fs.readFileSync(0, 'utf8'),
    }),
  ).then((status) => {
    process.exitCode = status;
  });
}
