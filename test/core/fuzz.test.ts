/**
 * Property-based tests of the engine-neutral core (fast-check, fixed seed).
 *
 * What they guarantee, for disaggregated graphs, aggregated graphs and SLA-planned requests:
 *
 * 1. Any option set, valid or not (wrong types, NaN, negative/zero/fractional numbers, empty strings,
 *    null, unknown keys, malformed Backend/Router/Fabric/LoadPredictor values, options that are not an
 *    object...), either renders or throws a DynamoValidationError, never another exception. A
 *    DynamoValidationError lists at least one issue, each with a non-empty path, message and rule, and
 *    no path or message says "undefined" or "[object Object]" (warnings too). Rendered objects have no holes (undefined/null/NaN/empty values), every
 *    DynamoGraphDeployment / DynamoGraphDeploymentRequest passes Dynamo's CRD schema and every other
 *    object the Kubernetes schema, and rendering the same options twice gives identical JSON.
 * 2. Sensible deployments, kept inside the library's cross-component rules (one block size and one KV
 *    dtype per graph, GPUs >= TP x PP, a KV router on the workers' block size, a planner budget that
 *    covers the graph), always render: no error, CRD-valid, no holes. Warnings are allowed.
 *
 * Exact manifests are asserted by the example-based tests, not here.
 */
import * as fc from 'fast-check';
import {
  aggregatedGraphSpec,
  disaggregatedGraphSpec,
  DynamoValidationError,
  EnvValue,
  Fabric,
  KubeObject,
  LoadPredictor,
  renderGraph,
  renderSlaPlanned,
  Router,
  ValidationIssue,
} from '../../src';
import { crdErrors, isDynamoKind } from '../support/crd';
import { holes, manifestErrors } from '../support/manifests';
import { BACKENDS, BackendName, dictionary, modelId, POD_INFO, sensibleAggregated, sensibleDisaggregated } from '../support/sensible';

const SEED = 20261130;
/** Runs per property; the whole file runs in a few seconds on 2 cores. */
const NUM_RUNS = 500;
const params = (numRuns = NUM_RUNS): fc.Parameters<unknown> => ({ seed: SEED, numRuns });

// ---------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------

/** Mostly `good`, sometimes `bad` (a value of the right type that is still invalid). */
function mostly<T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>, ratio = 40): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: good, weight: ratio }, { arbitrary: bad, weight: 1 });
}

/** Marks an option left out of an options object (unlike an explicit `undefined`). */
const OMIT = Symbol('omit');
/** An option set only now and then: one that easily conflicts with others. */
function rarely<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | typeof OMIT> {
  return fc.oneof({ arbitrary: fc.constant(OMIT), weight: 5 }, { arbitrary: arb, weight: 1 });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Decode takes prefill's block size and KV dtype (set or left out), so that the two usually agree. */
function alignKvSettings(o: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(o.prefill) || !isRecord(o.decode)) return o;
  const kv = (k: string) => k === 'blockSize' || k === 'kvCacheDtype';
  const decode = Object.fromEntries([...Object.entries(o.decode).filter(([k]) => !kv(k)), ...Object.entries(o.prefill).filter(([k]) => kv(k))]);
  return { ...o, decode };
}

/** A value of the wrong kind: wrong types, out-of-range and non-finite numbers, empty strings, null... */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(undefined, null, NaN, Infinity, -Infinity, -1, 0, -0, 0.5, 1.5, 2 ** 53, true, false),
  fc.constantFrom<unknown>('', ' ', 'abc', '4', '-1', '1.5', 'Bad_Name', 'UPPER', '/abs', 'a'.repeat(70)),
  fc.integer({ min: -10, max: 10 }),
  fc.double(),
  fc.string({ maxLength: 6 }).filter((s) => !['undefined', 'null', 'NaN'].includes(s)),
  fc.constantFrom<unknown>([], {}, [1, 'a'], [null], { bogus: 1 }, { name: 5 }, { request: '1' }),
  fc.constantFrom<unknown>(new Date(0), () => 1, 10n, Symbol('junk')),
);

