/**
 * `npm run test:sla`: `dynamo-constructs rehearse --sla` for real. The planned-disaggregated example
 * (Dynamo 1.6.1) goes into a private kube-apiserver with Dynamo's CRDs from ../shared; the real
 * prometheus-operator renders its PodMonitors and PrometheusRule for a real Prometheus; the real
 * 1.6.1 planner scales it while the rehearsal sends a ramp: it must scale up and back down, and
 * every dashboard panel must return data. Then the same graph with a short planner interval and
 * alert duration, at a steady load: with the engine five times slower than its profile the TTFT and
 * ITL alerts fire, within it none does. Then the example rendered for Dynamo 0.9.0 (a v1alpha1
 * graph, the 0.x monitors, the planner's flags), run by 0.9.0's own planner_sla: up under the ramp,
 * down under the cool-down's trickle, every panel on live data. Nothing may be left running. The
 * peers are built (or found) by scripts/build-peers.sh sla; the hub is out of reach, so a tiny
 * stand-in model takes the model's place. `TEST_SLA_CASES=ramp-0.9,...` runs only those cases; `TEST_SLA_LOGS=DIR` keeps each case's logs there.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App, Chart, Testing } from 'cdk8s';
import { EXAMPLES } from '../../examples';
import { Backend, DisaggregatedDeployment, Fabric, LoadPredictor, ModelCache, Router } from '../../src/cdk8s';
import { rehearsalPython } from '../../src/cli/rehearse/rehearse';
import { aiperfExecutable } from '../rehearsal/aiperf';
import { rehearseSla, SlaRehearsalResult, SlaRehearseOptions } from '../../src/cli/rehearse/sla';
import { toYaml } from '../support/manifests';

process.env.DYNAMO_CONSTRUCTS_QUIET ??= '1';
const ROOT = resolve(__dirname, '..', '..');
const CRD_DIR = resolve(ROOT, '..', 'shared', 'dynamo', 'crds-v1beta1');
/** Dynamo 0.9's chart's CRDs: the graph's, v1alpha1 only. */
const CRD_DIR_0_9 = resolve(ROOT, '..', 'shared', 'dynamo', 'crds');

/** The planned example with a 15 s planner interval and 30 s alert duration: the alert cases fit in minutes. */
function quickGraph(): string {
  const app = new App();
  const chart = new Chart(app, 'quick', { namespace: 'dynamo-workloads' });
  new DisaggregatedDeployment(chart, 'llama-70b', {
    model: 'meta-llama/Llama-3.3-70B-Instruct',
    backend: Backend.vllm(),
    hfTokenSecret: 'hf-token-secret',
    modelCache: ModelCache.fromClaim(chart, 'weights', { claimName: 'model-cache' }),
    fabric: Fabric.rdma(),
    frontend: { router: Router.kv() },
    prefill: { tensorParallelSize: 2, maxNumSeqs: 4 },
    decode: { tensorParallelSize: 4, maxNumSeqs: 512 },
    planner: { ttftMs: 300, itlMs: 30, minEndpoint: 1, maxGpuBudget: 16, adjustmentIntervalSeconds: 15, loadPredictor: LoadPredictor.kalman({ qLevel: 0.1, qTrend: 0.01, r: 1.0 }) },
    observability: { podMonitors: true, forDuration: '30s' },
  });
  return toYaml(Testing.synth(chart));
}

/**
 * The planned example as Dynamo 0.9.0 renders it (the example's props at dynamoVersion '0.9.0'), with a 30 s
 * planner interval (the monitors then scrape every 15 s): the loop in half the time of the example's 60 s.
 */
