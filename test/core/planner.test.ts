import {
  Backend,
  DEFAULT_PROFILE_RESULTS_CONFIG_MAP,
  GRAPH_OPTION_KEYS,
  Fabric,
  LoadPredictor,
  PlannerOptions,
  renderSlaPlanned,
  SlaPlannedDeploymentOptions,
} from '../../src/core/internal';
import { manifestErrors } from '../support/manifests';
import { container, GUIDE_VERSION, issuesOf, renderAgg, renderDisagg, services } from './helpers';

const MODEL = 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1';
const SLA = { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 };

function request(o: Partial<SlaPlannedDeploymentOptions> = {}) {
  return renderSlaPlanned('req', 'ns', { model: MODEL, backend: Backend.vllm(), sla: SLA, dynamoVersion: GUIDE_VERSION, ...o });
}

function planned(planner: PlannerOptions, prefill = {}, decode = {}) {
  return renderDisagg({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), prefill, decode, planner });
}

const PREDICTORS: [string, LoadPredictor, Record<string, unknown>, string[]][] = [
  ['constant', LoadPredictor.constant(), { loadPredictor: 'constant' }, ['--load-predictor=constant']],
  ['arima', LoadPredictor.arima({ log1p: true }), { loadPredictor: 'arima', loadPredictorLog1p: true }, ['--load-predictor=arima', '--load-predictor-log1p']],
  [
    'kalman',
    LoadPredictor.kalman({ qLevel: 0.1, qTrend: 0.01, r: 1.0, minPoints: 8 }),
    { loadPredictor: 'kalman', kalmanQLevel: 0.1, kalmanQTrend: 0.01, kalmanR: 1, kalmanMinPoints: 8 },
    ['--load-predictor=kalman', '--kalman-q-level=0.1', '--kalman-q-trend=0.01', '--kalman-r=1', '--kalman-min-points=8'],
  ],
  [
    'prophet',
    LoadPredictor.prophet({ windowSize: 1000, log1p: true }),
    { loadPredictor: 'prophet', prophetWindowSize: 1000, loadPredictorLog1p: true },
    ['--load-predictor=prophet', '--load-predictor-log1p', '--prophet-window-size=1000'],
  ],
];

describe.each(PREDICTORS)('load predictor %s', (_name, predictor, keys, flags) => {
  test('renders guide 1 section 13 keys in the DGDR planner config', () => {
    const { object } = request({ planner: { loadPredictor: predictor } });
    expect((object as any).spec.profilingConfig.config.planner).toEqual(keys);
    expect(manifestErrors(object)).toEqual([]);
  });

  test('renders its flags on the planner of a DGD', () => {
    const args = container(planned({ ttftMs: 300, itlMs: 30, loadPredictor: predictor }), 'Planner').args;
    const rendered = args.filter((a: string) => /^--(load-predictor|kalman|prophet)/.test(a));
    expect(rendered).toEqual(flags);
  });
});

