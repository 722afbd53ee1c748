import { Chart, Testing } from 'cdk8s';
import {
  aggregatedGraphSpec,
  AggregatedDeploymentOptions,
  Backend,
  Dashboards,
  disaggregatedGraphSpec,
  DisaggregatedDeploymentOptions,
  DynamoValidationError,
  Fabric,
  LoadPredictor,
  renderGraph,
  renderSlaPlanned,
  Router,
  SlaPlannedDeploymentOptions,
  ValidationIssue,
} from '../../src';
import { DynamoPlatform, PrometheusStack } from '../../src/cdk8s';
import { lintSources } from '../../src/cli/lint/lint';
import { lintCrds } from '../support/crd';

/**
 * Bounds on what a user or a manifest can put into a graph: every number an option or a
 * flag takes stays within what Kubernetes and the engines store it in (int32 unless a
 * tighter bound is known), the model is a Hugging Face id or a path that stays where it
 * points, non-finite numbers never reach YAML, and a component named after an Object
 * property is checked like any other.
 */

const HUGE = 1e308;
const INT32_MAX = 2147483647;
/** How a message words the bound, for a whole number and for a number. */
const INT_BOUND = `no larger than ${INT32_MAX} (the largest 32-bit integer, the type Kubernetes and the engines read it into)`;
const NUMBER_BOUND = `no larger than ${INT32_MAX} (the largest 32-bit integer: no count, duration, rate or weight means anything beyond it)`;

function issuesOf(fn: () => unknown): ValidationIssue[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof DynamoValidationError) return [...e.issues];
    throw new Error(`expected a DynamoValidationError, got ${String(e)}`);
  }
  throw new Error('expected a DynamoValidationError, but the options were accepted');
}

const disagg = (o: Partial<DisaggregatedDeploymentOptions>, dynamoVersion = '1.6.1') =>
  renderGraph(disaggregatedGraphSpec('g', 'ns', { dynamoVersion, model: 'Qwen/Qwen3-32B', backend: Backend.vllm(), prefill: {}, decode: {}, ...o }));
const agg = (o: Partial<AggregatedDeploymentOptions>, dynamoVersion = '1.6.1') =>
  renderGraph(aggregatedGraphSpec('g', 'ns', { dynamoVersion, model: 'Qwen/Qwen3-32B', backend: Backend.vllm(), workers: {}, ...o }));
const planned = (o: Partial<SlaPlannedDeploymentOptions>, dynamoVersion = '1.6.1') =>
  renderSlaPlanned('req', 'ns', {
    dynamoVersion,
    model: 'Qwen/Qwen3-32B',
    backend: Backend.vllm(),
    sla: { isl: 3000, osl: 150, ttftMs: 200, itlMs: 20 },
    ...o,
  } as SlaPlannedDeploymentOptions);

/** The issue at `path`, failing with every issue found when there is none. */
function issueAt(issues: readonly ValidationIssue[], path: string): ValidationIssue {
  const found = issues.find((i) => i.path === path);
  if (!found) throw new Error(`no issue at ${path}; found:\n${issues.map((i) => `${i.path}: ${i.message}`).join('\n')}`);
  return found;
}