const dnsName = fc.constantFrom('weights', 'hf-token', 'ngc', 'model-cache', 'cfg.v1');
const badName = fc.constantFrom('Bad_Name', '', '-x', 'a'.repeat(260));
const POD_INFO_SUBSET = fc.subarray([...POD_INFO]);
const quantity = fc.constantFrom('4', '500m', '16Gi', '100Gi');
const imageRef = fc.constantFrom('registry.example.com/dynamo/runtime:1.0', 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0');


const graphName = mostly(fc.constantFrom('g', 'llm', 'dynamo-disagg'), fc.constantFrom('', 'Bad_Name', 'x'.repeat(40), 'a'.repeat(64)));
const namespace = mostly(fc.constantFrom(undefined, 'ns', 'dynamo-workloads'), fc.constantFrom('Bad NS', '', 'a'.repeat(64)));

const AIC_SYSTEMS = ['a100_sxm', 'b200_sxm', 'gb200_sxm', 'h100_sxm', 'h200_sxm', 'l40s', 'mi300x'];
const AIC_VERSIONS = ['0.12.0', '0.5.6.post2', '0.5.5.post3', '1.0.0', '1.0.0rc3', '1.0.0rc6', '1.2.0rc5', '9.9.9'];

// ---------------------------------------------------------------------------------------------
// Property 1 generators: anything, valid or not
// ---------------------------------------------------------------------------------------------

/**
 * Option generators for property 1, per option group. A `dirty` family puts junk (wrong types,
 * NaN, null...) in any option and adds unknown keys; a clean family uses values of the right type
 * only, some still invalid (bad names, out-of-range numbers, conflicting options, mismatched
 * workers). Together they produce options that render as well as options that are rejected.
 */
function anyOptions(dirty: boolean) {
  const orJunk = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<T | unknown> => (dirty ? fc.oneof({ arbitrary: good, weight: 14 }, { arbitrary: junk, weight: 1 }) : good);

  /** An options object: every key optional unless `required`, values sometimes junk, sometimes unknown keys. */
  const options = (model: Record<string, fc.Arbitrary<unknown>>, required: string[] = []): fc.Arbitrary<Record<string, unknown>> => {
    const values = Object.fromEntries(Object.entries(model).map(([k, a]) => [k, orJunk(a)]));
    const known = fc
      .record(values, { requiredKeys: required, noNullPrototype: true })
      .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== OMIT)));
    if (!dirty) return known;
    const typos = fc.oneof(
      { arbitrary: fc.constant({}), weight: 25 },
      { arbitrary: dictionary(fc.constantFrom('replica', 'tensorParallelism', 'blocksize', 'gpu', 'extra'), junk, 2, 1), weight: 1 },
    );
    return fc.tuple(known, typos).map(([o, extra]) => ({ ...o, ...extra }));
  };
  /** Something that only looks like a Backend, Router... (dirty only). */
  const orFake = <T>(real: fc.Arbitrary<T>, ...fakes: unknown[]): fc.Arbitrary<T | unknown> =>
    dirty ? fc.oneof({ arbitrary: real, weight: 12 }, { arbitrary: fc.constantFrom(...fakes), weight: 1 }) : real;

  // shared values
  const nameRef = fc.oneof(mostly(dnsName, badName), dnsName.map((name) => ({ name })));
  const envName = mostly(fc.constantFrom('LOG_LEVEL', 'DYN_LOG', 'MY_FLAG', 'NCCL_DEBUG'), fc.constantFrom('1BAD', 'has space', ''));
  const envValue = fc.oneof(
    { arbitrary: fc.constantFrom('debug', '1', 'info', ''), weight: 6 },
    { arbitrary: fc.constantFrom(EnvValue.fromSecret('tokens', 'api'), EnvValue.fromConfigMap('cfg', 'level'), EnvValue.fromFieldRef('status.hostIP')), weight: 3 },
    // EnvValue factories given wrong types
    ...(dirty ? [{ arbitrary: fc.tuple(junk, junk).map(([n, k]) => EnvValue.fromSecret(n as string, k as string)), weight: 1 }] : []),
  );
  const env = dictionary(envName, orJunk(envValue), 3);
  const podInfoEnv = mostly<unknown[]>(POD_INFO_SUBSET, fc.constantFrom(['POD_UID', 'POD_UID'], ['POD_HOST']));
  const stringMap = dictionary(fc.constantFrom('team', 'app.kubernetes.io/part-of', 'tier'), orJunk(fc.constantFrom('ml', 'llm', '')), 2);
  const quantityRange = options({ request: mostly(quantity, fc.constant('lots')), limit: quantity });
  const resources = options({ cpu: quantityRange, memory: quantityRange });
  const toleration = options({
    key: fc.constantFrom('nvidia.com/gpu', 'dedicated'),
    // a value goes with Equal, not with Exists
    operatorValue: mostly<[string, string | typeof OMIT]>(fc.constantFrom(['Exists', OMIT], ['Equal', 'gpu']), fc.constantFrom(['Exists', 'gpu'], ['Maybe', OMIT])),
    effect: fc.constantFrom('NoSchedule', 'PreferNoSchedule', 'NoExecute'),
    tolerationSeconds: fc.integer({ min: 0, max: 600 }),
  }).map(({ operatorValue, ...t }) => (Array.isArray(operatorValue) ? { ...t, operator: operatorValue[0], ...(operatorValue[1] === OMIT ? {} : { value: operatorValue[1] }) } : { ...t, operator: operatorValue }));
  const tolerations = fc.array(orJunk(toleration), { maxLength: 2 });
  const nodeSelector = dictionary(fc.constantFrom('nvidia.com/gpu.product', 'pool'), orJunk(fc.constantFrom('H100', 'gpu')), 2);
  const url = mostly(fc.constantFrom('http://prometheus.monitoring.svc:9090', 'https://prom.example.com'), fc.constantFrom('ftp://x', 'not a url'));
  const dynamoVersion = mostly(fc.constantFrom('0.9.0', '0.8.1', '0.9.1', '0.9.0.post1'), fc.constantFrom('1.0.0', '0.9', 'latest'));
  const ratio = (max: number) => fc.integer({ min: 0, max: 100 * max }).map((n) => n / 100);

  const backend = orFake(
    fc
      .tuple(
        fc.constantFrom<BackendName>('vllm', 'sglang', 'trtllm'),
        fc.option(options({ image: rarely(imageRef), cuda: rarely(mostly(fc.constantFrom(12, 13), fc.constant(11))) }), { nil: undefined, freq: 2 }),
      )
      .map(([name, o]) => BACKENDS[name](o as never)),
    'vllm',
    { name: 'vllm' },
    null,
  );

  const fabric = orFake(
    fc.oneof(
      {
        arbitrary: fc
          .option(
            options({
              resourceName: mostly(fc.constantFrom('rdma/hca_shared_devices', 'rdma/ib'), fc.constant('Not A Resource!')),
              deviceCount: fc.integer({ min: 1, max: 8 }),
              ipcLock: rarely(fc.boolean()),
              ucxTls: fc.constantFrom('rc,cuda_copy', 'rc_x,rc,dc_x,dc,cuda_copy,cuda_ipc'),
              ucxRndvScheme: fc.constantFrom('get_zcopy', 'put_zcopy'),
              ucxRndvThresh: fc.constantFrom('0', '8192'),
              env,
            }),
            { nil: undefined, freq: 2 },
          )
          .map((o) => Fabric.rdma(o as never)),
        weight: 5,
      },
      {
        arbitrary: fc
          .option(
            options({
              resourceName: mostly(fc.constant('vpc.amazonaws.com/efa'), fc.constant('bad resource')),
              deviceCount: fc.integer({ min: 1, max: 32 }),
              ipcLock: rarely(fc.boolean()),
              shmTransfer: fc.boolean(),
              env,
            }),
            { nil: undefined, freq: 2 },
          )
          .map((o) => Fabric.efa(o as never)),
        weight: 5,
      },
      { arbitrary: fc.constant(Fabric.tcp()), weight: 2 },
    ),
    'rdma',
    { kind: 'rdma' },
    null,
  );

  const kvRouter = options({
    overlapScoreWeight: ratio(2),
    temperature: ratio(1),
    kvEvents: fc.boolean(),
    blockSize: fc.constantFrom(16, 32),
    activeDecodeBlocksThreshold: mostly(ratio(1), fc.constant(1.5)),
    activePrefillTokensThreshold: fc.integer({ min: 1, max: 100000 }),
    replicaSync: fc.boolean(),
    // only without KV events
    ttlSeconds: rarely(fc.integer({ min: 1, max: 600 })),
    maxTreeSize: rarely(fc.integer({ min: 1, max: 1 << 20 })),
    pruneTargetRatio: rarely(ratio(1).filter((r) => r > 0)),
  });
  const router = orFake(
    fc.oneof(fc.constantFrom(Router.roundRobin(), Router.random()), fc.option(kvRouter, { nil: undefined, freq: 2 }).map((o) => Router.kv(o as never))),
    'kv',
    { mode: 'kv' },
    null,
  );

  const frontend = options({
    replicas: fc.integer({ min: 0, max: 3 }),
    router,
    httpPort: mostly(fc.constantFrom(8000, 8080), fc.constant(70000)),
    env,
    podInfoEnv,
    resources,
  });

  const worker = options({
    replicas: fc.integer({ min: 0, max: 4 }),
    tensorParallelSize: fc.integer({ min: 1, max: 8 }),
    pipelineParallelSize: fc.integer({ min: 1, max: 2 }),
    gpus: rarely(fc.integer({ min: 1, max: 16 })),
    nodeCount: rarely(rarely(mostly(fc.constant(2), fc.constantFrom(3, 4), 2))),
    maxNumSeqs: fc.integer({ min: 1, max: 1024 }),
    maxModelLen: fc.constantFrom(4096, 32768),
    kvCacheDtype: rarely(mostly(fc.constant('fp8'), fc.constant('auto'), 4)),
    blockSize: rarely(mostly(fc.constant(32), fc.constantFrom(16, 1, 12), 4)),
    sharedMemory: mostly<string | false>(fc.constantFrom<string | false>('16Gi', '32Gi', false), fc.constant('lots')),
    extraArgs: mostly<string[]>(fc.constantFrom(['--enforce-eager'], ['--disable-log-requests']), fc.constantFrom(['--is-decode-worker'], ['--kv-transfer-config', '{}'], [''], ['--model', 'x'])),
    env,
    resources,
    serviceName: rarely(mostly(fc.constantFrom('pf', 'dc', 'w1'), fc.constantFrom('Bad_Name', 'Frontend', 'a'.repeat(64)), 4)),
    podInfoEnv,
    nodeSelector,
    tolerations,
    // TensorRT-LLM only
    engineConfig: rarely(rarely(mostly<unknown>(fc.constantFrom({ kv_cache_config: { free_gpu_memory_fraction: 0.85 } }, { enable_chunked_prefill: true }), fc.constant({ tensor_parallel_size: 2 }), 4))),
  });

  const loadPredictor = orFake(
    fc.oneof(
      fc.constant(LoadPredictor.constant()),
      options({ log1p: fc.boolean() }).map((o) => LoadPredictor.arima(o as never)),
      options({ qLevel: fc.constantFrom(0.1, 1), qTrend: fc.constantFrom(0.01, 0.5), r: fc.constantFrom(1, 2), minPoints: fc.integer({ min: 1, max: 10 }) }, ['qLevel', 'qTrend', 'r']).map((o) =>
        LoadPredictor.kalman(o as never),
      ),
      options({ windowSize: fc.integer({ min: 1, max: 2000 }), log1p: fc.boolean() }, ['windowSize']).map((o) => LoadPredictor.prophet(o as never)),
    ),
    'arima',
    { kind: 'kalman' },
  );

  const plannerBase = {
    minEndpoint: fc.integer({ min: 1, max: 2 }),
    maxGpuBudget: fc.integer({ min: 1, max: 64 }),
    adjustmentIntervalSeconds: fc.integer({ min: 1, max: 600 }),
    loadPredictor,
  };
  const graphPlanner = options(
    {
      ...plannerBase,
      ttftMs: fc.integer({ min: 1, max: 2000 }),
      itlMs: fc.integer({ min: 1, max: 200 }),
      prometheusEndpoint: fc.oneof(url, url.map((queryEndpoint) => ({ queryEndpoint }))),
      profileResultsConfigMap: dnsName,
      image: imageRef,
      env,
      podInfoEnv,
    },
    ['ttftMs', 'itlMs'],
  );

  const graph = {
    model: modelId,
    backend,
    dynamoVersion,
    servedModelName: fc.constantFrom('llm', 'org/model'),
    image: rarely(imageRef),
    imagePullPolicy: mostly(fc.constantFrom('Always', 'IfNotPresent', 'Never'), fc.constant('Sometimes')),
    imagePullSecrets: fc.array(orJunk(nameRef), { maxLength: 2 }),
    hfTokenSecret: nameRef,
    modelCache: options({ claimName: mostly(dnsName, badName), mountPath: mostly(fc.constant('/opt/models'), fc.constant('relative/path')) }, ['claimName', 'mountPath']),
    fabric,
    env,
    trustRemoteCode: fc.boolean(),
    podInfoEnv,
    labels: stringMap,
    annotations: stringMap,
  };

  /** Options, or (dirty, rarely) something that is not an options object at all. */
  const orNotAnObject = (arb: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> =>
    dirty ? fc.oneof({ arbitrary: arb, weight: 40 }, { arbitrary: fc.constantFrom<unknown>(undefined, null, 'options', []), weight: 1 }) : arb;

  const disaggregated = orNotAnObject(
    fc
      .tuple(options({ ...graph, frontend, prefill: worker, decode: worker, planner: rarely(graphPlanner) }, ['model', 'backend', 'prefill', 'decode']), mostly(fc.constant(true), fc.constant(false), 4))
      .map(([o, agree]) => (agree ? alignKvSettings(o) : o)),
  );
  const aggregated = orNotAnObject(options({ ...graph, frontend, workers: worker }, ['model', 'backend', 'workers']));

  const slaPlanned = orNotAnObject(
    options(
      {
        model: modelId,
        backend,
        dynamoVersion,
        sla: options(
          { isl: fc.integer({ min: 1, max: 8000 }), osl: fc.integer({ min: 1, max: 2000 }), ttftMs: fc.integer({ min: 1, max: 2000 }), itlMs: fc.integer({ min: 1, max: 200 }) },
          ['isl', 'osl', 'ttftMs', 'itlMs'],
        ),
        profilerImage: imageRef,
        aiConfigurator: rarely(options({ system: fc.constantFrom(...AIC_SYSTEMS), backendVersion: fc.constantFrom(...AIC_VERSIONS), hfId: modelId }, ['system', 'backendVersion'])),
        // a request's planner: graph-only keys (ttftMs, image) are occasionally set, and rejected
        planner: options({ ...plannerBase, ttftMs: rarely(rarely(fc.constant(300))), image: rarely(rarely(imageRef)) }),
        autoApply: fc.boolean(),
        deploymentOverrides: options({
          name: mostly(fc.constantFrom('gen', 'vllm-disagg'), badName),
          namespace: fc.constantFrom('serving', 'ns'),
          labels: stringMap,
          annotations: stringMap,
          workersImage: imageRef,
        }),
        deployMocker: fc.boolean(),
        enableGpuDiscovery: mostly(fc.constant(false), fc.constant(true)),
        hardware: options({ minGpusPerEngine: fc.integer({ min: 1, max: 4 }), maxGpusPerEngine: fc.integer({ min: 2, max: 8 }), gpusPerNode: fc.constantFrom(4, 8) }),
        modelCache: options({ claimName: dnsName, mountPath: fc.constantFrom('/opt/models', '/models') }, ['claimName', 'mountPath']),
        outputPvc: nameRef,
        configMapRef: options({ name: nameRef, key: fc.constantFrom('disagg.yaml', 'agg.yaml') }, ['name']),
        resources,
        tolerations,
        labels: stringMap,
        annotations: stringMap,
      },
      ['model', 'backend', 'sla'],
    ),
  );

  return { disaggregated, aggregated, slaPlanned };
}

