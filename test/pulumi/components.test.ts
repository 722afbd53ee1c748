import { spawnSync } from 'child_process';
import * as path from 'path';
import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import {
  AggregatedDeployment,
  Backend,
  DecodeWorker,
  DisaggregatedDeployment,
  DynamoGraph,
  DynamoValidationError,
  Fabric,
  Frontend,
  ModelCache,
  Planner,
  PrefillWorker,
  SlaPlannedDeployment,
  Worker,
} from '../../src/pulumi';
import { PulumiRecorder } from '../support/pulumi';

const recorder = new PulumiRecorder();
beforeAll(() => recorder.install());
// warnings are asserted where they matter; keep the output readable
beforeAll(() => jest.spyOn(pulumi.log, 'warn').mockImplementation(() => Promise.resolve()));
beforeEach(() => recorder.clear());

function caught(fn: () => unknown): DynamoValidationError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DynamoValidationError) return e;
    throw new Error(`expected a DynamoValidationError, got ${e}`);
  }
  throw new Error('nothing was thrown');
}

describe('component tree', () => {
  test('type tokens, parents, explicit names, dependsOn and registerOutputs', async () => {
    const cache = new ModelCache('cache', { namespace: 'ns', size: '100Gi', storageClassName: 'nfs' });
    const d = new DisaggregatedDeployment('llm', {
      namespace: 'ns',
      model: 'Qwen/Qwen3-32B',
      backend: Backend.trtllm(),
      modelCache: cache,
      fabric: Fabric.rdma(),
      prefill: {},
      decode: {},
      planner: { ttftMs: 300, itlMs: 30 },
    });
    expect(d.frontend.serviceName).toBe('Frontend');
    await recorder.settle();
    const r = (name: string, type: string) => {
      const found = recorder.registrations.filter((x) => x.name === name && x.type === type);
      expect(found).toHaveLength(1);
      return found[0];
    };

    const deployment = r('llm', 'dynamo-constructs:index:DisaggregatedDeployment');
    const graph = r('llm', 'dynamo-constructs:index:DynamoGraph');
    const frontend = r('llm-Frontend', 'dynamo-constructs:index:Frontend');
    const prefill = r('llm-prefill', 'dynamo-constructs:index:PrefillWorker');
    const decode = r('llm-decode', 'dynamo-constructs:index:DecodeWorker');
    const planner = r('llm-Planner', 'dynamo-constructs:index:Planner');
    const dgd = r('llm', 'kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment');
    const plannerConfig = r('llm-Planner-config', 'kubernetes:core/v1:ConfigMap');
    const prefillConfig = r('llm-prefill-engine-config', 'kubernetes:core/v1:ConfigMap');
    const decodeConfig = r('llm-decode-engine-config', 'kubernetes:core/v1:ConfigMap');
    const pvc = r('cache', 'kubernetes:core/v1:PersistentVolumeClaim');
    const cacheComponent = r('cache', 'dynamo-constructs:index:ModelCache');

    // every child is created with { parent: this }
    expect(graph.parent).toBe(deployment.urn);
    for (const c of [frontend, prefill, decode, planner, dgd]) expect(c.parent).toBe(graph.urn);
    expect(prefillConfig.parent).toBe(prefill.urn);
    expect(decodeConfig.parent).toBe(decode.urn);
    expect(plannerConfig.parent).toBe(planner.urn);
    expect(pvc.parent).toBe(cacheComponent.urn);

    // the graph waits for the claim it mounts and the ConfigMaps its workers and its planner mount
    expect([...dgd.dependencies].sort()).toEqual([pvc.urn, prefillConfig.urn, decodeConfig.urn, plannerConfig.urn].sort());

    // explicit names, never auto-named
    expect(dgd.inputs.metadata).toEqual({ name: 'llm', namespace: 'ns', annotations: { 'nvidia.com/grove-update-strategy': 'RollingRecreate' } });
    expect(plannerConfig.inputs.metadata).toEqual({ name: 'llm-planner-config', namespace: 'ns' });
    expect(pvc.inputs.metadata).toEqual({ name: 'cache', namespace: 'ns' });
    expect(prefillConfig.inputs.metadata).toEqual({ name: 'llm-prefill-engine', namespace: 'ns' });

    // registerOutputs on every component
    for (const c of [deployment, graph, frontend, prefill, decode, planner, cacheComponent]) {
      expect(recorder.outputsRegistered.has(c.urn)).toBe(true);
    }
  });

  test('a component\'s own dependsOn reaches the Kubernetes objects it creates', async () => {
    const ns = new k8s.core.v1.Namespace('serving', { metadata: { name: 'serving' } });
    const cache = new ModelCache('weights', { namespace: 'serving', size: '10Gi', storageClassName: 'nfs' }, { dependsOn: [ns] });
    new DisaggregatedDeployment('trt', { namespace: 'serving', model: 'm', backend: Backend.trtllm(), modelCache: cache, fabric: Fabric.rdma(), prefill: {}, decode: {} }, { dependsOn: ns });
    await recorder.settle();
    const nsUrn = recorder.registrations.find((x) => x.type === 'kubernetes:core/v1:Namespace')!.urn;
    const objects = recorder.registrations.filter((x) => x.custom && x.type !== 'kubernetes:core/v1:Namespace');
    expect(objects.map((o) => o.type).sort()).toEqual([
      'kubernetes:core/v1:ConfigMap',
      'kubernetes:core/v1:ConfigMap',
      'kubernetes:core/v1:PersistentVolumeClaim',
      'kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment',
    ]);
    for (const o of objects) expect(o.dependencies).toContain(nsUrn);
  });

  test('the namespace defaults to the provider\'s: no metadata.namespace is rendered', async () => {
    new AggregatedDeployment('agg', { model: 'm', backend: Backend.vllm(), workers: {} });
    await recorder.settle();
    expect(recorder.byName('agg-VllmWorker').type).toBe('dynamo-constructs:index:Worker');
    const dgd = recorder.registrations.find((x) => x.type === 'kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment')!;
    expect(dgd.inputs.metadata).toEqual({ name: 'agg', annotations: { 'nvidia.com/grove-update-strategy': 'RollingRecreate' } });
  });

  test('component by component, as in cdk8s', async () => {
    const graph = new DynamoGraph('g', { model: 'm', backend: Backend.vllm(), fabric: Fabric.rdma() });
    new Frontend('g-frontend', { graph, serviceName: 'Frontend' });
    new PrefillWorker('g-prefill', { graph, serviceName: 'VllmPrefillWorker' });
    new DecodeWorker('g-decode', { graph, serviceName: 'VllmDecodeWorker' });
    new Planner('g-planner', { graph, serviceName: 'Planner', ttftMs: 200, itlMs: 20 });
    await recorder.settle();
    const dgd = recorder.registrations.find((x) => x.type === 'kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment')!;
    expect(dgd.inputs.spec.components.map((c: any) => c.name)).toEqual(['Frontend', 'VllmPrefillWorker', 'VllmDecodeWorker', 'Planner']);
    expect(dgd.inputs.spec.components[3].type).toBe('planner');
  });
});

