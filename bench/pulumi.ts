import { createHash } from 'crypto';
import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { DisaggregatedDeployment, ModelCache } from 'dynamo-constructs/pulumi';
import { CLAIM_NAME, finalObjects, GRAPH_NAME, MODEL_CACHE, modelOptions, namespaceOf, peakRssMiB, stableJson } from './fleet';

/**
 * One measurement, in a fresh process: `node pulumi.js <library|floor|structure> <N>`
 * registers the fleet under Pulumi's mocks and prints `{ ms, rssMiB, digest }`
 * once every Kubernetes object has registered. The floor registers the
 * library's final objects as plain resources (a CustomResource per graph, a
 * PersistentVolumeClaim per claim); `structure` registers them inside the
 * library's tree of components, left empty. `digest` hashes the Kubernetes
 * objects registered, so the runner can check every mode registered the same.
 */

class Component extends pulumi.ComponentResource {
  constructor(type: string, name: string, parent?: pulumi.Resource) {
    super(`bench:index:${type}`, name, {}, { parent });
  }

  public done(): void {
    this.registerOutputs({});
  }
}

async function main(): Promise<void> {
  const [mode, count] = process.argv.slice(2);
  const n = Number(count);
  // every mode registers these objects; the floors also take them as input (computed before the clock starts)
  const objects = Array.from({ length: n }, (_, i) => finalObjects(i));
  const expected = objects.reduce((sum, o) => sum + o.length, 0);

  await pulumi.runtime.setMocks(
    { newResource: (args) => ({ id: args.custom ? `${args.name}-id` : undefined, state: args.inputs }), call: (args) => args.inputs },
    'bench',
    'bench',
    false,
  );
  const requests: any[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const monitor = pulumi.runtime.getMonitor() as any;
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req: any, callback: (err: unknown, res: unknown) => void) =>
    register(req, (err: unknown, res: unknown) => {
      callback(err, res);
      if (req.getCustom() && String(req.getType()).startsWith('kubernetes:') && requests.push(req) === expected) done();
    });

  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const [claim, graph] = objects[i] as any[];
    if (mode === 'library') {
      const namespace = namespaceOf(i);
      const modelCache = new ModelCache(`cache-${i}`, { name: CLAIM_NAME, namespace, ...MODEL_CACHE });
      new DisaggregatedDeployment(`llm-${i}`, { name: GRAPH_NAME, namespace, modelCache, ...modelOptions() });
    } else if (mode === 'structure') {
      const cache = new Component('ModelCache', `cache-${i}`);
      const deployment = new Component('DisaggregatedDeployment', `llm-${i}`);
      const dynamoGraph = new Component('DynamoGraph', `llm-${i}`, deployment);
      for (const service of ['Frontend', 'VllmPrefillWorker', 'VllmDecodeWorker']) new Component('Service', `llm-${i}-${service}`, dynamoGraph).done();
      const pvc = new k8s.core.v1.PersistentVolumeClaim(`cache-${i}`, claim, { parent: cache });
      new k8s.apiextensions.CustomResource(`llm-${i}`, graph, { parent: dynamoGraph, dependsOn: [pvc] });
      [cache, deployment, dynamoGraph].forEach((c) => c.done());
    } else {
      const pvc = new k8s.core.v1.PersistentVolumeClaim(`o-${i}-claim`, claim);
      new k8s.apiextensions.CustomResource(`o-${i}-graph`, graph, { dependsOn: [pvc] });
    }
  }
  await finished;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  // after the clock: what was registered, whatever each mode named its resources
  const registered = requests.map((r) => stableJson(pulumi.runtime.deserializeProperties(r.getObject()))).sort();
  const digest = createHash('sha256').update(registered.join('\n')).digest('hex');
  process.stdout.write(`${JSON.stringify({ ms, rssMiB: peakRssMiB(), digest })}\n`);
}

void main();
