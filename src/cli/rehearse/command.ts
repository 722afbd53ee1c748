import { CliIo, eachArgument, UsageError } from '../args';
import { rehearse, RehearseOptions, SIGNAL_NUMBERS } from './rehearse';
import { rehearseSla, SlaRehearseOptions } from './sla';
import { printable } from '../text';
import { RehearsalError } from './plan';
import { LintSource, readSources } from '../sources';

/** `dynamo-constructs rehearse`: its command line. */

const REHEARSE_USAGE = `Usage: dynamo-constructs rehearse [options] <file|directory>...

Runs a synthesized DynamoGraphDeployment on this machine without GPUs: its frontend
with the manifest's router settings, every engine worker as Dynamo's mocker in its
role, from Dynamo's packages of the graph's release (a cached virtualenv), in private
namespaces whose only network is loopback. It waits for the model, sends bounded
OpenAI chat requests, prints TTFT and ITL next to the SLA, and stops everything it
started. Settings of the manifest a rehearsal does not take (anything that could load
code, read files or reach the network) are listed and left out.

Options:
  --graph <name>          the graph to rehearse, when the files hold several
  --requests <n>          requests to send (default 8)
  --concurrency <n>       requests at a time (default 2)
  --max-tokens <n>        tokens per answer (default 32)
  --tokenizer <dir>       a local model directory (tokenizer.json, config) standing in
                          for the model; default: the model's own, fetched from the
                          Hugging Face hub (tokenizer and config files only)
  --hf-token-from-env     give $HF_TOKEN to that download (gated models); the
                          rehearsal's processes never get it
  --strict                refuse a manifest that sets what a rehearsal leaves out,
                          and refuse to run without the private namespaces
  --host-network          run on this machine's network where user namespaces are not
                          available (listeners Dynamo binds to every interface are
                          then reachable from the network)
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

The SLA loop (--sla), for a graph with a Planner (Dynamo 1.6.1 or 0.9.0):
  --sla                   run the planner's whole control loop: the manifests in a
                          private kube-apiserver, Prometheus configured by the real
                          prometheus-operator from their PodMonitors and rules, every
                          pod a process on its own loopback address, the release's
                          planner, replicas followed as the operator would, a load
                          ramp; prints a timeline per planner interval and a verdict
  --crds <file|dir>       Dynamo's CRDs of the graph's release (DynamoGraphDeployment
                          and its scaling adapter), from its chart; repeatable;
                          required
  --peers <dir>           etcd, kube-apiserver, prometheus-operator and prometheus in
                          bin/, the operator's CRDs in crds/ (default: the cache's
                          real-k8s folder, which scripts/build-peers.sh sla fills)
  --load <ramp|steady>    ramp (default): about three replicas' worth of requests until
                          the planner scales up, then none until it scales down;
                          steady: a constant rate, judged by the SLA alerts
  --rate <r/s>            the ramp's peak or the steady rate (default: from the
                          rehearsal engine's capacity)
  --slowdown <x>          the simulated engine x times slower than its profile
                          (default 1), to see the SLA alerts fire
  --isl <n>, --osl <n>    tokens in and out per request (default: the SLA request's
                          in the files, else 1000 and 100)
  --max-intervals <n>     planner intervals each phase may take (default 4)
  --planner-python <path> the Python 3.11 that creates the planner's virtualenv
  --load-generator, --aiperf
                          as above: AIPerf (one run per phase, at its rate) where it
                          runs, else plain HTTP

Exit status: 0 when every request succeeded (--sla: when the verdict held), 1 when
one failed or the graph did not start (--sla: the verdict failed), 2 on usage errors,
130 on SIGINT and 143 on SIGTERM (a second one stops at once).
`;

/** A numeric option's value, or a usage error naming the option, the value given and what is allowed. */
function numberOption(flag: string, v: string, min: number, max: number, whole: boolean): number {
  const n = Number(v);
  if (!(whole ? /^[0-9]+$/ : /^[0-9]+(\.[0-9]+)?$/).test(v) || n < min || n > max) {
    throw new UsageError(`${flag} must be a ${whole ? 'whole number' : 'number'} from ${min} to ${max}, got ${JSON.stringify(printable(v))}`);
  }
  return n;
}