describe('SLA-planned deployment (DGDR)', () => {
  test('defaults: autoApply false, profiler and workers on the release runtime image', () => {
    const spec = (request().object as any).spec;
    expect(spec.autoApply).toBe(false);
    expect(spec.profilingConfig.profilerImage).toBe('nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0');
    expect(spec.deploymentOverrides).toEqual({ workersImage: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0' });
    expect(spec.profilingConfig.config).toEqual({ sla: { isl: 2000, osl: 100, ttft: 300, itl: 30 } });
  });

  test('every option lands in its DGDR field', () => {
    const { object } = request({
      backend: Backend.trtllm(),
      profilerImage: 'registry/profiler:1',
      aiConfigurator: { system: 'b200_sxm', backendVersion: '1.2.0rc5', hfId: 'org/other' },
      autoApply: true,
      deployMocker: true,
      deploymentOverrides: { name: 'gen', namespace: 'serving', labels: { team: 'ml' }, annotations: { a: 'b' }, workersImage: 'registry/w:1' },
      hardware: { minGpusPerEngine: 1, maxGpusPerEngine: 8, gpusPerNode: 8 },
      modelCache: { claimName: 'weights', mountPath: '/models' },
      outputPvc: 'profiling-output',
      configMapRef: { name: { name: 'base-config' }, key: 'agg.yaml' },
      resources: { cpu: { request: '4' }, memory: { limit: '16Gi' } },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      labels: { app: 'llm' },
    });
    expect(object).toEqual({
      apiVersion: 'nvidia.com/v1alpha1',
      kind: 'DynamoGraphDeploymentRequest',
      metadata: { name: 'req', namespace: 'ns', labels: { app: 'llm' } },
      spec: {
        model: MODEL,
        backend: 'trtllm',
        autoApply: true,
        deployMocker: true,
        profilingConfig: {
          profilerImage: 'registry/profiler:1',
          config: {
            sla: { isl: 2000, osl: 100, ttft: 300, itl: 30 },
            hardware: { minNumGpusPerEngine: 1, maxNumGpusPerEngine: 8, numGpusPerNode: 8 },
            deployment: { modelCache: { pvcName: 'weights', mountPath: '/models' } },
            sweep: { useAiConfigurator: true, aicSystem: 'b200_sxm', aicHfId: 'org/other', aicBackendVersion: '1.2.0rc5' },
          },
          configMapRef: { name: 'base-config', key: 'agg.yaml' },
          outputPVC: 'profiling-output',
          resources: { requests: { cpu: '4' }, limits: { memory: '16Gi' } },
          tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
        },
        deploymentOverrides: { name: 'gen', namespace: 'serving', labels: { team: 'ml' }, annotations: { a: 'b' }, workersImage: 'registry/w:1' },
      },
    });
    expect(manifestErrors(object)).toEqual([]);
  });

  describe('unsupported AIConfigurator combinations name the supported choices', () => {
    test.each([
      ['vllm', 'h200_sxm', '0.11.0', Backend.vllm(), 'aiConfigurator.backendVersion: vllm on h200_sxm supports "0.12.0" (Dynamo 0.9.x), got "0.11.0"'],
      ['vllm', 'l40s', '0.12.0', Backend.vllm(), 'aiConfigurator.system: l40s has AIConfigurator data for sglang, trtllm only, not vllm; vllm is supported on h100_sxm, h200_sxm'],
      ['sglang', 'l40s', '0.5.6.post2', Backend.sglang(), 'aiConfigurator.backendVersion: sglang on l40s supports "0.5.5.post3" (Dynamo 0.9.x), got "0.5.6.post2"'],
      ['sglang', 'a100_sxm', '0.5.6.post2', Backend.sglang(), 'aiConfigurator.system: a100_sxm has AIConfigurator data for trtllm only, not sglang; sglang is supported on b200_sxm, h100_sxm, h200_sxm, l40s'],
      ['trtllm', 'h100_sxm', '1.0.0rc6', Backend.trtllm(), 'aiConfigurator.backendVersion: trtllm on h100_sxm supports "1.0.0rc3", "1.2.0rc5" (Dynamo 0.9.x), got "1.0.0rc6"'],
      ['trtllm', 'gb200_sxm', '1.0.0', Backend.trtllm(), 'aiConfigurator.backendVersion: trtllm on gb200_sxm supports "1.0.0rc6", "1.2.0rc5" (Dynamo 0.9.x), got "1.0.0"'],
      ['trtllm', 'h20_sxm', '1.0.0', Backend.trtllm(), 'aiConfigurator.system: must be an AIConfigurator GPU system (a100_sxm, b200_sxm, gb200_sxm, h100_sxm, h200_sxm, l40s), got "h20_sxm"'],
    ])('%s on %s, version %s', (_b, system, backendVersion, backend, message) => {
      expect(issuesOf(() => request({ backend, aiConfigurator: { system, backendVersion } }))).toEqual([message]);
    });

    test('every supported combination of guide 1 section 7 is accepted', () => {
      const table: [Backend, string, string][] = [
        [Backend.vllm(), 'h100_sxm', '0.12.0'],
        [Backend.vllm(), 'h200_sxm', '0.12.0'],
        [Backend.sglang(), 'b200_sxm', '0.5.6.post2'],
        [Backend.sglang(), 'l40s', '0.5.5.post3'],
        [Backend.trtllm(), 'a100_sxm', '1.0.0'],
        [Backend.trtllm(), 'b200_sxm', '1.0.0rc6'],
        [Backend.trtllm(), 'h200_sxm', '1.2.0rc5'],
        [Backend.trtllm(), 'l40s', '1.0.0'],
      ];
      for (const [backend, system, backendVersion] of table) {
        expect(() => request({ backend, aiConfigurator: { system, backendVersion } })).not.toThrow();
      }
    });

    test('a release without AIConfigurator data is an error, not a guess', () => {
      expect(issuesOf(() => request({ dynamoVersion: '0.8.1', aiConfigurator: { system: 'h200_sxm', backendVersion: '0.12.0' } }))).toEqual([
        'aiConfigurator: AIConfigurator support data is known for Dynamo 0.9.x, not 0.8.x; set dynamoVersion to a release in that list, or profile without aiConfigurator',
      ]);
    });
  });

  test('SLA, planner and budget are validated together; every error at once', () => {
    expect(
      issuesOf(() =>
        request({
          sla: { isl: 2000.5, osl: 0, ttftMs: Number.NaN, itlMs: -1 },
          planner: { minEndpoint: 0, adjustmentIntervalSeconds: 0, ttftMs: 200, prometheusEndpoint: 'http://p:9090' },
          hardware: { minGpusPerEngine: 4, maxGpusPerEngine: 2 },
        }),
      ),
    ).toEqual([
      'sla.isl: must be a whole number of tokens > 0, got 2000.5',
      'sla.osl: must be a whole number of tokens > 0, got 0',
      'sla.ttftMs: must be a number > 0, got NaN',
      'sla.itlMs: must be a number > 0, got -1',
      'planner.minEndpoint: must be a positive integer, got 0',
      'planner.adjustmentIntervalSeconds: must be a whole number of seconds > 0, got 0',
      'planner.ttftMs: cannot be set on an SLA-planned deployment: it comes from sla.ttftMs, so the profiler and the planner target the same SLA',
      'planner.prometheusEndpoint: cannot be set on an SLA-planned deployment: it is set on the Dynamo platform (its prometheusEndpoint value), which the generated planner reads',
      'hardware.maxGpusPerEngine: is 2, below minGpusPerEngine 4',
    ]);
  });

  test('the GPU budget must hold minEndpoint engines of each role', () => {
    expect(issuesOf(() => request({ planner: { minEndpoint: 2, maxGpuBudget: 3 } }))).toEqual([
      'planner.maxGpuBudget: is 3, below the 4 GPUs the graph needs at its minimum (minEndpoint 2 x (1 prefill + 1 decode GPUs per engine)); raise maxGpuBudget to at least 4',
    ]);
    expect(issuesOf(() => request({ hardware: { minGpusPerEngine: 8 }, planner: { maxGpuBudget: 12 } }))).toEqual([
      'planner.maxGpuBudget: is 12, below the 16 GPUs the graph needs at its minimum (minEndpoint 1 x (8 prefill + 8 decode GPUs per engine)); raise maxGpuBudget to at least 16',
    ]);
    expect(() => request({ planner: { minEndpoint: 2, maxGpuBudget: 4 } })).not.toThrow();
  });

  test('GPU discovery and a manual search space conflict', () => {
    expect(issuesOf(() => request({ enableGpuDiscovery: true, hardware: { gpusPerNode: 8 } }))).toEqual([
      'hardware: is replaced by what enableGpuDiscovery finds on the nodes; set one of them',
    ]);
  });
});

describe('planner in a graph (DGD)', () => {
  const r = planned(
    { ttftMs: 250, itlMs: 20, minEndpoint: 1, maxGpuBudget: 8, adjustmentIntervalSeconds: 30, prometheusEndpoint: { queryEndpoint: 'http://prom.monitoring:9090' }, profileResultsConfigMap: 'llama-profile' },
    { tensorParallelSize: 1 },
    { tensorParallelSize: 2 },
  );

  test('runs planner_sla with the release\'s flags, profiling results mounted read-only', () => {
    const s = services(r).Planner;
    expect(s.componentType).toBe('planner');
    expect(s.replicas).toBe(1);
    expect(s.extraPodSpec.volumes).toEqual([{ name: 'planner-profile-data', configMap: { name: 'llama-profile' } }]);
    const c = s.extraPodSpec.mainContainer;
    expect(c.command).toEqual(['python3', '-m', 'planner_sla']);
    expect(c.workingDir).toBe('/workspace/components/src/dynamo/planner');
    expect(c.args).toEqual([
      '--environment=kubernetes',
      '--backend=vllm',
      '--profile-results-dir=/workspace/profiling_results',
      '--adjustment-interval=30',
      '--max-gpu-budget=8',
      '--min-endpoint=1',
      // the 0.9 planner counts an engine as 1 GPU unless told (measured: it sized TP4 decode as 15 engines of 1 GPU)
      '--prefill-engine-num-gpu=1',
      '--decode-engine-num-gpu=2',
      '--ttft=250',
      '--itl=20',
      '--metric-pulling-prometheus-endpoint=http://prom.monitoring:9090',
    ]);
    expect(c.volumeMounts).toEqual([{ name: 'planner-profile-data', mountPath: '/workspace/profiling_results', readOnly: true }]);
    expect(c.ports).toEqual([{ name: 'metrics', containerPort: 9085, protocol: 'TCP' }]);
    expect(s.envs.find((e: any) => e.name === 'PLANNER_PROMETHEUS_PORT')).toEqual({ name: 'PLANNER_PROMETHEUS_PORT', value: '9085' });
  });

  test('workers carry the subComponentType the planner finds them by', () => {
    expect(services(r).VllmPrefillWorker.subComponentType).toBe('prefill');
    expect(services(r).VllmDecodeWorker.subComponentType).toBe('decode');
    expect(manifestErrors(r.graph)).toEqual([]);
  });

  test('the default profiling results ConfigMap is the profiler\'s', () => {
    const d = planned({ ttftMs: 250, itlMs: 20 });
    expect(services(d).Planner.extraPodSpec.volumes[0].configMap.name).toBe(DEFAULT_PROFILE_RESULTS_CONFIG_MAP);
  });

  test('TTFT and ITL targets are required; the budget covers the minimum and the starting replicas', () => {
    expect(issuesOf(() => planned({}))).toEqual([
      'planner.ttftMs: is required: the time-to-first-token target (ms) the planner scales for',
      'planner.itlMs: is required: the inter-token latency target (ms) the planner scales for',
    ]);
    expect(issuesOf(() => planned({ ttftMs: 1, itlMs: 1, minEndpoint: 2, maxGpuBudget: 10 }, { tensorParallelSize: 2 }, { tensorParallelSize: 4 }))).toEqual([
      'planner.maxGpuBudget: is 10, below the 12 GPUs the graph needs at its minimum (minEndpoint 2 x (2 prefill + 4 decode GPUs per engine)); raise maxGpuBudget to at least 12',
    ]);
    expect(issuesOf(() => planned({ ttftMs: 1, itlMs: 1, maxGpuBudget: 6 }, { replicas: 3, tensorParallelSize: 1 }, { replicas: 2, tensorParallelSize: 2 }))).toEqual([
      'planner.maxGpuBudget: is 6, below the 7 GPUs the graph starts with at its configured replicas; raise maxGpuBudget to at least 7 or start with fewer replicas',
    ]);
    // missing targets do not hide the budget the graph breaks
    expect(issuesOf(() => planned({ maxGpuBudget: 2 }, { replicas: 4 }, { replicas: 4 }))).toEqual([
      'planner.ttftMs: is required: the time-to-first-token target (ms) the planner scales for',
      'planner.itlMs: is required: the inter-token latency target (ms) the planner scales for',
      'planner.maxGpuBudget: is 2, below the 8 GPUs the graph starts with at its configured replicas; raise maxGpuBudget to at least 8 or start with fewer replicas',
    ]);
    expect(issuesOf(() => planned({ ttftMs: 1, itlMs: 1 }, { replicas: 5 }, { replicas: 5 }))).toEqual([
      'planner.maxGpuBudget: is the planner\'s default budget of 8 GPUs, below the 10 GPUs the graph starts with at its configured replicas; raise maxGpuBudget to at least 10 or start with fewer replicas',
    ]);
  });

  // found by the conformance suite: the 0.8 planner has no Kalman predictor and no log1p, and one window-size flag
  test('Dynamo 0.8: the planner\'s own predictors and flags', () => {
    const on08 = (planner: PlannerOptions) =>
      renderDisagg({ model: MODEL, backend: Backend.vllm(), dynamoVersion: '0.8.1', fabric: Fabric.rdma(), prefill: {}, decode: {}, planner });
    expect(issuesOf(() => on08({ ttftMs: 1, itlMs: 1, loadPredictor: LoadPredictor.kalman({ qLevel: 0.1, qTrend: 0.01, r: 1 }) }))).toEqual([
      'planner.loadPredictor: is the kalman predictor, which the Dynamo 0.8.x planner does not have (it has constant, arima, prophet); use another predictor or a later release',
    ]);
    expect(issuesOf(() => on08({ ttftMs: 1, itlMs: 1, loadPredictor: LoadPredictor.arima({ log1p: true }) }))).toEqual([
      'planner.loadPredictor.log1p: is set, but the Dynamo 0.8.x planner has no --load-predictor-log1p; leave it out or use a later release',
    ]);
    const args = container(on08({ ttftMs: 1, itlMs: 1, loadPredictor: LoadPredictor.prophet({ windowSize: 500 }) }), 'Planner').args;
    expect(args).toContain('--load-prediction-window-size=500');
    expect(args.some((a: string) => a.startsWith('--prophet-window-size'))).toBe(false);
    const config = request({ dynamoVersion: '0.8.1', planner: { loadPredictor: LoadPredictor.prophet({ windowSize: 500 }) } }).object.spec as any;
    expect(config.profilingConfig.config.planner).toEqual({ loadPredictor: 'prophet', loadPredictionWindowSize: 500 });
  });

  test('a planner needs a disaggregated graph', () => {
    expect(
      issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm(), workers: {}, planner: { ttftMs: 1, itlMs: 1 } } as any)),
    ).toContain(`planner: is not a known option; known options are ${[...GRAPH_OPTION_KEYS, 'frontend', 'workers', 'observability'].join(', ')}`);
  });

  test('predictor parameters are checked', () => {
    expect(issuesOf(() => planned({ ttftMs: 1, itlMs: 1, loadPredictor: LoadPredictor.kalman({ qLevel: 0, r: 1 } as any) }))).toEqual([
      'planner.loadPredictor.qLevel: must be a number > 0, got 0',
      'planner.loadPredictor.qTrend: is required by the Kalman predictor (guide 1: qLevel 0.1, qTrend 0.01, r 1.0)',
    ]);
    expect(issuesOf(() => planned({ ttftMs: 1, itlMs: 1, loadPredictor: LoadPredictor.prophet({} as any) }))).toEqual([
      'planner.loadPredictor.windowSize: is required by the Prophet predictor (guide 1: 1000)',
    ]);
  });
});
