import * as fs from 'fs';
import { setMaxListeners } from 'events';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { indexObjects, manifestModel } from '../../core/internal';
import { LintFinding, parseDocuments } from '../lint/lint';
import {
  chat,
  completeCards,
  copyModelFiles,
  describeEnding,
  fetchFromHub,
  findAiperf,
  fmt,
  fromUser,
  get,
  processEnv,
  knownRelease,
  LOCALE,
  placeInHubCache,
  rehearsalPython,
  STAND_IN_TOKENIZER,
  RehearsalInterrupted,
  RehearseIo,
  Target,
  modelSource,
  userCache,
  versionOf,
} from './rehearse';
import { isHubId, planRehearsal, PlannedProcess, RehearsalError } from './plan';
import { Dropped } from './policy';
import { isolationAvailable, Sandbox, SandboxError, Started } from './sandbox';
import { findPeers, PeerBinary, startLocalCluster, API_PORT } from './sla-cluster';
import { promGet, promQuery, startMonitoring, StackPrometheus } from './sla-monitoring';
import {
  dynamoNamespaceOf,
  GraphComponent,
  graphComponents,
  graphStatus,
  isWorker,
  metricsPortOf,
  podObject,
  replicasPatch,
  runningStatus,
  scalingAdapter,
  servedModelPatch,
  specReplicas,
  withProjectedStatus,
} from './sla-pods';
import { writeRehearsalProfile } from './sla-profile';
import { plannerSettingsOf, plannerVenv, slaLoopOf } from './sla-release';
import { KubeClient } from '../kube-client';
import { LintSource } from '../sources';
import { printable } from '../text';

/**
 * `dynamo-constructs rehearse --sla`: a planned graph's whole control loop on this machine. The
 * manifests' objects go into a real kube-apiserver; the real prometheus-operator renders their
 * PodMonitors and PrometheusRules for a real Prometheus; every pod is a process on its own
 * loopback address, registered as a Pod object the way a kubelet reports it; the release's real
 * planner reads that Prometheus and scales the graph through its scaling adapters; the rehearsal
 * plays the operator's part for replicas (mocker workers started and stopped to match) and sends
 * a load ramp above one replica's capacity and back down. It prints a timeline per planner
 * interval and a verdict, and checks every dashboard panel and alert expression on live data.
 */

export interface SlaRehearseOptions {
  readonly graph?: string;
  readonly tokenizer?: string;
  readonly hfTokenFromEnv?: boolean;
  /** The Python (3.10) of the frontend's and mocker's virtualenv. */
  readonly python?: string;
  /** The Python (3.11) of the planner's virtualenv. */
  readonly plannerPython?: string;
  readonly dynamoVersion?: string;
  /** Virtualenvs. @default $DYNAMO_CONSTRUCTS_CACHE/rehearse */
  readonly cacheDir?: string;
  /** Where etcd, kube-apiserver, prometheus-operator and prometheus are (`bin/`), with the operator's CRDs (`crds/prometheus-operator/`). @default $DYNAMO_CONSTRUCTS_CACHE/real-k8s */
  readonly peersDir?: string;
  /** The CRDs of Dynamo's release (DynamoGraphDeployment, DynamoGraphDeploymentScalingAdapter), as files read by the caller. */
  readonly crds: readonly LintSource[];
  /** Tokens per prompt. @default - the SLA request's in the files (its workload's `isl`), else 1000 */
  readonly isl?: number;
  /** Tokens per answer. @default - the SLA request's in the files, else 100 */
  readonly osl?: number;
  /**
   * The load: `ramp` sends about three replicas' worth of requests until the planner scales up,
   * then none until it scales back down (the verdict: both happened); `steady` sends a constant
   * rate for `maxIntervals` intervals (the verdict: no SLA alert pending or firing).
   * @default 'ramp'
   */
  readonly load: 'ramp' | 'steady';
  /** Requests per second: the ramp's peak, or the steady rate. @default - 3x (ramp) or 0.3x (steady) one replica's capacity, from the rehearsal's engine profile */
  readonly rate?: number;
  /** Mocker timing multiplier: above 1 the simulated engine is that many times slower than its profile (the alert rehearsal). @default 1 */
  readonly slowdown: number;
  /** Planner intervals each phase may take before the verdict fails. @default 4 */
  readonly maxIntervals: number;
  /** Seconds the graph may take to serve. @default 180 */
  readonly startTimeout: number;
  /** Seconds one request may take. @default 60 */
  readonly requestTimeout: number;
  /**
   * What sends the requests: `aiperf` (NVIDIA AIPerf, an error where it does not run; one AIPerf run
   * per phase, at the phase's rate), `http` (open-loop streaming HTTP from the rehearsal), or `auto`:
   * AIPerf where it is found, plain HTTP otherwise.
   * @default 'auto'
   */
  readonly loadGenerator?: 'auto' | 'aiperf' | 'http';
  /** The aiperf executable. @default - `aiperf` on PATH */
  readonly aiperf?: string;
  /** Copy every process's log (and the Prometheus configuration) here. */
  readonly keepLogs?: string;
  readonly signal?: AbortSignal;
}

/** One planner interval of the timeline. */
export interface IntervalRow {
  readonly at: number;
  readonly phase: 'ramp' | 'cool-down' | 'steady';
  /** Requests per second sent. */
  readonly offered: number;
  /** Requests per second the frontend counted (Prometheus). */
  readonly observed?: number;
  readonly ttftMs?: number;
  readonly itlMs?: number;
  /** Replicas per worker component, as the graph's spec says at the end of the interval. */
  readonly replicas: Readonly<Record<string, number>>;
  readonly events: readonly string[];
}

export interface PanelCheck {
  readonly dashboard: string;
  readonly panel: string;
  readonly expr: string;
  /** The metrics it reads. */
  readonly metrics: readonly string[];
  readonly series: number;
  readonly error?: string;
  /** Empty because it reads only engine gauges the mocker does not export (the release's KV cache metrics). */
  readonly notSimulated: boolean;
}

export interface SlaRehearsalResult {
  readonly timeline: readonly IntervalRow[];
  readonly scaledUp: boolean;
  readonly scaledDown: boolean;
  readonly verdict: boolean;
  readonly verdictText: string;
  readonly panels: readonly PanelCheck[];
  /** Alerts Prometheus reported at the end, by name and state. */
  readonly alerts: readonly { readonly name: string; readonly state: string }[];
  readonly alertRules: readonly string[];
  readonly pids: readonly number[];
  readonly dropped: readonly Dropped[];
  readonly intervalSeconds: number;
  /** What sent the requests: `aiperf <version>` or `http`. */
  readonly loadGenerator: string;
}

export { plannerSettings, plannerFlags } from './sla-release';

/** Kinds of the manifests an SLA rehearsal puts in its API server; anything else is listed and left out. */
const APPLIED_KINDS = new Set(['DynamoGraphDeployment', 'ConfigMap', 'PodMonitor', 'ServiceMonitor', 'PrometheusRule', 'ServiceAccount', 'Service']);

