import { Chart, JsonPatch, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import {
  AggregatedDeployment,
  Backend,
  DisaggregatedDeployment,
  DynamoGraph,
  DynamoValidationError,
  Fabric,
  Frontend,
  ModelCache,
  Planner,
  PrefillWorker,
  Router,
  SlaPlannedDeployment,
  Worker,
  WARNING_METADATA,
} from '../../src/cdk8s';
import { dgdOf } from '../support/manifests';

function chart(namespace?: string): Chart {
  return new Chart(Testing.app(), 'c', { namespace });
}

function caught(fn: () => unknown): DynamoValidationError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DynamoValidationError) return e;
    throw new Error(`expected a DynamoValidationError, got ${e}`);
  }
  throw new Error('nothing was thrown');
}

describe('errors', () => {
  test('option errors and what the rules find on the rest of the graph are reported together', () => {
    const e = caught(
      () =>
        new DisaggregatedDeployment(chart(), 'd', {
          model: 'm',
          backend: Backend.vllm(),
          prefill: { replicas: 4 },
          decode: { replicas: 4 },
          planner: { maxGpuBudget: 2 } as any,
        }),
    );
    expect(e.issues.map((i) => `${i.path} [${i.rule}]`)).toEqual([
      'planner.ttftMs [required]',
      'planner.itlMs [required]',
      'planner.maxGpuBudget [planner-budget]',
    ]);
  });

  test('a deployment validates everything in its constructor and lists every problem', () => {
    const e = caught(
      () =>
        new DisaggregatedDeployment(chart(), 'd', {
          model: 'm',
          backend: Backend.vllm(),
          prefill: { tensorParallelSize: 0 },
          decode: { replicas: -2 },
        }),
    );
    expect(e.issues.map((i) => i.path)).toEqual(['prefill.tensorParallelSize', 'decode.replicas']);
    expect(e.message).toBe(
      '2 invalid options:\n' +
        '  - prefill.tensorParallelSize: must be a positive integer, got 0 [value-range]\n' +
        '  - decode.replicas: must be a whole number >= 0, got -2 [value-range]',
    );
  });

  test('a component validates its own options in its constructor, named by its service', () => {
    const graph = new DynamoGraph(chart(), 'g', { model: 'm', backend: Backend.vllm() });
    const e = caught(() => new PrefillWorker(graph, 'VllmPrefillWorker', { maxNumSeqs: 0 }));
    expect(e.issues).toEqual([{ path: 'VllmPrefillWorker.maxNumSeqs', message: 'must be a positive integer, got 0', rule: 'value-range' }]);
  });

  test('rules across components are checked at synth and surface unwrapped', () => {
    const c = chart();
    const graph = new DynamoGraph(c, 'g', { model: 'm', backend: Backend.vllm() });
    new Frontend(graph, 'Frontend');
    new PrefillWorker(graph, 'VllmPrefillWorker');
    const e = caught(() => Testing.synth(c));
    expect(e.issues.map((i) => i.message)).toEqual(['has prefill workers but no decode worker; prefill and decode workers come in pairs']);
  });

  test('a planner in an aggregated graph is an error at synth', () => {
    const c = chart();
    const graph = new DynamoGraph(c, 'g', { model: 'm', backend: Backend.vllm() });
    new Frontend(graph, 'Frontend');
    new Worker(graph, 'VllmWorker');
    new Planner(graph, 'Planner', { ttftMs: 300, itlMs: 30 });
    expect(caught(() => Testing.synth(c)).issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'Planner: needs a disaggregated graph: the SLA planner scales prefill and decode workers separately',
    ]);
  });

  test('an SLA-planned deployment validates in its constructor', () => {
    const e = caught(() => new SlaPlannedDeployment(chart(), 'req', { model: 'm', backend: Backend.vllm(), sla: { isl: 1, osl: 1, ttftMs: 0, itlMs: 1 } }));
    expect(e.issues.map((i) => i.path)).toEqual(['sla.ttftMs']);
  });

  test('strict mode turns warnings into errors when the app synthesizes', () => {
    const app = Testing.app();
    const c = new Chart(app, 'c');
    const d = new DisaggregatedDeployment(c, 'd', { model: 'm', backend: Backend.vllm(), strict: true, prefill: {}, decode: {} });
    expect(d.warnings.map((w) => w.rule)).toEqual(['disaggregated-tcp']);
    expect(caught(() => app.synth()).issues.map((i) => i.rule)).toEqual(['disaggregated-tcp']);
  });

  test('warnings are printed once when the app synthesizes', () => {
    const app = Testing.app();
    new AggregatedDeployment(new Chart(app, 'a'), 'agg', { model: 'm', backend: Backend.vllm(), frontend: { replicas: 2, router: Router.kv() }, workers: {} });
    new Chart(app, 'b');
    const quiet = process.env.DYNAMO_CONSTRUCTS_QUIET;
    delete process.env.DYNAMO_CONSTRUCTS_QUIET;
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      app.synth();
      const lines = write.mock.calls.map((c) => String(c[0]));
      expect(lines).toEqual([
        'warning: a/agg/Graph: frontend.router.replicaSync: is not set, and 2 frontend replicas each keep their own view of active blocks; add --router-replica-sync (Router.kv({ replicaSync: true })) so their routing decisions agree (guide 3) [router-replica-sync]\n',
      ]);
      // and recorded on the construct, for tools that read the construct tree
      const graph = app.node.findAll().find((x) => x.node.path === 'a/agg/Graph')!;
      expect(graph.node.metadata.filter((m) => m.type === WARNING_METADATA).map((m) => m.data)).toEqual([
        { path: 'frontend.router.replicaSync', rule: 'router-replica-sync', message: expect.stringMatching(/^is not set, and 2 frontend replicas/) },
      ]);
    } finally {
      write.mockRestore();
      process.env.DYNAMO_CONSTRUCTS_QUIET = quiet;
    }
  });
});