describe('validation', () => {
  test('option errors and the planner budget the graph breaks are reported together', () => {
    const e = caught(
      () =>
        new DisaggregatedDeployment('budget', {
          model: 'm',
          backend: Backend.vllm(),
          prefill: { replicas: 4 },
          decode: { replicas: 4 },
          planner: { maxGpuBudget: 2 } as any,
        }),
    );
    expect(e.issues.map((i) => i.path)).toEqual(['planner.ttftMs', 'planner.itlMs', 'planner.maxGpuBudget']);
  });

  test('a deployment fails before any resource registers', async () => {
    const e = caught(() => new DisaggregatedDeployment('bad', { model: 'm', backend: Backend.vllm(), prefill: { tensorParallelSize: 0 }, decode: {} }));
    expect(e.issues.map((i) => i.path)).toEqual(['prefill.tensorParallelSize']);
    await recorder.settle();
    expect(recorder.registrations.filter((x) => x.custom)).toEqual([]);
  });

  test('a graph built component by component that breaks a cross-component rule fails the program before its object registers', () => {
    const root = path.resolve(__dirname, '../..');
    const run = spawnSync(
      process.execPath,
      [require.resolve('ts-node/dist/bin'), '--transpile-only', '--project', 'test/tsconfig.json', 'test/support/pulumi-failing-graph.ts'],
      { cwd: root, encoding: 'utf8' },
    );
    expect(run.status).toBe(1);
    const seen = JSON.parse(run.stdout);
    expect(seen.kubeRegistrations).toBe(0);
    expect(seen.rejections).toEqual([expect.stringMatching(/^DynamoValidationError: 1 invalid option:\n  - services: has prefill workers but no decode worker/)]);
  }, 60_000);

  test('a component added after the graph rendered is refused', async () => {
    const graph = new DynamoGraph('late', { model: 'm', backend: Backend.vllm() });
    new Worker('late-worker', { graph, serviceName: 'VllmWorker' });
    await graph.rendered;
    expect(() => new Frontend('late-frontend', { graph, serviceName: 'Frontend' })).toThrow(/after it rendered/);
  });

  test('warnings reach pulumi.log.warn; strict makes them errors', async () => {
    const warn = jest.spyOn(pulumi.log, 'warn');
    warn.mockClear();
    try {
      new SlaPlannedDeployment('req', { model: 'm', backend: Backend.vllm(), sla: { isl: 1, osl: 1, ttftMs: 1, itlMs: 1 } });
      new ModelCache('rwx', { size: '1Gi' });
      const graph = new DisaggregatedDeployment('tcp', { model: 'm', backend: Backend.vllm(), prefill: {}, decode: {} }).graph;
      await graph.rendered;
      const messages = warn.mock.calls.map((c) => String(c[0]));
      expect(messages.some((m) => m.startsWith('storageClassName: is not set on a ReadWriteMany claim'))).toBe(true);
      expect(messages.some((m) => m.startsWith('fabric: has no RDMA or EFA on a disaggregated graph: KV cache transfer falls back to TCP'))).toBe(true);
      expect(() => new ModelCache('rwx-strict', { size: '1Gi', strict: true })).toThrow(DynamoValidationError);
    } finally {
      warn.mockClear();
    }
  });
});