const cleanOptions = anyOptions(false);
const dirtyOptions = anyOptions(true);
const anyDisaggregated = fc.oneof(cleanOptions.disaggregated, dirtyOptions.disaggregated);
const anyAggregated = fc.oneof(cleanOptions.aggregated, dirtyOptions.aggregated);
const anySlaPlanned = fc.oneof(cleanOptions.slaPlanned, dirtyOptions.slaPlanned);

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

interface Rendered {
  readonly objects: readonly KubeObject[];
  readonly warnings: readonly ValidationIssue[];
}

const renderDisaggregated = (name: string, ns: string | undefined, o: unknown): Rendered => {
  const r = renderGraph(disaggregatedGraphSpec(name, ns, o as never));
  return { objects: [r.graph, ...r.configMaps], warnings: r.warnings };
};
const renderAggregated = (name: string, ns: string | undefined, o: unknown): Rendered => {
  const r = renderGraph(aggregatedGraphSpec(name, ns, o as never));
  return { objects: [r.graph, ...r.configMaps], warnings: r.warnings };
};
const renderRequest = (name: string, ns: string | undefined, o: unknown): Rendered => {
  const r = renderSlaPlanned(name, ns, o as never);
  return { objects: [r.object, ...r.observability], warnings: r.warnings };
};

