import * as fs from 'fs';
import * as path from 'path';
import { Diagnostics, DynamoRelease, lookupRelease } from '../../core/internal';
import { CliIo, eachArgument, UsageError } from '../args';
import { CrdFileError, CrdSchemas, CrdValidator, loadCrds } from './crd-schema';
import { formatJson, formatText, LintResult, lintSources } from './lint';
import { printableLine } from '../text';
import { serverFindings, withServerFindings } from './server';
import { KubeClient, KubeconfigError, loadKubeconfig } from '../kube-client';
import { collectSources, DEFAULT_MAX_FILE_SIZE, MAX_FILE_SIZE_LIMIT, sizeText } from '../sources';

/** `dynamo-constructs lint`: its command line. */

/** The Dynamo CRD schemas bundled at build time, next to the command. */
export const BUNDLED_CRDS = path.join(__dirname, 'dynamo-crds.json');

export const USAGE = `Usage: dynamo-constructs lint [options] <file|directory|->...
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
  --max-file-size <size>
                    the largest file (and standard input) read, in bytes or
                    with a unit (512KB, 64MB; 1 MB = 1,048,576 bytes), up to
                    256MB; default: 64MB. A larger file is reported, not read
  --server          then dry-run every document against the API server of the
                    current kubeconfig context (server-side apply, strict field
                    validation) and report what it refuses
  --kubeconfig <path>, --context <name>
                    which API server --server asks (default: $KUBECONFIG or
                    ~/.kube/config, its current context)
  -h, --help        show this help

Directories are searched for *.yaml and *.yml files (not dot directories or
node_modules); - reads standard input. Only regular files are read: a FIFO,
socket, device, dangling or looping link, or a link out of the directory given
is reported as file-not-read, and so is a file that cannot be read.
Exit status: 0 when no errors (warnings allowed), 1 on errors, 2 on usage errors.
`;

interface Args {
  readonly files: string[];
  readonly strict: boolean;
  readonly format: 'text' | 'json';
  readonly crds: string[];
  readonly dynamoVersion?: string;
  readonly server: boolean;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly maxFileSize: number;
}

const UNITS = new Map<string, number>([['', 1], ['b', 1], ['k', 1024], ['kb', 1024], ['kib', 1024], ['m', 1024 ** 2], ['mb', 1024 ** 2], ['mib', 1024 ** 2]]);

/** `--max-file-size`: `1048576`, `512KB`, `64MB` (binary units), from 1 byte to MAX_FILE_SIZE_LIMIT. */
function parseSize(text: string): number {
  const m = /^(\d+)\s*([a-z]*)$/i.exec(text.trim());
  const unit = m ? UNITS.get(m[2].toLowerCase()) : undefined;
  const bytes = m && unit !== undefined ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1 || bytes > MAX_FILE_SIZE_LIMIT) {
    throw new UsageError(
      `--max-file-size must be a size from 1 byte to ${sizeText(MAX_FILE_SIZE_LIMIT).replace(' MiB', 'MB')}, in bytes or with a unit (KB, MB), got ${JSON.stringify(text)}`,
    );
  }
  return bytes;
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
  let maxFileSize = DEFAULT_MAX_FILE_SIZE;
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
    else if (a === '--max-file-size' || a.startsWith('--max-file-size=')) maxFileSize = parseSize(value());
    else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
    else files.push(a);
  });
  if (files.length === 0) throw new UsageError('no files given');
  if ((kubeconfig !== undefined || context !== undefined) && !server) throw new UsageError('--kubeconfig and --context need --server');
  return { files, strict, format, crds, dynamoVersion, server, kubeconfig, context, maxFileSize };
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
    for (const n of result.notes) io.stderr(`${printableLine(n.file)}: note: ${printableLine(n.message)}\n`);
    const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
    io.stderr(`${plural(result.errors, 'error')}, ${plural(result.warnings, 'warning')} in ${plural(result.files.length, 'file')}\n`);
  }
  return result.errors > 0 ? 1 : 0;
}

function usageError(e: unknown, io: CliIo): number {
  if (e instanceof UsageError) {
    // a usage error may name a path from the command line or a directory: shown, never run
    io.stderr(`dynamo-constructs lint: ${e.message.split('\n').map(printableLine).join('\n')}\n\n${USAGE}`);
    return 2;
  }
  if (e instanceof KubeconfigError) {
    io.stderr(`dynamo-constructs lint: --server: ${printableLine(e.message)}\n`);
    return 2;
  }
  throw e;
}

export function runLint(argv: readonly string[], io: CliIo): number | Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout(USAGE);
    return 0;
  }
  try {
    const args = parseArgs(argv);
    const crds = new CrdValidator(crdsFrom(args.crds));
    const { sources, unread } = collectSources(args.files, io, { maxFileSize: args.maxFileSize });
    const result = lintSources(sources, { crds, strict: args.strict, release: releaseFor(args.dynamoVersion), unread });
    if (!args.server) return report(args, result, io);
    const client = new KubeClient(loadKubeconfig(args.kubeconfig, args.context));
    return serverFindings(sources, client)
      .then((server) => report(args, withServerFindings(result, server, args.strict), io))
      .catch((e: Error) => {
        io.stderr(`dynamo-constructs lint: --server: the API server at ${printableLine(client.connection.server)} did not answer: ${printableLine(String(e?.message ?? e))}\n`);
        return 2;
      })
      .finally(() => client.close());
  } catch (e) {
    return usageError(e, io);
  }
}