function parseRehearse(argv: readonly string[]): { files: string[]; options: RehearseOptions } {
  const files: string[] = [];
  const o: { -readonly [K in keyof RehearseOptions]: RehearseOptions[K] } = { requests: 8, concurrency: 2, maxTokens: 32, startTimeout: 180, requestTimeout: 60 };
  let ttft: number | undefined;
  let itl: number | undefined;
  eachArgument(argv, (a, value) => {
    const count = (min: number, max: number) => numberOption(a.split('=')[0], value(), min, max, true);
    const name = a.split('=')[0];
    if (name === '--graph') o.graph = value();
    else if (name === '--requests') o.requests = count(1, 1_000_000);
    else if (name === '--concurrency') o.concurrency = count(1, 1024);
    else if (name === '--max-tokens') o.maxTokens = count(1, 131_072);
    else if (name === '--tokenizer') o.tokenizer = value();
    else if (name === '--dynamo-version') o.dynamoVersion = value();
    else if (name === '--python') o.python = value();
    else if (name === '--timeout') o.startTimeout = count(1, 86_400);
    else if (name === '--sla-ttft-ms') ttft = count(1, 3_600_000);
    else if (name === '--sla-itl-ms') itl = count(1, 3_600_000);
    else if (a === '--strict') o.strict = true;
    else if (a === '--hf-token-from-env') o.hfTokenFromEnv = true;
    else if (a === '--host-network') o.hostNetwork = true;
    else if (name === '--keep-logs') o.keepLogs = value();
    else if (name === '--aiperf') o.aiperf = value();
    else if (name === '--load-generator') {
      const g = value();
      if (g !== 'auto' && g !== 'aiperf' && g !== 'http') throw new UsageError(`--load-generator must be auto, aiperf or http, got ${JSON.stringify(g)}`);
      o.loadGenerator = g;
    }
    else if (SLA_ONLY.includes(name)) throw new UsageError(`${name} is an option of --sla`);
    else if (a.startsWith('-')) throw new UsageError(`unknown option ${printable(a)}`);
    else files.push(a);
  });
  if (files.length === 0) throw new UsageError('no files given');
  if ((ttft === undefined) !== (itl === undefined)) throw new UsageError('--sla-ttft-ms and --sla-itl-ms go together');
  if (o.aiperf !== undefined && o.loadGenerator === 'http') throw new UsageError('--aiperf and --load-generator http contradict each other');
  if (o.tokenizer !== undefined && o.hfTokenFromEnv) throw new UsageError('--hf-token-from-env and --tokenizer contradict each other: with a local model directory nothing is downloaded');
  if (o.hfTokenFromEnv && !process.env.HF_TOKEN && !process.env.HUGGING_FACE_HUB_TOKEN) throw new UsageError('--hf-token-from-env: HF_TOKEN is not set');
  if (ttft !== undefined && itl !== undefined) o.sla = { ttftMs: ttft, itlMs: itl };
  return { files, options: o };
}

/** Options of a plain rehearsal that an SLA rehearsal does not take (its load and network are its own). */
const NOT_WITH_SLA = ['--requests', '--concurrency', '--max-tokens', '--sla-ttft-ms', '--sla-itl-ms', '--host-network', '--strict'];
/** Options of an SLA rehearsal only. */
const SLA_ONLY = ['--crds', '--peers', '--load', '--rate', '--slowdown', '--isl', '--osl', '--max-intervals', '--planner-python'];

