import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { DisaggregatedDeployment, ModelCache } from 'dynamo-constructs/pulumi';
import { CLAIM_NAME, finalObjects, GRAPH_NAME, MODEL_CACHE, modelOptions, namespaceOf, peakRssMiB } from './fleet';

/**
 * One measurement, in a fresh process: `node pulumi.js <library|floor> <N>`
 * registers the fleet under Pulumi's mocks and prints `{ ms, rssMiB }` once
 * every Kubernetes object has registered. The floor registers the library's
 * final objects as plain resources (a CustomResource per graph, a
 * PersistentVolumeClaim per claim); `structure` registers them inside the
 * library's tree of components, left empty.
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
  const floor = mode !== 'library' ? Array.from({ length: n }, (_, i) => finalObjects(i)) : [];

  await pulumi.runtime.setMocks(
    { newResource: (args) => ({ id: args.custom ? `${args.name}-id` : undefined, state: args.inputs }), call: (args) => args.inputs },
    'bench',
    'bench',
    false,
  );
  let registered = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const monitor = pulumi.runtime.getMonitor() as any;
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req: any, callback: (err: unknown, res: unknown) => void) =>
    register(req, (err: unknown, res: unknown) => {
      callback(err, res);
      if (req.getCustom() && String(req.getType()).startsWith('kubernetes:') && ++registered === 2 * n) done();
    });

  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    if (mode === 'library') {
      const namespace = namespaceOf(i);
      const modelCache = new ModelCache(`cache-${i}`, { name: CLAIM_NAME, namespace, ...MODEL_CACHE });
      new DisaggregatedDeployment(`llm-${i}`, { name: GRAPH_NAME, namespace, modelCache, ...modelOptions() });
    } else if (mode === 'components') {
      const [claim, graph] = floor[i] as any[];
      const c1 = new pulumi.ComponentResource('x:index:A', `a-${i}`, {});
      const c2 = new pulumi.ComponentResource('x:index:B', `b-${i}`, {});
      const c3 = new pulumi.ComponentResource('x:index:C', `c-${i}`, {}, { parent: c2 });
      for (const k of ['f', 'p', 'd']) (new pulumi.ComponentResource('x:index:D', `${k}-${i}`, {}, { parent: c3 }) as any).registerOutputs({});
      const pvc = new k8s.core.v1.PersistentVolumeClaim(`o-${i}-claim`, claim, { parent: c1 });
      new k8s.apiextensions.CustomResource(`o-${i}-graph`, graph, { dependsOn: [pvc], parent: c3 });
      [c1, c2, c3].forEach((c: any) => c.registerOutputs({}));
    } else if (mode === 'structure') {
      // the library's resource tree, with empty components: what the structure alone costs
      const [claim, graph] = floor[i] as any[];
      const cache = new Component('ModelCache', `cache-${i}`);
      const deployment = new Component('DisaggregatedDeployment', `llm-${i}`);
      const dynamoGraph = new Component('DynamoGraph', `llm-${i}`, deployment);
      for (const service of ['Frontend', 'VllmPrefillWorker', 'VllmDecodeWorker']) new Component('Service', `llm-${i}-${service}`, dynamoGraph).done();
      const pvc = new k8s.core.v1.PersistentVolumeClaim(`cache-${i}`, claim, { parent: cache });
      new k8s.apiextensions.CustomResource(`llm-${i}`, graph, { parent: dynamoGraph, dependsOn: [pvc] });
      [cache, deployment, dynamoGraph].forEach((c) => c.done());
    } else {
      const [claim, graph] = floor[i] as any[];
      const pvc = new k8s.core.v1.PersistentVolumeClaim(`o-${i}-claim`, claim);
      new k8s.apiextensions.CustomResource(`o-${i}-graph`, graph, { dependsOn: [pvc] });
    }
  }
  await finished;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  process.stdout.write(`${JSON.stringify({ ms, rssMiB: peakRssMiB() })}\n`);
}

void main();