/** Every issue (error or warning) names a path, says what is wrong and has a rule id. */
function expectWellFormed(issues: readonly ValidationIssue[]): void {
  for (const i of issues as readonly { path: unknown; message: unknown; rule: unknown }[]) {
    const where = JSON.stringify(i);
    if (typeof i.path !== 'string' || i.path === '') throw new Error(`issue without a path: ${where}`);
    if (typeof i.message !== 'string' || i.message.trim() === '') throw new Error(`issue without a message: ${where}`);
    if (typeof i.rule !== 'string' || i.rule === '') throw new Error(`issue without a rule: ${where}`);
    if (/undefined|\[object Object\]/.test(i.message + i.path)) throw new Error(`issue path or message leaks "undefined" or "[object Object]": ${where}`);
  }
}

/** No holes, and schema-valid: Dynamo kinds against the CRDs, core kinds against Kubernetes'. */
function expectValidObjects(objects: readonly KubeObject[]): void {
  for (const o of objects) {
    expect(holes(o, o.kind)).toEqual([]);
    expect(isDynamoKind(o) ? crdErrors(o) : manifestErrors(o)).toEqual([]);
  }
}

/** JSON of anything a render returns (a BigInt the library let through still compares). */
const json = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** Renders once: the objects, or the DynamoValidationError. Any other exception fails the property. */
function attempt(render: () => Rendered): { rendered: Rendered } | { error: DynamoValidationError } {
  try {
    return { rendered: render() };
  } catch (e) {
    if (e instanceof DynamoValidationError) return { error: e };
    throw e;
  }
}