function parseSla(argv: readonly string[]): { files: string[]; crds: string[]; options: Omit<SlaRehearseOptions, 'crds'> } {
  const files: string[] = [];
  const crds: string[] = [];
  const o: { -readonly [K in keyof Omit<SlaRehearseOptions, 'crds'>]: SlaRehearseOptions[K] } = {
    slowdown: 1, maxIntervals: 4, startTimeout: 180, requestTimeout: 60, load: 'ramp',
  };
  eachArgument(argv, (a, value) => {
    const name = a.split('=')[0];
    const count = (min: number, max: number) => numberOption(name, value(), min, max, true);
    const decimal = (min: number, max: number) => numberOption(name, value(), min, max, false);
    if (NOT_WITH_SLA.includes(name)) throw new UsageError(`${name} is an option of a plain rehearsal; --sla sends its own load in its own network`);
    if (a === '--sla') return;
    if (name === '--graph') o.graph = value();
    else if (name === '--crds') crds.push(value());
    else if (name === '--peers') o.peersDir = value();
    else if (name === '--tokenizer') o.tokenizer = value();
    else if (name === '--dynamo-version') o.dynamoVersion = value();
    else if (name === '--python') o.python = value();
    else if (name === '--planner-python') o.plannerPython = value();
    else if (name === '--timeout') o.startTimeout = count(1, 86_400);
    else if (name === '--isl') o.isl = count(1, 131_072);
    else if (name === '--osl') o.osl = count(1, 131_072);
    else if (name === '--max-intervals') o.maxIntervals = count(1, 100);
    else if (name === '--rate') o.rate = decimal(0.01, 1000);
    else if (name === '--slowdown') o.slowdown = decimal(1, 1000);
    else if (name === '--load') {
      const l = value();
      if (l !== 'ramp' && l !== 'steady') throw new UsageError(`--load must be ramp or steady, got ${JSON.stringify(printable(l))}`);
      o.load = l;
    } else if (name === '--load-generator') {
      const g = value();
      if (g !== 'auto' && g !== 'aiperf' && g !== 'http') throw new UsageError(`--load-generator must be auto, aiperf or http, got ${JSON.stringify(printable(g))}`);
      o.loadGenerator = g;
    } else if (name === '--aiperf') o.aiperf = value();
    else if (a === '--hf-token-from-env') o.hfTokenFromEnv = true;
    else if (name === '--keep-logs') o.keepLogs = value();
    else if (a.startsWith('-')) throw new UsageError(`unknown option ${printable(a)}`);
    else files.push(a);
  });
  if (files.length === 0) throw new UsageError('no files given');
  if (crds.length === 0) throw new UsageError("--sla needs Dynamo's CRDs: --crds <file|dir> (the DynamoGraphDeployment and scaling adapter CRDs of its chart)");
  if (o.tokenizer !== undefined && o.hfTokenFromEnv) throw new UsageError('--hf-token-from-env and --tokenizer contradict each other: with a local model directory nothing is downloaded');
  if (o.hfTokenFromEnv && !process.env.HF_TOKEN && !process.env.HUGGING_FACE_HUB_TOKEN) throw new UsageError('--hf-token-from-env: HF_TOKEN is not set');
  if (o.aiperf !== undefined && o.loadGenerator === 'http') throw new UsageError('--aiperf and --load-generator http contradict each other');
  return { files, crds, options: o };
}

/** Stops on the first SIGINT or SIGTERM (the promise's processes and directory); a second one exits at once. */
function withSignals<T>(io: CliIo, run: (signal: AbortSignal) => Promise<T>, exitOf: (r: T) => number): Promise<number> {
  const controller = new AbortController();
  let caught: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (caught) process.exit(128 + SIGNAL_NUMBERS[caught]);
    caught = signal;
    io.stderr(`dynamo-constructs rehearse: ${signal}: stopping (again to stop at once)\n`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const done = () => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
  return run(controller.signal).then(
    (r) => {
      done();
      return caught ? 128 + SIGNAL_NUMBERS[caught] : exitOf(r);
    },
    (e: unknown) => {
      done();
      if (caught) return 128 + SIGNAL_NUMBERS[caught];
      if (!(e instanceof RehearsalError)) throw e;
      io.stderr(`dynamo-constructs rehearse: ${e.message}\n`);
      return 1;
    },
  );
}

function runSla(argv: readonly string[], io: CliIo): number | Promise<number> {
  let parsed: ReturnType<typeof parseSla>;
  let sources: LintSource[];
  let crds: LintSource[];
  try {
    parsed = parseSla(argv);
    sources = readSources(parsed.files, io);
    crds = readSources(parsed.crds, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`dynamo-constructs rehearse: ${printable(e.message)}\n\n${REHEARSE_USAGE}`);
      return 2;
    }
    throw e;
  }
  return withSignals(io, (signal) => rehearseSla(sources, { ...parsed.options, crds, signal }, io), (r) => (r.verdict ? 0 : 1));
}

export function runRehearse(argv: readonly string[], io: CliIo): number | Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout(REHEARSE_USAGE);
    return 0;
  }
  if (argv.includes('--sla')) return runSla(argv, io);
  let parsed: { files: string[]; options: RehearseOptions };
  let sources: LintSource[];
  try {
    parsed = parseRehearse(argv);
    sources = readSources(parsed.files, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`dynamo-constructs rehearse: ${printable(e.message)}\n\n${REHEARSE_USAGE}`);
      return 2;
    }
    throw e;
  }
  // the first SIGINT or SIGTERM stops the rehearsal (its processes, its directory); a second one exits at once, and the
  // process keeper, whose input then closes, kills every process with SIGKILL and removes the directory
  return withSignals(io, (signal) => rehearse(sources, { ...parsed.options, signal }, io), (r) => (r.failed === 0 ? 0 : 1));
}
