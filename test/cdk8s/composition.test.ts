import { Chart, Testing } from 'cdk8s';
import {
  AggregatedDeployment,
  Backend,
  DecodeWorker,
  DisaggregatedDeployment,
  DisaggregatedDeploymentProps,
  DynamoGraph,
  Fabric,
  Frontend,
  ModelCache,
  LoadPredictor,
  Planner,
  PrefillWorker,
  Router,
  Worker,
} from '../../src/cdk8s';
import { toYaml } from '../support/manifests';

/**
 * `DisaggregatedDeployment` and `AggregatedDeployment` are compositions of the
 * lower-level constructs: for the same inputs both APIs give the same bytes.
 */

function chart(): Chart {
  return new Chart(Testing.app(), 'c', { namespace: 'serving' });
}

const VARIANTS: Record<string, (c: Chart) => Omit<DisaggregatedDeploymentProps, 'prefill' | 'decode'>> = {
  'vllm over RDMA with a model cache': (c) => ({
    model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1',
    backend: Backend.vllm({ cuda: 13 }),
    hfTokenSecret: 'hf-token-secret',
    modelCache: new ModelCache(c, 'model-cache', { size: '100Gi', storageClassName: 'nfs' }),
    fabric: Fabric.rdma(),
    trustRemoteCode: true,
  }),
  'sglang over EFA with a KV router': () => ({
    model: 'deepseek-ai/DeepSeek-V2-Lite-Chat',
    backend: Backend.sglang(),
    fabric: Fabric.efa(),
    frontend: { replicas: 2, router: Router.kv({ temperature: 0.2, replicaSync: true }) },
    env: { GLOO_SOCKET_IFNAME: 'eth0' },
  }),
  'trtllm with engine ConfigMaps': (c) => ({
    model: 'Qwen/Qwen3-32B',
    backend: Backend.trtllm(),
    modelCache: ModelCache.fromClaim(c, 'existing', { claimName: 'weights' }),
    fabric: Fabric.rdma({ resourceName: 'rdma/ib' }),
    frontend: { router: Router.kv({ kvEvents: false, ttlSeconds: 60 }) },
  }),
};

describe.each(Object.entries(VARIANTS))('%s', (_name, graphProps) => {
  const prefill = { replicas: 2, tensorParallelSize: 1, maxNumSeqs: 2, kvCacheDtype: 'fp8_e4m3' };
  const decode = { replicas: 1, tensorParallelSize: 2, maxNumSeqs: 512, kvCacheDtype: 'fp8_e4m3' };

  test('DynamoGraph + Frontend/PrefillWorker/DecodeWorker == DisaggregatedDeployment', () => {
    const a = chart();
    const { frontend, ...graph } = graphProps(a);
    const g = new DynamoGraph(a, 'llm', graph);
    new Frontend(g, 'Frontend', frontend);
    const vllm = graph.backend.name === 'vllm';
    new PrefillWorker(g, vllm ? 'VllmPrefillWorker' : 'prefill', prefill);
    new DecodeWorker(g, vllm ? 'VllmDecodeWorker' : 'decode', decode);

    const b = chart();
    new DisaggregatedDeployment(b, 'llm', { ...graphProps(b), prefill, decode });

    const low = toYaml(Testing.synth(a));
    expect(low).toContain('kind: DynamoGraphDeployment');
    expect(toYaml(Testing.synth(b))).toBe(low);
  });
});

test('DynamoGraph + Frontend/Worker == AggregatedDeployment', () => {
  const props = { model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm() };
  const a = chart();
  const g = new DynamoGraph(a, 'agg', props);
  new Frontend(g, 'Frontend', { router: Router.kv() });
  new Worker(g, 'VllmWorker', { replicas: 3 });

  const b = chart();
  new AggregatedDeployment(b, 'agg', { ...props, frontend: { router: Router.kv() }, workers: { replicas: 3 } });

  expect(toYaml(Testing.synth(b))).toBe(toYaml(Testing.synth(a)));
});

test('DynamoGraph + Planner == DisaggregatedDeployment with planner', () => {
  const props = { model: 'meta-llama/Llama-3.3-70B-Instruct', backend: Backend.vllm(), fabric: Fabric.rdma() };
  const planner = { ttftMs: 300, itlMs: 30, maxGpuBudget: 16, loadPredictor: LoadPredictor.arima({ log1p: true }) };
  const a = chart();
  const g = new DynamoGraph(a, 'planned', props);
  new Frontend(g, 'Frontend');
  new PrefillWorker(g, 'VllmPrefillWorker', { tensorParallelSize: 2 });
  new DecodeWorker(g, 'VllmDecodeWorker', { tensorParallelSize: 4 });
  new Planner(g, 'Planner', planner);

  const b = chart();
  new DisaggregatedDeployment(b, 'planned', { ...props, prefill: { tensorParallelSize: 2 }, decode: { tensorParallelSize: 4 }, planner });

  const low = toYaml(Testing.synth(a));
  // the 1.x planner, with its PlannerConfig in a ConfigMap beside the graph
  expect(low).toContain('dynamo.planner');
  expect(Testing.synth(a).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ConfigMap/planned-planner-config', 'DynamoGraphDeployment/planned']);
  expect(toYaml(Testing.synth(b))).toBe(low);
});
