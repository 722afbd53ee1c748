import { createHash } from 'crypto';
import { ApiObject, App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { DisaggregatedDeployment, ModelCache } from 'dynamo-constructs/cdk8s';
import { CLAIM_NAME, finalObjects, GRAPH_NAME, MODEL_CACHE, modelOptions, namespaceOf, peakRssMiB } from './fleet';

/**
 * One measurement, in a fresh process: `node cdk8s.js <library|floor> <N>`
 * synthesizes the fleet into one chart and prints `{ ms, rssMiB, digest }`
 * (`digest` hashes the YAML, so the runner can check every mode emitted the same).
 * The floor emits the library's final objects as plain ApiObjects (cdk8s alone);
 * `structure` emits them inside the library's tree of constructs, left empty.
 */
const [mode, count] = process.argv.slice(2);
const n = Number(count);
// the final objects, computed before the clock starts in every mode (the floors emit them; memory stays comparable)
const floor = Array.from({ length: n }, (_, i) => finalObjects(i));

const start = process.hrtime.bigint();
const app = new App();
const chart = new Chart(app, 'fleet');
for (let i = 0; i < n; i++) {
  if (mode === 'library') {
    const namespace = namespaceOf(i);
    const modelCache = new ModelCache(chart, `cache-${i}`, { name: CLAIM_NAME, namespace, ...MODEL_CACHE });
    new DisaggregatedDeployment(chart, `llm-${i}`, { name: GRAPH_NAME, namespace, modelCache, ...modelOptions() });
  } else if (mode === 'structure') {
    // the library's construct tree, with empty constructs: what the structure alone costs
    const claim = new ApiObject(new Construct(chart, `cache-${i}`), 'Resource', floor[i][0]);
    const graph = new Construct(new Construct(chart, `llm-${i}`), 'Graph');
    new ApiObject(graph, 'Resource', floor[i][1]).addDependency(claim);
    for (const service of ['Frontend', 'VllmPrefillWorker', 'VllmDecodeWorker']) new Construct(graph, service);
  } else {
    floor[i].forEach((o, j) => new ApiObject(chart, `o-${i}-${j}`, o));
  }
}
const yaml = app.synthYaml();
const ms = Number(process.hrtime.bigint() - start) / 1e6;
// after the clock: what was emitted, so the runner can check every mode emitted the same
const digest = createHash('sha256').update(yaml).digest('hex');
process.stdout.write(`${JSON.stringify({ ms, rssMiB: peakRssMiB(), digest })}\n`);