describe('names, namespaces and references', () => {
  test('metadata.name defaults to the construct id, the namespace to the chart\'s', () => {
    const c = chart('serving');
    const cache = new ModelCache(c, 'weights', { size: '50Gi', storageClassName: 'nfs' });
    new AggregatedDeployment(c, 'qwen', { model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), modelCache: cache, workers: {} });
    const out = Testing.synth(c);
    expect(out.map((o) => [o.kind, o.metadata.name, o.metadata.namespace])).toEqual([
      ['PersistentVolumeClaim', 'weights', 'serving'],
      ['DynamoGraphDeployment', 'qwen', 'serving'],
    ]);
  });

  test('explicit name and namespace win', () => {
    const c = chart('serving');
    new AggregatedDeployment(c, 'Qwen', { name: 'qwen-small', namespace: 'other', model: 'q', backend: Backend.vllm(), workers: {} });
    expect(dgdOf(Testing.synth(c)).metadata).toEqual({ name: 'qwen-small', namespace: 'other', annotations: { 'nvidia.com/grove-update-strategy': 'RollingRecreate' } });
  });

  test('an id that is not a Kubernetes name is an error that says how to fix it', () => {
    const e = caught(() => new ModelCache(chart(), 'ModelCache', { size: '10Gi' }));
    expect(e.issues[0].path).toBe('name');
    expect(e.issues[0].message).toMatch(/got "ModelCache"; pass `name` to choose the claim name/);
  });

  test('cdk8s-plus objects are accepted wherever a name is', () => {
    const c = chart();
    const token = kplus.Secret.fromSecretName(c, 'token', 'hf-token-secret');
    const pull = kplus.Secret.fromSecretName(c, 'pull', 'nvcr-imagepullsecret');
    const claim = kplus.PersistentVolumeClaim.fromClaimName(c, 'claim', 'shared-models');
    const cache = ModelCache.fromClaim(c, 'cache', { claimName: claim, mountPath: '/models' });
    new AggregatedDeployment(c, 'agg', { dynamoVersion: '0.9.0', model: 'm', backend: Backend.vllm(), hfTokenSecret: token, imagePullSecrets: [pull], modelCache: cache, workers: {} });
    const worker = dgdOf(Testing.synth(c)).spec.services.VllmWorker;
    expect(worker.envFromSecret).toBe('hf-token-secret');
    expect(worker.extraPodSpec.imagePullSecrets).toEqual([{ name: 'nvcr-imagepullsecret' }]);
    expect(worker.volumeMounts).toEqual([{ name: 'shared-models', mountPoint: '/models' }]);
  });
});