function plannedGraph09(): string {
  const app = new App();
  const chart = new Chart(app, 'planned-09', { namespace: 'dynamo-workloads' });
  new DisaggregatedDeployment(chart, 'llama-70b', {
    model: 'meta-llama/Llama-3.3-70B-Instruct',
    backend: Backend.vllm(),
    dynamoVersion: '0.9.0',
    hfTokenSecret: 'hf-token-secret',
    modelCache: ModelCache.fromClaim(chart, 'weights', { claimName: 'model-cache' }),
    fabric: Fabric.rdma(),
    frontend: { router: Router.kv() },
    prefill: { tensorParallelSize: 2, maxNumSeqs: 4 },
    decode: { tensorParallelSize: 4, maxNumSeqs: 512 },
    planner: { ttftMs: 300, itlMs: 30, minEndpoint: 1, maxGpuBudget: 16, adjustmentIntervalSeconds: 30, loadPredictor: LoadPredictor.kalman({ qLevel: 0.1, qTrend: 0.01, r: 1.0 }) },
    observability: { podMonitors: true },
  });
  return toYaml(Testing.synth(chart));
}

/** Processes a rehearsal starts (none may outlive it): its peers by their executables, not a build writing one. */
function leftRunning(): string[] {
  const r = spawnSync('pgrep', ['-fa', 'dynamo\\.(frontend|mocker|planner)|^[^ ]*real-k8s/bin/(etcd|kube-apiserver|prometheus|prometheus-operator)( |$)|aiperf profile|/venv-[^ /]+/bin/nats-server '], { encoding: 'utf8' });
  return (r.stdout ?? '').split('\n').filter((l) => l.trim() !== '');
}

