import { CliIo, eachArgument, UsageError } from './args';
import { rehearse, RehearseOptions, SIGNAL_NUMBERS } from './rehearse';
import { printable } from './text';
import { RehearsalError } from './rehearse-plan';
import { LintSource, readSources } from './sources';

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

Exit status: 0 when every request succeeded, 1 when one failed or the graph did not
start, 2 on usage errors, 130 on SIGINT and 143 on SIGTERM (a second one stops at
once).
`;

function parseRehearse(argv: readonly string[]): { files: string[]; options: RehearseOptions } {
  const files: string[] = [];
  const o: { -readonly [K in keyof RehearseOptions]: RehearseOptions[K] } = { requests: 8, concurrency: 2, maxTokens: 32, startTimeout: 180, requestTimeout: 60 };
  let ttft: number | undefined;
  let itl: number | undefined;
  eachArgument(argv, (a, value) => {
    const count = (min: number, max: number) => {
      const flag = a.split('=')[0];
      const v = value();
      const n = Number(v);
      if (!/^[0-9]+$/.test(v) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(printable(v))}`);
      return n;
    };
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

export function runRehearse(argv: readonly string[], io: CliIo): number | Promise<number> {
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
      io.stderr(`dynamo-constructs rehearse: ${printable(e.message)}\n\n${REHEARSE_USAGE}`);
      return 2;
    }
    throw e;
  }
  // the first SIGINT or SIGTERM stops the rehearsal (its processes, its directory); a second one exits at once, and the
  // process keeper, whose input then closes, kills every process with SIGKILL and removes the directory
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
  return rehearse(sources, { ...parsed.options, signal: controller.signal }, io).then(
    (r) => {
      done();
      return caught ? 128 + SIGNAL_NUMBERS[caught] : r.failed === 0 ? 0 : 1;
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