describe('construction-time checks', () => {
  test('an unknown graph option fails where it is written, not at synth', () => {
    const e = caught(() => new DynamoGraph(chart(), 'g', { model: 'm', backend: Backend.vllm(), replicas: 2 } as any));
    expect(e.issues.map((i) => i.path)).toEqual(['replicas']);
  });

  test('a namespace may be given as a cdk8s-plus Namespace', () => {
    const c = chart('default-ns');
    const ns = new kplus.Namespace(c, 'serving-ns', { metadata: { name: 'serving' } });
    new AggregatedDeployment(c, 'agg', { namespace: ns, model: 'm', backend: Backend.vllm(), workers: {} });
    expect(dgdOf(Testing.synth(c)).metadata.namespace).toBe('serving');
  });

  test('props left out entirely are reported, not a TypeError', () => {
    const e = caught(() => new DisaggregatedDeployment(chart(), 'd', undefined as any));
    expect(e.issues.map((i) => i.path)).toEqual(['model', 'backend', 'prefill', 'decode']);
  });
});

describe('escape hatches and ordering', () => {
  test('every construct exposes its ApiObjects for JSON patches', () => {
    const c = chart();
    const d = new DisaggregatedDeployment(c, 'd', {
      model: 'm',
      backend: Backend.trtllm(),
      fabric: Fabric.rdma(),
      prefill: {},
      decode: {},
    });
    expect(d.apiObjects.map((o) => o.kind)).toEqual(['DynamoGraphDeployment', 'ConfigMap', 'ConfigMap']);
    expect(d.frontend.apiObjects).toEqual([]);
    expect(d.prefill.apiObjects.map((o) => o.name)).toEqual(['d-prefill-engine']);
    // v1beta1 (the default release): the service's pod template, at its index in spec.components
    expect(d.decode.servicePath).toBe('/spec/components/2');
    d.graph.apiObject.addJsonPatch(JsonPatch.add(`${d.decode.servicePath}/podTemplate/spec/terminationGracePeriodSeconds`, 600));
    const out = Testing.synth(c);
    // mounted ConfigMaps are applied before the graph that mounts them
    expect(out.map((o) => o.kind)).toEqual(['ConfigMap', 'ConfigMap', 'DynamoGraphDeployment']);
    const decode = dgdOf(out).spec.components.find((x: any) => x.name === 'decode');
    expect(decode.podTemplate.spec.terminationGracePeriodSeconds).toBe(600);
    // v1alpha1 (0.8/0.9): the key under spec.services
    const old = new DisaggregatedDeployment(chart(), 'd', { dynamoVersion: '0.9.0', model: 'm', backend: Backend.trtllm(), fabric: Fabric.rdma(), prefill: {}, decode: {} });
    expect(old.decode.servicePath).toBe('/spec/services/decode');
  });

  test('the model cache claim is applied before the graph', () => {
    const c = chart();
    const graph = new DynamoGraph(c, 'g', { model: 'm', backend: Backend.vllm(), modelCache: new ModelCache(c, 'cache', { size: '1Gi', storageClassName: 's' }) });
    new Worker(graph, 'VllmWorker');
    expect(Testing.synth(c).map((o) => o.kind)).toEqual(['PersistentVolumeClaim', 'DynamoGraphDeployment']);
  });
});