/** What a render produced, as JSON: the objects and warnings, or the issues. */
function outcomeJson(o: ReturnType<typeof attempt>): string {
  return 'error' in o ? json({ issues: o.error.issues }) : json(o.rendered);
}

/** Property 1 for one renderer; returns how many inputs rendered and how many were rejected. */
function checkAnyOptions(render: (name: string, ns: string | undefined, o: unknown) => Rendered, options: fc.Arbitrary<unknown>) {
  const tally = { rendered: 0, rejected: 0 };
  fc.assert(
    fc.property(graphName, namespace, options, (name, ns, o) => {
      const first = attempt(() => render(name, ns, o));
      if ('error' in first) {
        expect(first.error.issues.length).toBeGreaterThan(0);
        expectWellFormed(first.error.issues);
        tally.rejected++;
      } else {
        expectValidObjects(first.rendered.objects);
        expectWellFormed(first.rendered.warnings);
        tally.rendered++;
      }
      // deterministic: the same options render the same JSON (or the same issues)
      expect(outcomeJson(attempt(() => render(name, ns, o)))).toBe(outcomeJson(first));
    }),
    params(),
  );
  return tally;
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

describe('property 1: any options render valid objects or throw DynamoValidationError', () => {
  // The tallies check the generators: each must produce options that render as well as ones that do not.
  test('disaggregated graphs', () => {
    const tally = checkAnyOptions(renderDisaggregated, anyDisaggregated);
    expect(tally.rendered).toBeGreaterThan(NUM_RUNS / 20);
    expect(tally.rejected).toBeGreaterThan(NUM_RUNS / 20);
  });

  test('aggregated graphs', () => {
    const tally = checkAnyOptions(renderAggregated, anyAggregated);
    expect(tally.rendered).toBeGreaterThan(NUM_RUNS / 20);
    expect(tally.rejected).toBeGreaterThan(NUM_RUNS / 20);
  });

  test('SLA-planned requests', () => {
    const tally = checkAnyOptions(renderRequest, anySlaPlanned);
    expect(tally.rendered).toBeGreaterThan(NUM_RUNS / 20);
    expect(tally.rejected).toBeGreaterThan(NUM_RUNS / 20);
  });
});

describe('property 2: sensible deployments are accepted', () => {
  const names = fc.constantFrom('g', 'llm', 'dynamo-disagg');
  const namespaces = fc.constantFrom(undefined, 'dynamo-workloads');

  test('disaggregated', () => {
    fc.assert(
      fc.property(names, namespaces, sensibleDisaggregated, (name, ns, o) => {
        expectValidObjects(renderDisaggregated(name, ns, o).objects);
      }),
      params(),
    );
  });

  test('aggregated', () => {
    fc.assert(
      fc.property(names, namespaces, sensibleAggregated, (name, ns, o) => {
        expectValidObjects(renderAggregated(name, ns, o).objects);
      }),
      params(),
    );
  });
});