/** The stand-in for DynamoWorkerMetadata, whose CRD Dynamo's CRD files here do not hold: any content kept. */
const WORKER_METADATA_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'dynamoworkermetadatas.nvidia.com' },
  spec: {
    group: 'nvidia.com',
    names: { kind: 'DynamoWorkerMetadata', listKind: 'DynamoWorkerMetadataList', plural: 'dynamoworkermetadatas', singular: 'dynamoworkermetadata' },
    scope: 'Namespaced',
    versions: [{ name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

/** Addresses inside the rehearsal's network: one per pod, from 127.0.1.1 (127.0.0.1 is the control plane's). */
const podAddress = (n: number) => `127.0.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;

/** Grafana's variables in our dashboards' queries, as a dashboard showing the graph sets them. */
function grafanaQuery(expr: string, namespace: string): string {
  return expr
    .replace(/\$__rate_interval/g, '1m')
    .replace(/\$__interval/g, '30s')
    .replace(/\$__range/g, '5m')
    .replace(/\$\{?namespace\}?/g, namespace)
    .replace(/\$\{?model\}?/g, '.*');
}

/** The metric names a PromQL expression reads (identifiers followed by a selector or a range). */
export function metricNames(expr: string): string[] {
  const functions = new Set(['sum', 'max', 'min', 'avg', 'rate', 'increase', 'irate', 'histogram_quantile', 'vector', 'by', 'on', 'or', 'and', 'unless', 'without', 'count', 'label_values', 'clamp_min', 'clamp_max', 'abs', 'time']);
  const names = new Set<string>();
  for (const m of expr.replace(/"(?:[^"\\]|\\.)*"/g, '""').matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{|\[)/g)) {
    if (!functions.has(m[1])) names.add(m[1].replace(/_(bucket|sum|count)$/, ''));
  }
  return [...names];
}

/**
 * An alert rule's measure: its expression left of the last top-level comparison with a threshold
 * (`histogram_quantile(...) > 0.3` reads `histogram_quantile(...)`), which returns series whether or
 * not the alert fires; an expression without one is returned whole.
 */
export function alertMeasure(expr: string): string {
  let depth = 0;
  let quote: string | undefined;
  let cut = -1;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') depth--;
    else if (depth === 0 && /[<>=!]/.test(c)) {
      const op = /^(==|!=|>=|<=|>|<)/.exec(expr.slice(i))?.[0];
      if (op && /^\s*(bool\s+)?-?[0-9.]+(e[+-]?[0-9]+)?\s*$/i.test(expr.slice(i + op.length))) cut = i;
      if (op) i += op.length - 1;
    }
  }
  return cut < 0 ? expr : expr.slice(0, cut).trim();
}

/** The ISL and OSL of a DynamoGraphDeploymentRequest among the files (v1beta1 `workload`, v1alpha1 `profilingConfig.config.sla`). */
export function requestWorkload(docs: readonly Record<string, any>[]): { isl?: number; osl?: number } {
  const request = docs.find((d) => d.kind === 'DynamoGraphDeploymentRequest');
  const from = request?.spec?.workload ?? request?.spec?.profilingConfig?.config?.sla;
  const count = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && v <= 131_072 ? v : undefined);
  return { isl: count(from?.isl), osl: count(from?.osl) };
}

/** The prompt tokens the frontend counts for a text (a one-token, non-streaming request), or undefined. */
function promptTokens(socketPath: string, model: string, text: string, timeoutSeconds: number): Promise<number | undefined> {
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: text }], max_tokens: 1, stream: false });
  return new Promise((resolve) => {
    const req = http.request(
      { socketPath, path: '/v1/chat/completions', method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }, timeout: timeoutSeconds * 1000 },
      (res) => {
        let text_ = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text_ = (text_ + c).slice(0, 100_000)));
        res.on('end', () => {
          try {
            const n = (JSON.parse(text_) as { usage?: { prompt_tokens?: unknown } }).usage?.prompt_tokens;
            resolve(typeof n === 'number' ? n : undefined);
          } catch {
            resolve(undefined);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end(body);
  });
}

/** Processes per worker pool at most, whatever the manifest or the planner asks (each is a Python process). */
const MAX_REPLICAS = 8;

/** Dashboards in the manifests are read, not trusted: at most this many of their queries run. */
const MAX_PANEL_QUERIES = 500;

/** The planner's system server (health), on its own address. */
const PLANNER_HEALTH_PORT = 9090;

/** Where worker pods serve their metrics when each needs a port of its own (off Prometheus's 9090 and the planner's 9085). */
const WORKER_SYSTEM_PORTS = 9100;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function rehearseSla(sources: readonly LintSource[], o: SlaRehearseOptions, io: RehearseIo): Promise<SlaRehearsalResult> {
  const say = (line: string) => io.stderr(`rehearse --sla: ${line}\n`);
  const out = (line: string) => io.stdout(`${line}\n`);
  const problems: LintFinding[] = [];
  const docs = parseDocuments(sources, problems).map((d) => d.object as Record<string, any>);
  if (problems.length > 0) {
    throw new RehearsalError(`the files do not read as Kubernetes manifests:\n${problems.map((p) => `  ${printable(p.file)}: ${printable(p.path)}: ${printable(p.message)}`).join('\n')}`);
  }
  const graphs = docs.filter((d) => d.kind === 'DynamoGraphDeployment' && (o.graph === undefined || d.metadata?.name === o.graph));
  if (graphs.length === 0) {
    const requests = docs.filter((d) => d.kind === 'DynamoGraphDeploymentRequest').length;
    throw new RehearsalError(
      requests > 0
        ? 'the files hold a DynamoGraphDeploymentRequest and no graph: its graph is generated in the cluster by the profiler; rehearse the graph the request would run (an SlaPlannedDeployment with rehearsal: true synthesizes one)'
        : o.graph ? `no DynamoGraphDeployment named ${printable(o.graph)} in the files` : 'no DynamoGraphDeployment in the files',
    );
  }
  if (graphs.length > 1) throw new RehearsalError(`the files hold ${graphs.length} graphs (${graphs.map((g) => printable(String(g.metadata?.name))).join(', ')}); choose one with --graph`);
  const dgd = graphs[0];
  // the sequence lengths the graph is planned for: the SLA request's, where the files hold one
  const planned = requestWorkload(docs);
  const isl = o.isl ?? planned.isl ?? 1000;
  const osl = o.osl ?? planned.osl ?? 100;
  const version = versionOf(dgd, o.dynamoVersion);
  const release = knownRelease(version);
  const loop = slaLoopOf(version);
  if (dgd.apiVersion !== loop.apiVersion) throw new RehearsalError(`the graph is ${printable(String(dgd.apiVersion))}; an SLA rehearsal of Dynamo ${version} takes ${loop.apiVersion}, as its operator stores it`);
  const graphName = String(dgd.metadata?.name);
  const namespace = typeof dgd.metadata?.namespace === 'string' ? dgd.metadata.namespace : 'default';
  const model = manifestModel(dgd, indexObjects(docs), { release });
  const planner = model.services.find((s) => s.kind === 'planner');
  if (!planner) throw new RehearsalError(`${printable(graphName)} has no Planner: --sla rehearses a planner's control loop (add planner: { ttftMs, itlMs } to the deployment, or rehearse without --sla)`);
  const settings = plannerSettingsOf(loop, planner);
  const { ttftMs, itlMs, intervalSeconds } = settings;
  const components = graphComponents(dgd);
  const workers = components.filter(isWorker);
  const frontend = components.find((c) => c.type === 'frontend');
  if (!frontend || workers.length === 0) throw new RehearsalError('an SLA rehearsal needs a graph with a frontend and workers');
  const plannerComponent = components.find((c) => c.name === planner.name)!;
  const dynamoNamespace = dynamoNamespaceOf(namespace, graphName);

  const applied = docs.filter((d) => APPLIED_KINDS.has(String(d.kind)));
  const left = docs.filter((d) => !APPLIED_KINDS.has(String(d.kind)) && d.kind !== 'DynamoGraphDeploymentRequest');
  if (left.length > 0) say(`not put in the API server (no controller of the rehearsal acts on them): ${[...new Set(left.map((d) => printable(String(d.kind))))].join(', ')}`);
  const monitors = applied.filter((d) => d.kind === 'PodMonitor');
  const rules = applied.filter((d) => d.kind === 'PrometheusRule');
  if (monitors.length === 0) throw new RehearsalError('the files hold no PodMonitor: the planner would read no metrics (observability: { podMonitors: true } adds the graph\'s, or rehearse with the platform\'s)');
  const release_ = rules.map((r) => r.metadata?.labels?.release).find((x): x is string => typeof x === 'string') ?? 'prometheus';
  const stack: StackPrometheus = { release: release_, namespace: 'monitoring' };

  // the peers and the CRDs, before anything is started
  const peersDir = o.peersDir ?? path.join(userCache(), 'real-k8s');
  const bins = findPeers(path.join(peersDir, 'bin'), 'Build them from the Go module proxy with `bash node_modules/dynamo-constructs/scripts/build-peers.sh sla` (about 30 minutes the first time), or point --peers at a directory that has them in bin/');
  const crdDocs: Record<string, any>[] = [];
  const crdProblems: LintFinding[] = [];
  const operatorCrds = path.join(peersDir, 'crds', 'prometheus-operator');
  const operatorCrdFiles = fs.existsSync(operatorCrds) ? fs.readdirSync(operatorCrds).filter((f) => f.endsWith('.yaml')).sort() : [];
  const crdSources: LintSource[] = [...o.crds, ...operatorCrdFiles.map((f) => ({ file: path.join(operatorCrds, f), text: fs.readFileSync(path.join(operatorCrds, f), 'utf8') }))];
  for (const d of parseDocuments(crdSources, crdProblems)) if ((d.object as any)?.kind === 'CustomResourceDefinition') crdDocs.push(d.object as Record<string, any>);
  if (crdProblems.length > 0) throw new RehearsalError(`the CRD files do not read: ${crdProblems.map((p) => `${printable(p.file)}: ${printable(p.message)}`).join('; ')}`);
  const crdKinds = new Set(crdDocs.map((c) => String(c.spec?.names?.kind)));
  const missingCrds = ['DynamoGraphDeployment', 'DynamoGraphDeploymentScalingAdapter', 'PodMonitor', 'PrometheusRule', 'Prometheus', 'Probe'].filter((k) => !crdKinds.has(k));
  if (missingCrds.length > 0) {
    throw new RehearsalError(`an SLA rehearsal needs the CRDs of ${missingCrds.join(', ')}: give Dynamo's with --crds (its chart's crds/templates folder) and build the prometheus-operator's into ${operatorCrds} (scripts/build-peers.sh sla)`);
  }
  // the planner reads its graph and scales its adapters in the release's API version, which the CRDs given must serve as stored (no conversion webhook runs here)
  const wanted = loop.apiVersion.split('/')[1];
  const unserved = crdDocs
    .filter((c) => ['DynamoGraphDeployment', 'DynamoGraphDeploymentScalingAdapter'].includes(String(c.spec?.names?.kind)))
    .filter((c) => {
      const versions = (Array.isArray(c.spec?.versions) ? c.spec.versions : []) as any[];
      const storage = versions.find((v) => v?.storage)?.name;
      return !versions.some((v) => v?.name === wanted && v?.served) || (storage !== wanted && c.spec?.conversion?.strategy === 'Webhook');
    });
  if (unserved.length > 0) {
    throw new RehearsalError(`Dynamo ${version}'s planner reads ${loop.apiVersion}, which the CRD of ${unserved.map((c) => `${printable(String(c.spec.names.kind))} (stores ${printable(String((c.spec.versions as any[]).find((v) => v?.storage)?.name))}${c.spec?.conversion?.strategy === 'Webhook' ? ', converts through the operator\'s webhook' : ''})`).join(' and ')} given does not serve as stored; give the CRDs of Dynamo ${version}'s chart with --crds`);
  }
  if (!crdKinds.has('DynamoWorkerMetadata')) crdDocs.push(WORKER_METADATA_CRD);
  const dgdCrd = crdDocs.findIndex((c) => c.spec?.names?.kind === 'DynamoGraphDeployment');
  const projected = withProjectedStatus(crdDocs[dgdCrd]);
  crdDocs[dgdCrd] = projected.crd;
  const isolation = isolationAvailable();
  if (!isolation.ok) throw new RehearsalError(`an SLA rehearsal runs in private namespaces (its pods each have a loopback address of their own), which this machine does not allow: ${printable(isolation.why)}`);

  if (!crdKinds.has('DynamoWorkerMetadata')) say('the CRD files hold no DynamoWorkerMetadata: a stand-in CRD that keeps any content takes its place');
  if (projected.added.length > 0) say(`the DynamoGraphDeployment CRD given does not declare ${projected.added.join(' and ')} in its component status, which Dynamo ${version}'s operator reports and its planner reads: added for the rehearsal`);

  // the model's files, the virtualenvs
  const run = fs.mkdtempSync(path.join(os.tmpdir(), 'dynamo-rehearse-'));
  const modelDir = path.join(run, 'model');
  let sandbox: Sandbox | undefined;
  let client: KubeClient | undefined;
  let died: Started | undefined;
  let stopping = false;
  const logOf = (name: string) => path.join(run, 'logs', `${name}.log`);
  const lastLines = (name: string) => {
    const log = logOf(name);
    if (!fs.existsSync(log)) return '    (no output)';
    return printable(fs.readFileSync(log, 'utf8').slice(-8000).replace(/\x1b\[[0-9;]*m/g, '')).trimEnd().split('\n').slice(-12).map((l) => `    ${l}`).join('\n');
  };
  const check = () => {
    if (o.signal?.aborted) throw new RehearsalInterrupted('interrupted');
    if (died) throw new RehearsalError(`${died.name} ${describeEnding(died)}; its last lines:\n${lastLines(died.name)}`);
  };
  const expectedEnd = new Set<string>();
  try {
    const worker = model.services.find((s) => s.kind === 'worker');
    const modelFlag = worker?.launch.flags.get('--model') ?? worker?.launch.flags.get('--model-path');
    const modelId = typeof modelFlag === 'string' ? modelFlag : undefined;
    // the model's files first: offline without them, nothing is installed or started
    const hubModel = modelSource(o.tokenizer, modelId, modelDir, say);
    const python = rehearsalPython(version, { python: o.python, cacheDir: o.cacheDir }, say);
    const plannerPython = plannerVenv(version, loop.planner.venv, o, say);
    const aiperf = findAiperf(o);
    if (hubModel !== undefined) copyModelFiles(await fetchFromHub(python, hubModel, o, say), modelDir);
    const home = path.join(run, 'hf');
    if (modelId !== undefined && isHubId(modelId)) placeInHubCache(home, modelId, modelDir);
    // AIPerf counts its prompts' tokens with the model's tokenizer, offline, from the private cache
    if (aiperf) placeInHubCache(home, STAND_IN_TOKENIZER, modelDir);
    for (const d of ['logs', 'home', 'tmp', 'discovery', 'serviceaccount', 'cluster', 'monitoring', 'profile', 'aiperf', 'nats']) fs.mkdirSync(path.join(run, d), { recursive: true });

    // the simulated engine: one profile for the mocker's timing and the planner's model of it
    const profile = writeRehearsalProfile(path.join(run, 'profile'), { ttftMs, itlMs, isl, osl, throughput: loop.planner.profileThroughput });
    // the mocker reads the profile as the lookup tables of its own format, converted here once with
    // the planner's regression (its converter needs the planner's packages, which the mocker's Python lacks)
    const mockerProfile = path.join(run, 'profile', 'mocker-perf-data.npz');
    const converted = spawnSync(plannerPython, ['-I', '-c', 'import sys\nfrom dynamo.mocker.utils.planner_profiler_perf_data_converter import convert_profile_results_to_npz\nconvert_profile_results_to_npz(sys.argv[1], sys.argv[2])', profile.dir, mockerProfile], {
      encoding: 'utf8',
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: path.join(run, 'home') },
      timeout: 300_000,
    });
    if (converted.status !== 0) throw new RehearsalError(`the rehearsal's engine profile could not be converted for the mocker:\n${printable((converted.stderr ?? '').split('\n').slice(-6).join('\n'))}`);
    say(`the rehearsal's engine: ${profile.describe}; one replica serves about ${profile.replicaCapacity.toFixed(1)} requests/s within the SLA`);
    const engineOnly = new Set(Object.values(release.metrics.kvCache ?? {}));

    const base = processEnv(python, run, home);
    sandbox = await Sandbox.start({ python, runDir: run, isolated: true, env: { PATH: base.PATH, ...fromUser(LOCALE) }, podFiles: path.join(run, 'serviceaccount') });
    const box = sandbox;
    box.onEnd = (s) => {
      if (!died && !stopping && !expectedEnd.has(s.name)) died = s;
    };
    const start = (name: string, argv: readonly string[], env: Readonly<Record<string, string>> = {}) => {
      check();
      return box.spawn(name, argv, { ...base, ...env }, run, logOf(name));
    };

    // the API server, its CRDs and the manifests' objects
    say(`starting etcd and kube-apiserver, then the prometheus-operator and Prometheus`);
    const cluster = await startLocalCluster(box, bins as Record<PeerBinary, string>, path.join(run, 'cluster'), (n, a) => start(n, a), check, o.startTimeout * 1000);
    const kube = cluster.client;
    client = kube;
    fs.copyFileSync(cluster.caFile, path.join(run, 'serviceaccount', 'ca.crt'));
    fs.writeFileSync(path.join(run, 'serviceaccount', 'namespace'), namespace);
    fs.writeFileSync(path.join(run, 'serviceaccount', 'token'), cluster.token);
    const create = async (obj: Record<string, any>, what: string) => {
      const r = await kube.apply(obj as any, { dryRun: false });
      if (r.status !== 200 && r.status !== 201) throw new RehearsalError(`the API server refused ${what}: ${printable(String(r.body?.message ?? r.status))}`);
      return r.body;
    };
    for (const crd of crdDocs) await create(crd, `the CRD ${printable(String(crd.metadata?.name))}`);
    for (const kind of [...crdDocs.map((c) => ({ group: c.spec.group, version: (c.spec.versions as any[]).find((v) => v.storage)?.name, kind: c.spec.names.kind }))]) {
      for (;;) {
        check();
        kube.rediscover();
        if (await kube.resourceOf(`${kind.group}/${kind.version}`, kind.kind)) break;
        await pause(200);
      }
    }
    const namespaces = new Set([namespace, stack.namespace, ...applied.map((d) => d.metadata?.namespace).filter((n): n is string => typeof n === 'string')]);
    for (const ns of namespaces) {
      await create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, `the namespace ${printable(ns)}`);
      await create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } }, `the default ServiceAccount of ${printable(ns)}`);
    }
    for (const d of applied) await create({ ...d, metadata: { ...d.metadata, namespace: d.metadata?.namespace ?? namespace } }, `${printable(String(d.kind))} ${printable(String(d.metadata?.name))}`);
    // an adapter for each component that has one (v1beta1: `scalingAdapter` present; v1alpha1: unless disabled)
    for (const c of components.filter((x) => x.scalingAdapter)) await create(scalingAdapter(graphName, namespace, c, loop.apiVersion), `the scaling adapter of ${c.name}`);
    if (!components.some((c) => c.scalingAdapter)) say('no component has a scalingAdapter: the planner falls back to patching the graph\'s replicas');

    const monitoring = await startMonitoring(box, kube, bins, { dir: path.join(run, 'monitoring'), kubeconfig: cluster.kubeconfig, stack, timeoutMs: o.startTimeout * 1000 }, (n, a, e) => start(n, a, e ?? {}), check);

    // 0.x: the runtime's NATS (JetStream), on the control plane's address
    const natsUrl = release.localRun.nats ? 'nats://127.0.0.1:4222' : undefined;
    if (natsUrl) await start('nats', [path.join(path.dirname(python), 'nats-server'), '-js', '-a', '127.0.0.1', '-p', '4222', '-sd', path.join(run, 'nats')]);

    // the processes' command lines, from the manifest (as `rehearse` runs them), one address per pod
    const plan = planRehearsal(model, {
      release,
      host: '127.0.0.1',
      httpPort: 8000,
      bootstrapPorts: () => 7100,
      discoveryDir: path.join(run, 'discovery'),
      modelDir,
      maxReplicas: 1,
      natsUrl,
    });
    for (const d of plan.dropped.filter((x) => !x.inert)) say(`left out: ${printable(d.service)} ${printable(d.what)}: ${d.why}`);
    const speed = (1 / o.slowdown).toString();
    const commandOf = (c: GraphComponent, addr: string, n: number): { argv: string[]; env: Record<string, string>; metricsPort?: number } => {
      const planned: PlannedProcess | undefined = c.type === 'frontend' ? plan.frontend : plan.workers.find((w) => w.name === c.name || w.name.startsWith(`${c.name}-`));
      if (!planned) throw new RehearsalError(`${c.name}: no process planned for it`);
      const args = planned.args.map((a) => (a === '127.0.0.1' ? addr : a));
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(planned.env)) env[k] = v === '127.0.0.1' ? addr : v;
      env.DYN_NAMESPACE = dynamoNamespace;
      if (c.type === 'frontend') return { argv: [python, '-I', '-m', 'dynamo.frontend', ...args], env };
      const b = args.indexOf('--bootstrap-ports');
      if (b >= 0) args[b + 1] = String(7100 + n);
      // the simulated engine's timing: the rehearsal's profile, at --slowdown
      const metricsPort = loop.workerSystem.portPerPod ? WORKER_SYSTEM_PORTS + n : metricsPortOf(c.type).port;
      return {
        argv: [python, '-I', '-m', 'dynamo.mocker', ...args, '--planner-profile-data', mockerProfile, '--speedup-ratio', speed],
        env: { ...env, ...loop.workerSystem.env(addr, metricsPort) },
        metricsPort: loop.workerSystem.portPerPod ? metricsPort : undefined,
      };
    };

    // pods: a process on its own address, a Pod object with the operator's labels and the kubelet's status
    interface Pod { name: string; component: string; addr: string; proc: string; ready: boolean }
    const pods: Pod[] = [];
    let podCount = 0;
    let processCount = 0;
    const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const startPod = async (c: GraphComponent, argv: string[], env: Record<string, string>, addr: string, metricsPort?: number): Promise<Pod> => {
      const replica = pods.filter((p) => p.component === c.name).length + podCount;
      const obj = podObject(dgd, c, replica, dynamoNamespace, metricsPort);
      const body = await create(obj, `the pod of ${c.name}`);
      const proc = `${c.name.toLowerCase()}-${++processCount}`;
      await start(proc, argv, env);
      const pod: Pod = { name: body.metadata.name, component: c.name, addr, proc, ready: false };
      pods.push(pod);
      podCount++;
      return pod;
    };
    const setReady = async (pod: Pod, ready: boolean) => {
      const r = await kube.request('PATCH', `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod.name)}/status`, JSON.stringify(runningStatus(pod.addr, ready, now())), 'application/merge-patch+json');
      if (r.status !== 200) throw new RehearsalError(`the pod status of ${pod.name} was refused: ${printable(String(r.body?.message ?? r.status))}`);
      pod.ready = ready;
    };
    let addrCount = 0;
    const startReplica = async (c: GraphComponent) => {
      const addr = podAddress(addrCount++);
      const { argv, env, metricsPort } = commandOf(c, addr, addrCount);
      const pod = await startPod(c, argv, env, addr, metricsPort);
      await setReady(pod, true);
      return pod;
    };
    const stopReplica = async (pod: Pod) => {
      expectedEnd.add(pod.proc);
      box.signal(pod.proc, 'TERM');
      await kube.request('DELETE', `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod.name)}?gracePeriodSeconds=0`);
      pods.splice(pods.indexOf(pod), 1);
    };

    // workers first (the frontend reads their model cards), then the frontend, then the planner
    const deadline = Date.now() + o.startTimeout * 1000;
    for (const w of workers) {
      if (w.replicas > MAX_REPLICAS) say(`${w.name}: ${w.replicas} replicas asked for; a rehearsal runs at most ${MAX_REPLICAS} per pool`);
      for (let i = 0; i < Math.min(MAX_REPLICAS, Math.max(1, w.replicas)); i++) await startReplica(w);
    }
    const cards = path.join(run, 'discovery', release.localRun.modelCards);
    while (completeCards(cards) < pods.length) {
      check();
      if (Date.now() > deadline) throw new RehearsalError(`the workers registered no model in ${o.startTimeout} s; the last lines of ${pods[0].proc}:\n${lastLines(pods[0].proc)}`);
      await pause(200);
    }
    const frontendPod = await startReplica(frontend);
    const socketPath = path.join(run, 'frontend.sock');
    await box.forward(socketPath, 8000, frontendPod.addr);
    const target: Target = { socketPath };
    let served: string | undefined;
    while (served === undefined) {
      check();
      if (Date.now() > deadline) throw new RehearsalError(`the frontend listed no model in ${o.startTimeout} s; its last lines:\n${lastLines(frontendPod.proc)}`);
      const r = await get(target, '/v1/models', 2000).catch(() => undefined);
      try {
        served = r?.status === 200 ? (JSON.parse(r.body) as { data?: { id?: unknown }[] }).data?.map((m) => m.id).find((id): id is string => typeof id === 'string') : undefined;
      } catch {
        served = undefined;
      }
      if (served === undefined) await pause(500);
    }

    // the name the workers serve the stand-in under (0.x: its path; a name like a hub id would send 0.9's frontend to the hub),
    // written where the release's planner reads it: the status (the reconciler), or the workers' arguments in the graph
    if (loop.planner.modelName === 'worker-args') {
      const patch = servedModelPatch(dgd, served);
      if (patch) {
        const r = await kube.request('PATCH', `/apis/${loop.apiVersion}/namespaces/${encodeURIComponent(namespace)}/dynamographdeployments/${encodeURIComponent(graphName)}`, patch, 'application/merge-patch+json');
        if (r.status !== 200) throw new RehearsalError(`the API server refused the served model name in the graph: ${printable(String(r.body?.message ?? r.status))}`);
        say(`the workers serve the model as ${printable(served)}: the graph in the API server names it (--served-model-name), where Dynamo ${version}'s planner reads the model its metrics are filtered by`);
      }
    }

    // the planner, with the graph's settings (1.x: its PlannerConfig; 0.9: its flags): only where it reaches Prometheus and its profile changes
    const plannerAddr = podAddress(addrCount++);
    const configFile = path.join(run, 'planner-config.json');
    if (settings.dropped.length > 0) say(`left out of the planner's ${settings.droppedWhy}: ${settings.dropped.map(printable).join(', ')}`);
    if (settings.replaced.length > 0) say(`set by the rehearsal, not as the manifest has them: the planner's ${settings.replaced.map(printable).join(', ')}`);
    const plannerArgv = settings.argv({ prometheusUrl: 'http://127.0.0.1:9090', profileDir: profile.dir, configFile });
    if (plannerArgv.configText !== undefined) fs.writeFileSync(configFile, plannerArgv.configText);
    const plannerMetricsPort = metricsPortOf('planner').port;
    const plannerPod = await startPod(plannerComponent, [plannerPython, '-I', '-m', loop.planner.module, ...plannerArgv.args], {
      PATH: `${path.dirname(plannerPython)}:/usr/local/bin:/usr/bin:/bin`,
      DYN_NAMESPACE: dynamoNamespace,
      DYN_PARENT_DGD_K8S_NAME: graphName,
      POD_NAMESPACE: namespace,
      PLANNER_PROMETHEUS_PORT: String(plannerMetricsPort),
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: String(API_PORT),
      ...loop.planner.env(path.join(run, 'discovery'), natsUrl),
      DYN_TCP_RPC_HOST: plannerAddr,
      DYN_HTTP_RPC_HOST: plannerAddr,
      DYN_EVENT_PLANE_HOST: plannerAddr,
      // its health turns ready once it has read the graph and its engine models: the loop starts then
      ...(loop.planner.readiness === 'health' ? { DYN_SYSTEM_HOST: plannerAddr, DYN_SYSTEM_PORT: String(PLANNER_HEALTH_PORT) } : {}),
    }, plannerAddr);

    // the operator's part: scaling adapters → the graph's replicas → pods, and the status it reports
    let reconciling = true;
    const events: string[] = [];
    const replicasNow = new Map<string, number>(workers.map((w) => [w.name, Math.max(1, w.replicas)]));
    const api = `/apis/${loop.apiVersion}/namespaces/${encodeURIComponent(namespace)}`;
    const dgdPath = `${api}/dynamographdeployments/${encodeURIComponent(graphName)}`;
    const reconcile = async () => {
      const adapters = await kube.request('GET', `${api}/dynamographdeploymentscalingadapters`);
      let graph = (await kube.request('GET', dgdPath)).body;
      for (const a of (adapters.body?.items ?? []) as any[]) {
        if (typeof a.spec?.replicas !== 'number') continue;
        const patch = replicasPatch(graph, String(a.spec?.dgdRef?.serviceName), a.spec.replicas);
        // the adapter owns the component's replicas: the operator writes them into the graph, also where the spec has none
        if (patch && specReplicas(graph, a.spec.dgdRef.serviceName) !== a.spec.replicas) {
          const r = await kube.request('PATCH', dgdPath, patch.body, patch.contentType);
          if (r.status === 200) graph = r.body;
        }
      }
      const counts = new Map<string, { desired: number; ready: number }>();
      for (const c of components) {
        const desired = specReplicas(graph, c.name) ?? 1;
        if (workers.includes(c)) {
          const mine = pods.filter((p) => p.component === c.name);
          const before = replicasNow.get(c.name) ?? mine.length;
          // what a planner asks beyond the rehearsal's bound is not started, and the status says so (ready < desired)
          for (let i = mine.length; i < Math.min(desired, MAX_REPLICAS); i++) await startReplica(c);
          for (const p of mine.slice(desired).reverse()) await stopReplica(p);
          if (before !== desired) {
            events.push(`${c.name} ${before}→${desired}${desired > MAX_REPLICAS ? ` (${MAX_REPLICAS} started: the rehearsal's bound)` : ''}`);
            replicasNow.set(c.name, desired);
          }
        }
        counts.set(c.name, { desired, ready: pods.filter((p) => p.component === c.name && p.ready).length });
      }
      const st = await kube.request('PATCH', `${dgdPath}/status`, JSON.stringify(graphStatus(graph?.metadata?.generation ?? 1, components, counts, graphName, dynamoNamespace, now(), served, loop.apiVersion)), 'application/merge-patch+json');
      if (st.status !== 200) throw new RehearsalError(`the API server refused the graph's status: ${printable(String(st.body?.message ?? st.status))}`);
      for (const a of (adapters.body?.items ?? []) as any[]) {
        const n = counts.get(a.spec?.dgdRef?.serviceName);
        if (!n) continue;
        await kube.request(
          'PATCH',
          `${api}/dynamographdeploymentscalingadapters/${encodeURIComponent(a.metadata.name)}/status`,
          JSON.stringify({ status: { replicas: n.desired, selector: `nvidia.com/dynamo-graph-deployment-name=${graphName},nvidia.com/dynamo-component=${a.spec.dgdRef.serviceName}` } }),
          'application/merge-patch+json',
        );
      }
    };
    let reconcileError: unknown;
    const reconciler = (async () => {
      while (reconciling) {
        try {
          await reconcile();
        } catch (e) {
          reconcileError = e;
          return;
        }
        await pause(500);
      }
    })();
    // ready: its health (1.x), or its own gauges on its metrics port (0.9, whose health stays 503)
    const plannerSocket = path.join(run, 'planner.sock');
    const byMetrics = loop.planner.readiness === 'metrics';
    await box.forward(plannerSocket, byMetrics ? plannerMetricsPort : PLANNER_HEALTH_PORT, plannerAddr);
    const plannerBudget = 120 + loop.planner.startDelaySeconds;
    for (;;) {
      check();
      if (reconcileError) throw reconcileError;
      if (Date.now() > deadline + plannerBudget * 1000) throw new RehearsalError(`the planner was not ready in ${o.startTimeout + plannerBudget} s; its last lines:\n${lastLines(plannerPod.proc)}`);
      const h = await get({ socketPath: plannerSocket }, byMetrics ? '/metrics' : '/health', 2000).catch(() => undefined);
      if (h?.status === 200 && (!byMetrics || h.body.includes(`${release.metrics.planner.decodeWorkers} `))) break;
      await pause(500);
    }
    await setReady(plannerPod, true);
    say(`the planner is ready; the load starts`);

    // load: open-loop requests at the phase's rate, each prompt about isl tokens long (as the model's
    // tokenizer counts them, with its chat template: measured once on a probe)
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
    let wordsPerPrompt = isl;
    if (aiperf) {
      say(`the requests are sent by AIPerf ${aiperf.version} (synthetic prompts of ${isl} tokens, ${osl} out)`);
    } else {
      const probeWords = 200;
      const probeTokens = await promptTokens(socketPath, served, Array.from({ length: probeWords }, (_, i) => words[i % words.length]).join(' '), o.requestTimeout);
      const perWord = probeTokens !== undefined && probeTokens > 0 ? probeTokens / probeWords : 1;
      wordsPerPrompt = Math.max(1, Math.round(isl / perWord));
      say(`the requests are sent over plain HTTP: prompts of ${wordsPerPrompt} words, about ${isl} tokens as the model's tokenizer counts them${probeTokens === undefined ? ' (the probe got no token count: one word taken as one token)' : ''}`);
    }
    let rate = 0;
    let sent = 0;
    let failed = 0;
    const failures = new Map<string, number>();
    const inflight = new Set<Promise<unknown>>();
    const loadAbort = new AbortController();
    // every request in flight listens for the end of the load
    setMaxListeners(0, loadAbort.signal);
    // requests the frontend has seen (finished or in flight), from its own metrics endpoint
    const requestsSeen = async (): Promise<number> => {
      const r = await get(target, '/metrics', 5000).catch(() => undefined);
      if (r?.status !== 200) return 0;
      let n = 0;
      for (const line of r.body.split('\n')) {
        const m = /^dynamo_frontend_(?:requests_total|inflight_requests)\{[^}]*\} ([0-9.e+]+)$/.exec(line);
        if (m) n += Number(m[1]);
      }
      return n;
    };
    // with AIPerf, one run per phase at the phase's rate, stopped when the phase ends
    let aiperfRun: string | undefined;
    let aiperfRuns = 0;
    const setRate = async (r: number) => {
      if (!aiperf) {
        rate = r;
        return;
      }
      rate = r;
      if (aiperfRun) {
        expectedEnd.add(aiperfRun);
        // AIPerf finishes its benchmark on SIGTERM: the phase is over, its requests stop now
        box.signal(aiperfRun, 'KILL');
        aiperfRun = undefined;
      }
      if (r <= 0) return;
      const name = `aiperf-${++aiperfRuns}`;
      await start(name, [
        aiperf.bin, 'profile', '--model', served!, '--url', `http://${frontendPod.addr}:8000`, '--endpoint-type', 'chat', '--streaming',
        '--tokenizer', STAND_IN_TOKENIZER, '--request-rate', String(r), '--request-rate-mode', 'constant', '--benchmark-duration', String((o.maxIntervals + 2) * intervalSeconds),
        '--isl', String(isl), '--osl', String(osl), '--request-timeout-seconds', String(o.requestTimeout),
        // the mocker answers with random token ids: the server's counts are the true ones
        '--use-server-token-count', '--random-seed', String(7 + aiperfRuns), '--ui', 'none', '--artifact-dir', path.join(run, 'aiperf', name),
      ]);
      aiperfRun = name;
      // AIPerf takes a while to start (its workers, the tokenizer): the phase begins with its first request
      const before = await requestsSeen();
      const began = Date.now();
      while ((await requestsSeen()) <= before) {
        check();
        if (Date.now() - began > 180_000) throw new RehearsalError(`AIPerf sent no request in 180 s; its last lines:\n${lastLines(name)}`);
        await pause(1000);
      }
      say(`${name}: AIPerf sends ${r} requests/s (its first ${Math.round((Date.now() - began) / 1000)} s after it started)`);
    };
    const loader = (async () => {
      let next = Date.now();
      while (!loadAbort.signal.aborted && !aiperf) {
        if (rate <= 0) {
          await pause(200);
          next = Date.now();
          continue;
        }
        next += 1000 / rate;
        const wait = next - Date.now();
        if (wait > 0) await pause(wait);
        const n = sent++;
        // a different word sequence per request: no prompt shares a cached prefix with another
        let seed = (n + 1) * 2654435761;
        const prompt = Array.from({ length: wordsPerPrompt }, () => {
          seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
          return words[(seed >>> 16) % words.length];
        }).join(' ');
        const p = chat(target, served!, prompt, { maxTokens: osl, requestTimeout: o.requestTimeout }, loadAbort.signal).then((r) => {
          if (r.ok || loadAbort.signal.aborted) return;
          failed++;
          const why = `${r.status || 'no answer'}: ${(r.error ?? '').slice(0, 200)}`;
          failures.set(why, (failures.get(why) ?? 0) + 1);
        });
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
      }
    })();

    const w = `${intervalSeconds}s`;
    // the frontend's series as Prometheus holds them, whatever labels the scrape gave them (the graph has one frontend)
    const avgMs = async (metric: string) => {
      const r = await promQuery(monitoring.socketPath, `sum(increase(${metric}_sum[${w}])) / sum(increase(${metric}_count[${w}]))`).catch(() => []);
      const v = r[0]?.value;
      return v !== undefined && Number.isFinite(v) ? v * 1000 : undefined;
    };
    const timeline: IntervalRow[] = [];
    const initial = new Map(replicasNow);
    const started = Date.now();
    const sampleInterval = async (phase: IntervalRow['phase']) => {
      const until = Date.now() + intervalSeconds * 1000;
      events.length = 0;
      while (Date.now() < until) {
        check();
        if (reconcileError) throw reconcileError;
        await pause(250);
      }
      const observed = (await promQuery(monitoring.socketPath, `sum(rate(dynamo_frontend_requests_total[${w}]))`).catch(() => []))[0]?.value;
      const row: IntervalRow = {
        at: Math.round((Date.now() - started) / 1000),
        phase,
        offered: rate,
        observed: observed !== undefined && Number.isFinite(observed) ? observed : undefined,
        ttftMs: await avgMs('dynamo_frontend_time_to_first_token_seconds'),
        itlMs: await avgMs('dynamo_frontend_inter_token_latency_seconds'),
        replicas: Object.fromEntries(replicasNow),
        events: [...events],
      };
      timeline.push(row);
      const reps = Object.entries(row.replicas).map(([k, v]) => `${k}=${v}`).join(' ');
      const num = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(2));
      out(`${String(row.at).padStart(5)} s  ${phase.padEnd(9)}  sent ${num(row.offered)}/s  counted ${num(row.observed)}/s  TTFT ${fmt(row.ttftMs)} (SLA ${ttftMs} ms)  ITL ${fmt(row.itlMs)} (SLA ${itlMs} ms)  ${reps}${row.events.length ? `  scaled: ${row.events.join(', ')}` : ''}`);
      return row;
    };
    const above = () => [...replicasNow].some(([k, v]) => v > (initial.get(k) ?? 1));
    const backDown = () => [...replicasNow].every(([k, v]) => v <= (initial.get(k) ?? 1));

    // how many series a query returns on the live data, or why Prometheus refused it
    const seriesOf = async (expr: string): Promise<{ series: number; error?: string }> => {
      try {
        return { series: (await promQuery(monitoring.socketPath, expr)).length };
      } catch (e) {
        return { series: 0, error: (e as Error).message };
      }
    };
    // every dashboard panel's query, on the live data: each must return series
    const scraped = new Set<string>(((await promGet(monitoring.socketPath, '/api/v1/label/__name__/values').catch(() => undefined))?.body?.data ?? []) as string[]);
    const checkPanels = async (): Promise<PanelCheck[]> => {
      const found = ((await promGet(monitoring.socketPath, '/api/v1/label/__name__/values').catch(() => undefined))?.body?.data ?? []) as string[];
      for (const n of found) scraped.add(n);
      const checks: PanelCheck[] = [];
      for (const cm of applied.filter((d) => d.kind === 'ConfigMap' && d.metadata?.labels?.grafana_dashboard !== undefined)) {
        for (const text of Object.values((cm.data ?? {}) as Record<string, string>)) {
          let dashboard: any;
          try {
            dashboard = JSON.parse(text);
          } catch {
            continue;
          }
          for (const panel of (Array.isArray(dashboard?.panels) ? dashboard.panels : []) as any[]) {
            for (const t of (Array.isArray(panel?.targets) ? panel.targets : []) as any[]) {
              if (typeof t?.expr !== 'string') continue;
              if (checks.length >= MAX_PANEL_QUERIES) return checks;
              const expr = grafanaQuery(t.expr, namespace);
              const { series, error } = await seriesOf(expr);
              const metrics = metricNames(expr);
              // the mocker simulates the engine's timing, not its KV cache gauges: those panels are said, not failed
              const notSimulated = series === 0 && error === undefined && metrics.length > 0 && metrics.every((m) => engineOnly.has(m) && !scraped.has(m));
              checks.push({ dashboard: String(dashboard.title), panel: String(panel.title), expr, metrics, series, error, notSimulated });
            }
          }
        }
      }
      return checks;
    };
    const alertRules: string[] = [];
    const alertExprs: { alert: string; expr: string }[] = [];
    for (const r of rules) {
      for (const g of (Array.isArray(r.spec?.groups) ? r.spec.groups : []) as any[]) {
        for (const rule of (Array.isArray(g?.rules) ? g.rules : []) as any[]) {
          if (typeof rule?.alert !== 'string') continue;
          alertRules.push(rule.alert);
          if (typeof rule.expr === 'string' && alertExprs.length < MAX_PANEL_QUERIES) alertExprs.push({ alert: rule.alert, expr: rule.expr });
        }
      }
    }
    // each alert's measure (its expression left of the threshold) must return series, as a panel must
    const checkAlertExprs = async (): Promise<PanelCheck[]> => {
      const checks: PanelCheck[] = [];
      for (const a of alertExprs) {
        const expr = alertMeasure(a.expr);
        const { series, error } = await seriesOf(expr);
        checks.push({ dashboard: 'PrometheusRule', panel: a.alert, expr, metrics: metricNames(expr), series, error, notSimulated: false });
      }
      return checks;
    };
    const readAlerts = async () => {
      const r = await promGet(monitoring.socketPath, '/api/v1/alerts');
      return ((r.body?.data?.alerts ?? []) as any[]).map((a) => ({ name: String(a.labels?.alertname), state: String(a.state) }));
    };

    // why a planner that keeps only its Dynamo namespace's frontend series would see none: said in the verdict
    let blind: string | undefined;
    const blindness = async (): Promise<string | undefined> => {
      const all = await promQuery(monitoring.socketPath, 'count by (dynamo_namespace) (dynamo_frontend_requests_total)').catch(() => []);
      if (all.length === 0 || all.some((x) => x.metric.dynamo_namespace === dynamoNamespace)) return undefined;
      const seen = all.map((x) => (x.metric.dynamo_namespace === undefined ? 'none' : printable(x.metric.dynamo_namespace)));
      return `the frontend's series in Prometheus carry dynamo_namespace ${seen.join(', ')}, not ${dynamoNamespace}: the planner keeps only series of its Dynamo namespace, so it saw no request`;
    };
    let scaledUp = false;
    let scaledDown = false;
    let panels: PanelCheck[] = [];
    let alerts: { name: string; state: string }[] = [];
    let verdict: boolean;
    let verdictText: string;
    if (o.load === 'ramp') {
      const peak = o.rate ?? Math.round(profile.replicaCapacity * 3 * 10) / 10;
      // a planner that skips idle intervals (0.9.0) scales down only while some requests flow: a trickle
      const trickle = loop.planner.idleTrickle !== undefined ? Math.round(profile.replicaCapacity * loop.planner.idleTrickle * 100) / 100 : 0;
      out(`timeline: one line per planner interval (${intervalSeconds} s); the ramp sends ${peak} requests/s (about 3 replicas' worth) of ${isl} tokens in, ${osl} out, then ${trickle > 0 ? `${trickle} requests/s` : 'none'}`);
      await setRate(peak);
      for (let i = 0; i < o.maxIntervals && !scaledUp; i++) scaledUp = above() || (await sampleInterval('ramp'), above());
      // one more interval under load when it scaled: the new replicas serve, the panels read them
      if (scaledUp) await sampleInterval('ramp');
      panels = [...(await checkPanels()), ...(await checkAlertExprs())];
      alerts = await readAlerts();
      if (!scaledUp) blind = await blindness();
      if (trickle > 0) out(`cool-down: ${trickle} requests/s (Dynamo ${version}'s planner skips an interval without requests: it does not scale down at zero traffic)`);
      await setRate(trickle);
      if (scaledUp) for (let i = 0; i < o.maxIntervals && !scaledDown; i++) scaledDown = (await sampleInterval('cool-down'), backDown());
      const after = trickle > 0 ? `${trickle} requests/s` : 'idle';
      verdict = scaledUp && scaledDown;
      verdictText = !scaledUp
        ? `the planner did not scale up within ${o.maxIntervals} intervals of ${peak} requests/s${blind ? ` (${blind})` : ''}`
        : !scaledDown
          ? `the planner scaled up, but not back down within ${o.maxIntervals} ${after} intervals`
          : `the planner scaled up under load and back down after${trickle > 0 ? ` (at ${after})` : ''}, in ${timeline.length} intervals of ${intervalSeconds} s`;
    } else {
      const steady = o.rate ?? Math.round(profile.replicaCapacity * 0.3 * 100) / 100;
      out(`timeline: one line per planner interval (${intervalSeconds} s); a steady ${steady} requests/s of ${isl} tokens in, ${osl} out${o.slowdown !== 1 ? `, the engine ${o.slowdown} times slower than its profile` : ''}`);
      await setRate(steady);
      for (let i = 0; i < o.maxIntervals; i++) await sampleInterval('steady');
      panels = [...(await checkPanels()), ...(await checkAlertExprs())];
      alerts = await readAlerts();
      const breached = alerts.filter((a) => alertRules.includes(a.name));
      verdict = breached.length === 0;
      verdictText = verdict
        ? `the SLA held: no SLA alert pending or firing after ${o.maxIntervals} intervals`
        : `SLA alerts ${breached.map((a) => `${a.name} ${a.state}`).join(', ')}`;
    }
    if (o.keepLogs) {
      fs.mkdirSync(o.keepLogs, { recursive: true });
      fs.writeFileSync(path.join(o.keepLogs, 'metric-names.txt'), `${[...scraped].sort().join('\n')}\n`);
      // the frontend's own exposition, labels as it exports them (before any scrape relabeling)
      const exported = await get(target, '/metrics', 5000).catch(() => undefined);
      if (exported?.status === 200) fs.writeFileSync(path.join(o.keepLogs, 'frontend-metrics.txt'), exported.body);
    }
    await setRate(0);
    loadAbort.abort();
    reconciling = false;
    await reconciler;
    await loader;
    const empty = panels.filter((p) => p.series === 0 && !p.notSimulated);
    const unsimulated = panels.filter((p) => p.notSimulated);
    if (empty.length > 0) {
      verdict = false;
      verdictText += `; ${empty.length} dashboard quer${empty.length === 1 ? 'y' : 'ies'} returned nothing`;
    }
    // what the frontend counted, whoever sent the requests
    const byStatus = await promQuery(monitoring.socketPath, 'sum by (status) (dynamo_frontend_requests_total)').catch(() => []);
    const counted = byStatus.reduce((n, x) => n + x.value, 0);
    const unsuccessful = byStatus.filter((x) => x.metric.status !== 'success').reduce((n, x) => n + x.value, 0);
    out(`verdict: ${verdict ? 'held' : 'failed'}: ${verdictText}; the frontend counted ${Math.round(counted)} requests, ${Math.round(unsuccessful)} not successful${aiperf ? ` (sent by AIPerf ${aiperf.version})` : ` (sent over plain HTTP: ${sent}, ${failed} failed)`}`);
    for (const [why, n] of [...failures].sort((a, b) => b[1] - a[1]).slice(0, 5)) out(`  failed ${n}x: ${printable(why)}`);
    out(`dashboards and alert rules: ${panels.length - empty.length - unsimulated.length}/${panels.length} queries returned series${unsimulated.length ? `, ${unsimulated.length} read engine gauges the mocker does not export` : ''}`);
    for (const p of empty) out(`  empty: ${printable(p.dashboard)} / ${printable(p.panel)} (${p.metrics.map(printable).join(', ')}): ${printable(p.expr)}${p.error ? ` (${printable(p.error)})` : ''}`);
    for (const p of unsimulated) out(`  not simulated: ${printable(p.dashboard)} / ${printable(p.panel)} (${p.metrics.map(printable).join(', ')})`);
    out(`alerts: ${alerts.length === 0 ? 'none pending or firing' : alerts.map((a) => `${printable(a.name)} ${printable(a.state)}`).join(', ')}`);
    return { timeline, scaledUp, scaledDown, verdict, verdictText, panels, alerts, alertRules, pids: box.processes.map((s) => s.pid), dropped: plan.dropped, intervalSeconds, loadGenerator: aiperf ? `aiperf ${aiperf.version}` : 'http' };
  } catch (e) {
    if (e instanceof SandboxError) throw new RehearsalError(e.message);
    throw e;
  } finally {
    stopping = true;
    client?.close();
    if (sandbox) {
      await sandbox.stop(10);
      if (o.keepLogs) {
        try {
          fs.mkdirSync(o.keepLogs, { recursive: true });
          for (const s of sandbox.processes) if (fs.existsSync(logOf(s.name))) fs.copyFileSync(logOf(s.name), path.join(o.keepLogs, `${s.name}.log`));
          for (const f of ['prometheus.yaml', 'prometheus.generated.yaml']) {
            const file = path.join(run, 'monitoring', f);
            if (fs.existsSync(file)) fs.copyFileSync(file, path.join(o.keepLogs, f));
          }
        } catch (e) {
          say(`--keep-logs ${printable(o.keepLogs)}: ${printable((e as Error).message)}`);
        }
      }
      await sandbox.close();
    }
    fs.rmSync(run, { recursive: true, force: true });
  }
}