async function main(): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), 'sla-test-'));
  let failures = 0;
  const fail = (line: string) => {
    failures++;
    process.stdout.write(`FAIL ${line}\n`);
  };
  const summary: string[] = [];
  try {
    const built = spawnSync('bash', [join(ROOT, 'scripts', 'build-peers.sh'), 'sla'], { stdio: 'inherit' });
    if (built.status !== 0) throw new Error(`scripts/build-peers.sh sla failed (exit ${built.status})`);
    let crdFiles: string[];
    try {
      crdFiles = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml'));
    } catch {
      throw new Error(`Dynamo's v1beta1 CRDs are not at ${CRD_DIR}; the suite reads them from ../shared`);
    }
    const crds = crdFiles.map((f) => ({ file: join(CRD_DIR, f), text: readFileSync(join(CRD_DIR, f), 'utf8') }));
    // 0.9: the graph CRD of its chart; ../shared holds no 0.9 scaling adapter CRD, so the 1.x one stands in (it serves
    // v1alpha1 with the same fields and scale subresource, without a conversion webhook)
    const graphCrd09 = join(CRD_DIR_0_9, 'nvidia.com_dynamographdeployments.yaml');
    const adapterCrd = join(CRD_DIR, 'nvidia.com_dynamographdeploymentscalingadapters.yaml');
    const crds09 = [graphCrd09, adapterCrd].map((file) => ({ file, text: readFileSync(file, 'utf8') }));
    const only = (process.env.TEST_SLA_CASES ?? '').split(',').filter((x) => x !== '');
    const wanted = (name: string) => only.length === 0 || only.includes(name);
    const say = (line: string) => process.stderr.write(`rehearse --sla: ${line}\n`);
    const tokenizer = join(work, 'tiny-model');
    const made = spawnSync(rehearsalPython('1.6.1', {}, say), [join(ROOT, 'scripts', 'make-tiny-model.py'), tokenizer], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`make-tiny-model.py failed: ${made.stderr}`);
    const aiperf = aiperfExecutable(say);
    const before = leftRunning();
    if (before.length > 0) throw new Error(`rehearsal processes are running already; stop them first (the suite checks that none is left): ${before.join('; ')}`);

    const example = join(work, 'planned-disaggregated.yaml');
    writeFileSync(example, toYaml(Testing.synth(new EXAMPLES['planned-disaggregated'](Testing.app(), 'planned-disaggregated'))));
    const quick = join(work, 'quick.yaml');
    writeFileSync(quick, quickGraph());
    const planned09 = join(work, 'planned-disaggregated-0.9.yaml');
    writeFileSync(planned09, plannedGraph09());
    const run = async (name: string, file: string, o: Partial<SlaRehearseOptions>): Promise<SlaRehearsalResult | undefined> => {
      if (!wanted(name)) return undefined;
      process.stdout.write(`\n== ${name}\n`);
      const started = Date.now();
      try {
        const r = await rehearseSla([{ file, text: readFileSync(file, 'utf8') }], { crds, tokenizer, isl: 1000, osl: 100, slowdown: 1, maxIntervals: 4, startTimeout: 180, requestTimeout: 60, load: 'ramp', loadGenerator: 'aiperf', aiperf, keepLogs: join(process.env.TEST_SLA_LOGS ?? work, `logs-${name}`), ...o }, {
          stdout: (t) => process.stdout.write(t),
          stderr: (t) => process.stderr.write(t),
        });
        const left = leftRunning();
        if (left.length > 0) fail(`${name}: processes left running: ${left.join('; ')}`);
        if (!r.loadGenerator.startsWith('aiperf ')) fail(`${name}: the requests were sent by ${r.loadGenerator}, not AIPerf`);
        summary.push(`${name}: ${r.verdictText} (${Math.round((Date.now() - started) / 1000)} s, ${r.pids.length} processes, ${left.length} left, load by ${r.loadGenerator})`);
        return r;
      } catch (e) {
        fail(`${name}: ${(e as Error).message}`);
        return undefined;
      }
    };

    // the loop: up under the ramp, down after it; every panel on live data
    const checkLoop = (name: string, loop: SlaRehearsalResult | undefined) => {
      if (!loop) return;
      if (!loop.scaledUp || !loop.scaledDown || !loop.verdict) fail(`${name}: ${loop.verdictText}`);
      const empty = loop.panels.filter((p) => p.series === 0 && !p.notSimulated);
      for (const p of empty) fail(`${name}: the panel ${p.dashboard} / ${p.panel} returned nothing (${p.metrics.join(', ')})`);
      const planner = loop.panels.filter((p) => p.dashboard.startsWith('Dynamo planner'));
      if (planner.length === 0 || planner.some((p) => p.series === 0)) fail(`${name}: the planner dashboard's queries did not all read the running planner's metrics`);
      // the KV cache gauges are the only panels a mocker may leave empty
      const unsimulated = loop.panels.filter((p) => p.notSimulated).flatMap((p) => p.metrics);
      if (unsimulated.some((m) => !/cache/.test(m))) fail(`${name}: panels called not simulated read ${unsimulated.join(', ')}`);
    };
    checkLoop('ramp', await run('ramp', example, { load: 'ramp', maxIntervals: 4 }));
    // the alerts: slower than the SLA, they fire; within it, none
    const slow = await run('alerts-slow', quick, { load: 'steady', slowdown: 5, maxIntervals: 7 });
    if (slow) {
      for (const alert of ['DynamoTTFTAboveSLA', 'DynamoITLAboveSLA']) {
        if (!slow.alerts.some((a) => a.name === alert && a.state === 'firing')) fail(`alerts-slow: ${alert} is not firing (alerts: ${JSON.stringify(slow.alerts)})`);
      }
      if (slow.verdict) fail('alerts-slow: the verdict held with the engine five times slower than its SLA');
    }
    const fast = await run('alerts-fast', quick, { load: 'steady', slowdown: 1, maxIntervals: 4 });
    if (fast) {
      const sla = fast.alerts.filter((a) => fast.alertRules.includes(a.name));
      if (sla.length > 0) fail(`alerts-fast: SLA alerts within the SLA: ${JSON.stringify(sla)}`);
      if (!fast.verdict) fail(`alerts-fast: ${fast.verdictText}`);
    }
    // Dynamo 0.9.0: its planner_sla with the Planner service's flags, a v1alpha1 graph, NATS; down under a trickle
    const loop09 = await run('ramp-0.9', planned09, { load: 'ramp', maxIntervals: 4, crds: crds09 });
    checkLoop('ramp-0.9', loop09);
    if (loop09?.scaledUp && !loop09.timeline.some((r) => r.phase === 'cool-down' && r.offered > 0)) fail('ramp-0.9: the cool-down sent no trickle, under which alone 0.9.0 scales down');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write('\n');
  for (const s of summary) process.stdout.write(`${s}\n`);
  process.stdout.write(`${failures} failure${failures === 1 ? '' : 's'}\n`);
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`test:sla: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 2;
  },
);