describe('every number an option takes is bounded', () => {
  test('1e308 in each worker, frontend, router, fabric and planner option is refused, every one at once, with the int32 bound', () => {
    const issues = issuesOf(() =>
      disagg({
        fabric: Fabric.rdma({ deviceCount: HUGE }),
        frontend: {
          replicas: HUGE,
          router: Router.kv({ blockSize: HUGE, activePrefillTokensThreshold: HUGE, overlapScoreWeight: HUGE, temperature: HUGE }),
        },
        prefill: { replicas: HUGE, tensorParallelSize: HUGE, gpus: HUGE, maxNumSeqs: HUGE, maxModelLen: HUGE, blockSize: HUGE },
        decode: { nodeCount: HUGE, tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', tolerationSeconds: 2 ** 60 }] },
        planner: { ttftMs: HUGE, itlMs: HUGE, maxGpuBudget: HUGE, minEndpoint: HUGE, adjustmentIntervalSeconds: HUGE, loadPredictor: LoadPredictor.prophet({ windowSize: HUGE }) },
      }),
    );
    const expected: [string, string][] = [
      ['fabric.deviceCount', 'a positive integer'],
      ['frontend.replicas', 'a whole number >= 0'],
      ['frontend.router.blockSize', 'a positive integer'],
      ['frontend.router.activePrefillTokensThreshold', 'a positive integer'],
      ['prefill.replicas', 'a whole number >= 0'],
      ['prefill.tensorParallelSize', 'a positive integer'],
      ['prefill.gpus', 'a positive integer'],
      ['prefill.maxNumSeqs', 'a positive integer'],
      ['prefill.maxModelLen', 'a positive integer'],
      ['prefill.blockSize', 'a positive integer'],
      ['decode.nodeCount', 'an integer >= 2 (one node needs no nodeCount)'],
      ['planner.maxGpuBudget', 'a positive integer'],
      ['planner.minEndpoint', 'a positive integer'],
      ['planner.adjustmentIntervalSeconds', 'a whole number of seconds > 0'],
      ['planner.loadPredictor.windowSize', 'a positive integer'],
    ];
    for (const [path, allowed] of expected) {
      expect(issueAt(issues, path)).toEqual({ path, message: `must be ${allowed} ${INT_BOUND}, got 1e+308`, rule: 'value-range' });
    }
    for (const [path, allowed] of [
      ['frontend.router.overlapScoreWeight', 'a number >= 0'],
      ['frontend.router.temperature', 'a number >= 0'],
      ['planner.ttftMs', 'a number > 0'],
      ['planner.itlMs', 'a number > 0'],
    ]) {
      expect(issueAt(issues, path)).toEqual({ path, message: `must be ${allowed} ${NUMBER_BOUND}, got 1e+308`, rule: 'value-range' });
    }
    expect(issueAt(issues, 'decode.tolerations[0].tolerationSeconds').message).toBe(
      `must be a whole number >= 0 no larger than ${Number.MAX_SAFE_INTEGER} (Kubernetes stores it as int64, and JSON keeps whole numbers exact only up to here), got ${2 ** 60}`,
    );
  });

  test('the bound is int32 itself: 2147483647 renders, 2147483648 does not', () => {
    const at = (n: number) => agg({ workers: { maxNumSeqs: n, maxModelLen: n } });
    const args = (at(INT32_MAX).graph as any).spec.components.find((c: any) => c.name === 'VllmWorker').podTemplate.spec.containers[0].args as string[];
    expect(args[args.indexOf('--max-num-seqs') + 1]).toBe(String(INT32_MAX));
    expect(args[args.indexOf('--max-model-len') + 1]).toBe(String(INT32_MAX));
    expect(issuesOf(() => at(INT32_MAX + 1)).map((i) => i.path)).toEqual(['workers.maxNumSeqs', 'workers.maxModelLen']);
  });

  test('GPUs that follow from the parallelism are bounded too', () => {
    const issues = issuesOf(() => agg({ workers: { tensorParallelSize: 65536, pipelineParallelSize: 65536 } }));
    expect(issueAt(issues, 'workers.tensorParallelSize').message).toBe(
      `is 65536 and pipelineParallelSize 65536, which need 4294967296 GPUs per engine: more than ${INT32_MAX} (the largest 32-bit integer, the type Kubernetes counts devices in)`,
    );
  });

  test('without KV events, the router TTL and tree size are bounded', () => {
    const issues = issuesOf(() => agg({ frontend: { router: Router.kv({ kvEvents: false, ttlSeconds: HUGE, maxTreeSize: HUGE }) } }, '0.9.0'));
    expect(issueAt(issues, 'frontend.router.ttlSeconds').message).toBe(`must be a number > 0 ${NUMBER_BOUND}, got 1e+308`);
    expect(issueAt(issues, 'frontend.router.maxTreeSize').message).toBe(`must be a positive integer ${INT_BOUND}, got 1e+308`);
  });

  test('EFA device counts and Kalman parameters are bounded', () => {
    const issues = issuesOf(() =>
      disagg({ fabric: Fabric.efa({ deviceCount: HUGE }), planner: { ttftMs: 200, itlMs: 20, loadPredictor: LoadPredictor.kalman({ qLevel: HUGE, qTrend: 0.01, r: 1, minPoints: HUGE }) } }),
    );
    expect(issues.map((i) => i.path).sort()).toEqual(['fabric.deviceCount', 'planner.loadPredictor.minPoints', 'planner.loadPredictor.qLevel']);
  });

  test('an SLA-planned request bounds the SLA, the hardware, the workload and the planner budget', () => {
    const issues = issuesOf(() =>
      planned({
        sla: { isl: HUGE, osl: HUGE, ttftMs: HUGE, itlMs: HUGE },
        hardware: { totalGpus: HUGE, gpusPerNode: HUGE, vramMb: HUGE },
        workload: { requestRate: HUGE },
        planner: { maxGpuBudget: HUGE },
      }),
    );
    for (const path of ['sla.isl', 'sla.osl', 'sla.ttftMs', 'sla.itlMs', 'hardware.totalGpus', 'hardware.gpusPerNode', 'hardware.vramMb', 'workload.requestRate', 'planner.maxGpuBudget']) {
      expect(issueAt(issues, path)).toMatchObject({ message: expect.stringMatching(new RegExp(`no larger than ${INT32_MAX} \\(the largest 32-bit integer.*\\), got 1e\\+308$`)), rule: 'value-range' });
    }
  });

  test('SLA targets of dashboards are finite and bounded', () => {
    const issues = issuesOf(() => Dashboards.serving({ sla: { ttftMs: HUGE, itlMs: Infinity } }));
    expect(issues).toEqual([
      { path: 'sla.ttftMs', message: `must be a number > 0 ${NUMBER_BOUND}, got 1e+308`, rule: 'value-range' },
      { path: 'sla.itlMs', message: 'must be a number > 0, got Infinity', rule: 'value-range' },
    ]);
  });

  test('the platform bounds etcd replicas', () => {
    const issues = issuesOf(() => new DynamoPlatform(new Chart(Testing.app(), 'c'), 'p', { version: '0.9.0', etcd: { replicas: HUGE } }));
    expect(issueAt(issues, 'etcd.replicas').message).toBe(`must be a positive integer ${INT_BOUND}, got 1e+308`);
  });
});

describe('lint applies the same bounds to what it reads in a manifest', () => {
  const manifest = `apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: { name: g }
spec:
  backendFramework: vllm
  services:
    Frontend:
      componentType: frontend
      replicas: 1
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
          command: [python3, -m, dynamo.frontend]
          args: [--router-mode, kv, --kv-cache-block-size, "1e308", --router-temperature, "1e308", --kv-overlap-score-weight, "1e308"]
    VllmWorker:
      componentType: worker
      replicas: 1
      resources: { limits: { gpu: "1" } }
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-0.6B, --tensor-parallel-size, "1e308", --block-size, "1e308"]
    Planner:
      componentType: planner
      replicas: 1
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
          command: [python3, -m, planner_sla]
          args: [--max-gpu-budget=1e308, --min-endpoint=1e308, --ttft=1e308, --itl=20]
`;

  test('1e308 in router, worker and planner flags is a value-range finding naming the flag', () => {
    const findings = lintSources([{ file: 'g.yaml', text: manifest }], { crds: lintCrds() }).findings.filter((f) => f.rule === 'value-range');
    const at = (path: string) => findings.find((f) => f.path === path)?.message;
    for (const [path, allowed] of [
      ['Frontend.extraPodSpec.mainContainer.args[--kv-cache-block-size]', `a positive integer ${INT_BOUND}`],
      ['Frontend.extraPodSpec.mainContainer.args[--router-temperature]', `a number >= 0 ${NUMBER_BOUND}`],
      ['Frontend.extraPodSpec.mainContainer.args[--kv-overlap-score-weight]', `a number >= 0 ${NUMBER_BOUND}`],
      ['VllmWorker.extraPodSpec.mainContainer.args[--tensor-parallel-size]', `a positive integer ${INT_BOUND}`],
      ['VllmWorker.extraPodSpec.mainContainer.args[--block-size]', `a positive integer ${INT_BOUND}`],
      ['Planner.extraPodSpec.mainContainer.args[--max-gpu-budget]', `a whole number of GPUs >= 1 (or -1 for no budget) ${INT_BOUND}`],
      ['Planner.extraPodSpec.mainContainer.args[--min-endpoint]', `a positive integer ${INT_BOUND}`],
      ['Planner.extraPodSpec.mainContainer.args[--ttft]', `a number > 0 ${NUMBER_BOUND}`],
    ]) {
      expect([path, at(path)]).toEqual([path, `must be ${allowed}, got 1e+308`]);
    }
  });

  test("a CRD field of format int32 (a service's replicas) above 2147483647 is a crd-schema finding, as the API server refuses it", () => {
    const huge = manifest.replace('    VllmWorker:\n      componentType: worker\n      replicas: 1', '    VllmWorker:\n      componentType: worker\n      replicas: 1e308');
    expect(huge).not.toBe(manifest);
    const found = lintSources([{ file: 'g.yaml', text: huge }], { crds: lintCrds() }).findings.filter((f) => f.rule === 'crd-schema');
    expect(found.map((f) => f.path)).toContain('VllmWorker.replicas');
    const fits = lintSources([{ file: 'g.yaml', text: manifest.replace('    VllmWorker:\n      componentType: worker\n      replicas: 1', '    VllmWorker:\n      componentType: worker\n      replicas: 2147483647') }], { crds: lintCrds() });
    expect(fits.findings.filter((f) => f.rule === 'crd-schema' && f.path === 'VllmWorker.replicas')).toEqual([]);
  });
});

describe('the model is a Hugging Face id or a path that stays where it points', () => {
  test.each([
    ['../../etc/passwd', "has a '..' segment, which climbs out of the directory it names"],
    ['/models/../../etc/passwd', "has a '..' segment, which climbs out of the directory it names"],
    ['Qwen/Qwen3-0.6B\n--trust-remote-code', 'holds whitespace or control characters'],
    ['Qwen/Qwen3 0.6B', 'holds whitespace or control characters'],
    ['Qwen/\u001b[31mQwen3', 'holds whitespace or control characters'],
    ['Qwen/Qwen3\u202e-0.6B', 'holds whitespace or control characters'],
    ['--trust-remote-code', "starts with '-', which the engine would read as a flag"],
    ['org/name.git', 'is not a Hugging Face model id'],
    ['org/-name', 'is not a Hugging Face model id'],
    ['org/na--me', 'is not a Hugging Face model id'],
    [`org/${'x'.repeat(97)}`, 'is not a Hugging Face model id'],
  ])('%j is refused: %s', (model, why) => {
    const issue = issueAt(issuesOf(() => agg({ model })), 'model');
    expect(issue.rule).toBe('value-format');
    expect(issue.message.startsWith(`${why}; it must be a Hugging Face model id ("org/name"`)).toBe(true);
    // the value is shown escaped: no raw newline or escape character reaches a terminal
    const escaped = JSON.stringify(model).replace(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(issue.message.endsWith(`got ${escaped}`)).toBe(true);
    expect(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/.test(issue.message)).toBe(false);
  });

  test('a URL is refused, and the password in it is not repeated', () => {
    for (const model of ['https://user:s3cr3t@huggingface.co/Qwen/Qwen3-0.6B', 'user:s3cr3t@host:/models/qwen']) {
      const issue = issueAt(issuesOf(() => agg({ model })), 'model');
      expect(issue.rule).toBe('value-format');
      expect(issue.message).toMatch(/^(is a URL|names a host or a scheme before ':')/);
      expect(issue.message).toContain('***@');
      expect(issue.message).not.toContain('s3cr3t');
    }
  });

  test.each(['m', 'Qwen/Qwen3-0.6B', 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1', 'deepseek-ai/DeepSeek-V2-Lite-Chat', 'org_x/model.v2_final', '/models/x', '/opt/models/hub/Qwen3', './models/qwen', 'models/org/qwen'])(
    '%j renders, on the engine command line as given',
    (model) => {
      const args = (agg({ model }).graph as any).spec.components.find((c: any) => c.name === 'VllmWorker').podTemplate.spec.containers[0].args as string[];
      expect(args.slice(0, 2)).toEqual(['--model', model]);
    },
  );

  test('an SLA-planned request checks its model, and AIConfigurator takes a Hugging Face id only', () => {
    const issues = issuesOf(() => planned({ model: '../weights' }));
    expect(issueAt(issues, 'model').message).toMatch(/^has a '\.\.' segment/);
    const aic = issuesOf(() => planned({ model: '/models/qwen', aiConfigurator: { system: 'h200_sxm', backendVersion: '0.12.0', hfId: '/models/qwen' } }, '0.9.0'));
    expect(issueAt(aic, 'aiConfigurator.hfId').message).toMatch(/^is a path; it must be a Hugging Face model id \("org\/name"/);
  });

  test("the model cache's mount path, where HF_HOME points, stays where it says", () => {
    const issue = issueAt(issuesOf(() => agg({ modelCache: { claimName: 'weights', mountPath: '/opt/models/../../etc' } })), 'modelCache.mountPath');
    expect(issue).toEqual({ path: 'modelCache.mountPath', message: 'must be an absolute path without \'..\' segments or control characters, got "/opt/models/../../etc"', rule: 'value-format' });
  });

  test('the served model name carries no control characters', () => {
    const issue = issueAt(issuesOf(() => agg({ servedModelName: 'llm\u001b]0;pwned\u0007' })), 'servedModelName');
    expect(issue).toEqual({ path: 'servedModelName', message: 'holds control characters; it must be a name clients can send, got "llm\\u001b]0;pwned\\u0007"', rule: 'value-format' });
  });
});

describe('non-finite numbers never reach YAML', () => {
  test('NaN and Infinity in a TensorRT-LLM engine config are errors naming the key path', () => {
    const issues = issuesOf(() =>
      disagg({
        backend: Backend.trtllm(),
        prefill: { engineConfig: { kv_cache_config: { free_gpu_memory_fraction: NaN }, max_num_tokens: Infinity } },
        decode: { engineConfig: { cuda_graph_config: { batch_sizes: [1, -Infinity] } } },
      }),
    );
    expect(issues.filter((i) => i.path.includes('engineConfig'))).toEqual([
      { path: 'prefill.engineConfig.kv_cache_config.free_gpu_memory_fraction', message: 'must be a finite number, got NaN: YAML would carry it on as .nan', rule: 'value-range' },
      { path: 'prefill.engineConfig.max_num_tokens', message: 'must be a finite number, got Infinity: YAML would carry it on as .inf', rule: 'value-range' },
      { path: 'decode.engineConfig.cuda_graph_config.batch_sizes[1]', message: 'must be a finite number, got -Infinity: YAML would carry it on as -.inf', rule: 'value-range' },
    ]);
  });

  test('a finite engine config still renders into the ConfigMap', () => {
    const r = disagg({ backend: Backend.trtllm(), prefill: { engineConfig: { kv_cache_config: { free_gpu_memory_fraction: 0.85 } } } });
    const data = Object.values((r.configMaps[0] as any).data)[0] as string;
    expect(data).toContain('free_gpu_memory_fraction: 0.85');
  });

  test('an engine config that contains itself is refused, not a stack overflow', () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    const issues = issuesOf(() => agg({ backend: Backend.trtllm(), workers: { engineConfig: loop } }));
    expect(issueAt(issues, 'workers.engineConfig.self').rule).toBe('value-type');
  });

  test("an SLA request's JobSpec and graph fragments, and chart values, are checked the same way", () => {
    const request = issuesOf(() => planned({ profilingJob: { backoffLimit: NaN }, graphOverride: { components: [{ name: 'Frontend', replicas: Infinity }] } }));
    expect(request.map((i) => i.path)).toEqual(expect.arrayContaining(['profilingJob.backoffLimit', 'graphOverride.components[0].replicas']));
    const chart = () => new Chart(Testing.app(), 'c');
    expect(issueAt(issuesOf(() => new DynamoPlatform(chart(), 'p', { values: { operator: { replicas: NaN } } })), 'values.operator.replicas').message).toBe(
      'must be a finite number, got NaN: YAML would carry it on as .nan',
    );
    const stack = issuesOf(() => new PrometheusStack(chart(), 's', { values: { grafana: { replicas: -Infinity }, prometheus: { service: { port: 70000 } } } }));
    expect(stack).toEqual([
      { path: 'values.grafana.replicas', message: 'must be a finite number, got -Infinity: YAML would carry it on as -.inf', rule: 'value-range' },
      // the planner's query endpoint is built from it
      { path: 'values.prometheus.service.port', message: 'must be a port number (1-65535), got 70000', rule: 'value-range' },
    ]);
  });
});

describe('a component named after an Object property is checked like any other', () => {
  const TOKEN = 'hf_' + 'aBcDeFgHiJkLmNoPqRsTuVwXyZ012345';
  // a worker with a literal token and a tensor parallel size of 0: a finding of the secret rules, and one of the model's
  const v1alpha1 = (name: string) => `apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: { name: g }
spec:
  backendFramework: vllm
  services:
    ${JSON.stringify(name)}:
      componentType: worker
      replicas: 1
      envs:
        - { name: HF_TOKEN, value: ${TOKEN} }
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-0.6B, --tensor-parallel-size, "0"]
`;
  const v1beta1 = (name: string) => `apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: { name: g }
spec:
  backendFramework: vllm
  components:
    - name: ${JSON.stringify(name)}
      type: worker
      replicas: 1
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.1
              command: [python3, -m, dynamo.vllm]
              args: [--model, Qwen/Qwen3-0.6B, --tensor-parallel-size, "0"]
              env:
                - { name: HF_TOKEN, value: ${TOKEN} }
`;

  test.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('%s: its literal token and its flags are checked in both API versions', (name) => {
    const found = (text: string) =>
      lintSources([{ file: 'g.yaml', text }], { crds: lintCrds() })
        .findings.filter((f) => f.rule === 'literal-secret' || f.rule === 'value-range')
        .map((f) => `${f.rule} ${f.path}`)
        .sort();
    expect(found(v1alpha1(name))).toEqual([`literal-secret ${name}.envs[HF_TOKEN]`, `value-range ${name}.extraPodSpec.mainContainer.args[--tensor-parallel-size]`]);
    expect(found(v1beta1(name))).toEqual([
      `literal-secret ${name}.podTemplate.spec.containers[main].env[HF_TOKEN]`,
      `value-range ${name}.podTemplate.spec.containers[main].args[--tensor-parallel-size]`,
    ]);
  });

  test.each(['__proto__', 'constructor', 'toString'])('a service that runs `python3 -m %s` is a program like any other, not an engine', (module) => {
    const service = (name: string, type: string, command: string, args: string) => `    ${name}:
      componentType: ${type}
      replicas: 1
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
          command: [python3, -m, ${command}]
          args: [${args}]
`;
    const graph = (tool: string) => `apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: { name: g }
spec:
  backendFramework: vllm
  services:
${service('Frontend', 'frontend', 'dynamo.frontend', '')}${service('Prefill', 'worker', 'dynamo.vllm', '--model, Qwen/Qwen3-0.6B, --is-prefill-worker')}${service('Decode', 'worker', 'dynamo.vllm', '--model, Qwen/Qwen3-0.6B')}${service('Tool', 'worker', tool, '--verbose')}`;
    const found = (tool: string) => lintSources([{ file: 'g.yaml', text: graph(tool) }], { crds: lintCrds() }).findings.map((f) => `${f.rule} ${f.path}`);
    // an engine module would make Tool an aggregated worker beside prefill and decode (a graph-structure error)
    expect(found(module)).toEqual(found('my_tools.sidecar'));
    expect(found(module).filter((f) => f.startsWith('graph-structure'))).toEqual([]);
  });
});
