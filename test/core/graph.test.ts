import { Backend, EnvValue, Fabric, GRAPH_OPTION_KEYS, Router } from '../../src/core/internal';
import { container, envOf, flagValue, issuesOf, renderAgg, renderDisagg, services } from './helpers';

const MODEL = 'org/model-70b';
const cache = { claimName: 'weights', mountPath: '/models' };

describe('fabric', () => {
  test('RDMA: device request (count = GPUs per worker pod), IPC_LOCK and UCX env on workers only', () => {
    const r = renderDisagg({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: { tensorParallelSize: 2 }, decode: { tensorParallelSize: 8 } });
    expect(container(r, 'VllmPrefillWorker').resources).toEqual({ limits: { 'rdma/hca_shared_devices': '2' }, requests: { 'rdma/hca_shared_devices': '2' } });
    expect(container(r, 'VllmDecodeWorker').resources.limits['rdma/hca_shared_devices']).toBe('8');
    expect(container(r, 'VllmDecodeWorker').securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { add: ['IPC_LOCK'], drop: ['ALL'] } });
    expect(envOf(r, 'VllmDecodeWorker')).toMatchObject({ UCX_TLS: 'rc_x,rc,dc_x,dc,cuda_copy,cuda_ipc', UCX_RNDV_SCHEME: 'get_zcopy', UCX_RNDV_THRESH: '0' });
    const frontend = container(r, 'Frontend');
    expect(frontend.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(frontend.resources).toBeUndefined();
    expect(Object.keys(envOf(r, 'Frontend')).some((n) => n.startsWith('UCX_'))).toBe(false);
  });

  test('each part of RDMA is overridable', () => {
    const r = renderDisagg({
      model: MODEL,
      backend: Backend.vllm(),
      fabric: Fabric.rdma({ resourceName: 'rdma/ib', deviceCount: 1, ucxTls: 'rc,cuda_copy', env: { UCX_IB_GID_INDEX: '3', UCX_RNDV_THRESH: '8192' } }),
      prefill: { tensorParallelSize: 4 },
      decode: {},
    });
    expect(container(r, 'VllmPrefillWorker').resources.limits).toEqual({ 'rdma/ib': '1' });
    // IPC_LOCK always comes with the device: NIXL cannot register memory without it
    expect(container(r, 'VllmPrefillWorker').securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { add: ['IPC_LOCK'], drop: ['ALL'] } });
    expect(services(r).VllmPrefillWorker.envs.filter((e: any) => e.name.startsWith('UCX_'))).toEqual([
      { name: 'UCX_TLS', value: 'rc,cuda_copy' },
      { name: 'UCX_RNDV_SCHEME', value: 'get_zcopy' },
      { name: 'UCX_RNDV_THRESH', value: '8192' },
      { name: 'UCX_IB_GID_INDEX', value: '3' },
    ]);
  });

  test('EFA: device request, libfabric env with shm transfer off; shm can be turned back on', () => {
    const r = renderDisagg({ model: MODEL, backend: Backend.sglang(), fabric: Fabric.efa(), prefill: {}, decode: { tensorParallelSize: 2 } });
    expect(container(r, 'decode').resources.requests).toEqual({ 'vpc.amazonaws.com/efa': '2' });
    expect(envOf(r, 'decode').FI_EFA_ENABLE_SHM_TRANSFER).toBe('0');
    const shm = renderDisagg({ model: MODEL, backend: Backend.sglang(), fabric: Fabric.efa({ shmTransfer: true }), prefill: {}, decode: {} });
    expect(envOf(shm, 'decode').FI_EFA_ENABLE_SHM_TRANSFER).toBeUndefined();
  });

  test('TCP adds nothing, and disaggregation over it is a warning', () => {
    const r = renderDisagg({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.tcp(), prefill: {}, decode: {} });
    expect(container(r, 'VllmPrefillWorker').securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(r.warnings.map((w) => w.rule)).toContain('disaggregated-tcp');
    expect(r.warnings.find((w) => w.rule === 'disaggregated-tcp')!.message).toMatch(/TTFT ~40x worse/);
    const unset = renderDisagg({ model: MODEL, backend: Backend.vllm(), prefill: {}, decode: {} });
    expect(unset.warnings.find((w) => w.rule === 'disaggregated-tcp')!.path).toBe('fabric');
    const rdma = renderDisagg({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {} });
    expect(rdma.warnings).toEqual([]);
  });

  test('multinode: GPUs split per node, device count per pod', () => {
    const r = renderDisagg({ model: MODEL, backend: Backend.sglang(), fabric: Fabric.rdma(), prefill: {}, decode: { tensorParallelSize: 16, nodeCount: 2 } });
    expect(services(r).decode.multinode).toEqual({ nodeCount: 2 });
    expect(services(r).decode.resources.limits.gpu).toBe('8');
    expect(container(r, 'decode').resources.limits['rdma/hca_shared_devices']).toBe('8');
  });
});

describe('model cache, environment and images', () => {
  const r = renderDisagg({
    model: MODEL,
    backend: Backend.vllm(),
    fabric: Fabric.rdma(),
    modelCache: cache,
    hfTokenSecret: { name: 'hf-token' },
    imagePullSecrets: ['ngc', { name: 'mirror' }],
    env: { LOG_LEVEL: 'debug' },
    prefill: { env: { HF_HOME: '/elsewhere', TOKEN: EnvValue.fromSecret('tokens', 'api') } },
    decode: {},
  });

  test('the cache is listed once in spec.pvcs (create: false) and mounted with HF_HOME on frontend and workers', () => {
    expect((r.graph as any).spec.pvcs).toEqual([{ name: 'weights', create: false }]);
    for (const s of ['Frontend', 'VllmPrefillWorker', 'VllmDecodeWorker']) {
      expect(services(r)[s].volumeMounts).toEqual([{ name: 'weights', mountPoint: '/models' }]);
    }
    expect(envOf(r, 'Frontend').HF_HOME).toBe('/models');
  });

  test('pod fields on every service by default, in the order of guide 1 step 9', () => {
    expect(services(r).Frontend.envs.map((e: any) => e.name)).toEqual(['HF_HOME', 'POD_UID', 'POD_NAME', 'POD_NAMESPACE', 'POD_IP']);
    expect(envOf(r, 'VllmDecodeWorker').POD_IP).toEqual({ fieldRef: { fieldPath: 'status.podIP' } });
  });

  test('a service variable replaces a generated one in place; graph env goes to spec.envs', () => {
    const names = services(r).VllmPrefillWorker.envs.map((e: any) => e.name);
    expect(names[0]).toBe('HF_HOME');
    expect(envOf(r, 'VllmPrefillWorker').HF_HOME).toBe('/elsewhere');
    expect(envOf(r, 'VllmPrefillWorker').TOKEN).toEqual({ secretKeyRef: { name: 'tokens', key: 'api' } });
    expect((r.graph as any).spec.envs).toEqual([{ name: 'LOG_LEVEL', value: 'debug' }]);
  });

  test('the HF token Secret is referenced by workers only; pull secrets on every pod', () => {
    expect(services(r).VllmPrefillWorker.envFromSecret).toBe('hf-token');
    expect(services(r).Frontend.envFromSecret).toBeUndefined();
    for (const s of ['Frontend', 'VllmPrefillWorker']) {
      expect(services(r)[s].extraPodSpec.imagePullSecrets).toEqual([{ name: 'ngc' }, { name: 'mirror' }]);
      expect(container(r, s).imagePullPolicy).toBe('IfNotPresent');
    }
  });

  test('worker pod settings: resources, shared memory, node selection', () => {
    const w = renderAgg({
      model: MODEL,
      backend: Backend.vllm(),
      imagePullPolicy: 'Always',
      image: 'registry.local/vllm:custom',
      podInfoEnv: [],
      workers: {
        replicas: 0,
        sharedMemory: false,
        resources: { cpu: { request: '8', limit: '16' }, memory: { limit: '64Gi' } },
        nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' },
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      },
    });
    const s = services(w).VllmWorker;
    expect(s.replicas).toBe(0);
    expect(s.sharedMemory).toEqual({ disabled: true });
    expect(s.resources).toEqual({ requests: { cpu: '8' }, limits: { gpu: '1', cpu: '16', memory: '64Gi' } });
    expect(s.extraPodSpec.nodeSelector).toEqual({ 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' });
    expect(s.extraPodSpec.tolerations).toEqual([{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(s.envs).toBeUndefined();
    expect(container(w, 'VllmWorker')).toMatchObject({ image: 'registry.local/vllm:custom', imagePullPolicy: 'Always' });
  });
});

describe('router', () => {
  test('every KV router parameter becomes its frontend flag', () => {
    const r = renderAgg({
      model: MODEL,
      backend: Backend.vllm(),
      frontend: {
        replicas: 2,
        router: Router.kv({
          overlapScoreWeight: 0.7,
          temperature: 0.3,
          blockSize: 16,
          activeDecodeBlocksThreshold: 0.9,
          activePrefillTokensThreshold: 2000,
          replicaSync: true,
        }),
      },
      workers: {},
    });
    expect(container(r, 'Frontend').command).toEqual(['python3', '-m', 'dynamo.frontend']);
    expect(container(r, 'Frontend').args).toEqual([
      '--router-mode', 'kv',
      '--kv-overlap-score-weight', '0.7',
      '--router-temperature', '0.3',
      '--kv-cache-block-size', '16',
      '--active-decode-blocks-threshold', '0.9',
      '--active-prefill-tokens-threshold', '2000',
      '--router-replica-sync',
    ]);
    expect(r.warnings).toEqual([]);
  });

  test('prediction mode flags; the router announces the workers\' block size', () => {
    const r = renderAgg({
      model: MODEL,
      backend: Backend.vllm(),
      frontend: { router: Router.kv({ kvEvents: false, ttlSeconds: 60, maxTreeSize: 1048576, pruneTargetRatio: 0.5 }) },
      workers: { blockSize: 32 },
    });
    const args = container(r, 'Frontend').args;
    expect(flagValue(args, '--kv-cache-block-size')).toBe('32');
    expect(args).toEqual(expect.arrayContaining(['--no-kv-events', '--router-ttl', '60', '--router-max-tree-size', '1048576', '--router-prune-target-ratio', '0.5']));
  });

  test('round-robin leaves the operator\'s frontend command alone; random sets the mode', () => {
    const rr = renderAgg({ model: MODEL, backend: Backend.vllm(), workers: {} });
    expect(container(rr, 'Frontend').command).toBeUndefined();
    expect(container(rr, 'Frontend').args).toBeUndefined();
    const random = renderAgg({ model: MODEL, backend: Backend.vllm(), frontend: { router: Router.random() }, workers: {} });
    expect(container(random, 'Frontend').args).toEqual(['--router-mode', 'random']);
  });

  test('several KV-routed frontends without replica sync is a warning', () => {
    const r = renderAgg({ model: MODEL, backend: Backend.vllm(), frontend: { replicas: 3, router: Router.kv() }, workers: {} });
    expect(r.warnings.map((w) => `${w.path} [${w.rule}]`)).toEqual(['frontend.router.replicaSync [router-replica-sync]']);
  });
});

describe('validation', () => {
  test('lists every problem at once, each with its path, the value and what is allowed', () => {
    const issues = issuesOf(() =>
      renderDisagg({
        model: MODEL,
        backend: Backend.vllm(),
        fabric: Fabric.rdma({ deviceCount: 0 }),
        frontend: { replicas: -1, router: Router.kv({ temperature: -1, activeDecodeBlocksThreshold: 1.5 }) },
        prefill: { tensorParallelSize: 0, maxNumSeqs: 2.5 },
        decode: { replicas: 1.5, sharedMemory: 'lots', gpus: 2, tensorParallelSize: 4 },
      }),
    );
    expect(issues).toEqual([
      'fabric.deviceCount: must be a positive integer, got 0',
      'frontend.replicas: must be a whole number >= 0, got -1',
      'frontend.router.temperature: must be a number >= 0, got -1',
      'frontend.router.activeDecodeBlocksThreshold: must be a number between 0 and 1, got 1.5',
      'prefill.tensorParallelSize: must be a positive integer, got 0',
      'prefill.maxNumSeqs: must be a positive integer, got 2.5',
      'decode.replicas: must be a whole number >= 0, got 1.5',
      'decode.sharedMemory: must be a Kubernetes quantity such as "16Gi" or "500m", got "lots"',
      // found by the rules on a draft of the graph, in the same error
      'decode.gpus: is 2, fewer than the 4 GPUs each engine\'s parallelism needs (tensor 4); give each engine at least 4 GPUs',
    ]);
  });

  test('required options and unknown options are reported, never ignored', () => {
    const issues = issuesOf(() => renderDisagg({ backend: Backend.vllm(), prefill: { replica: 2 }, workers: {} } as any));
    expect(issues).toEqual([
      `workers: is not a known option; known options are ${[...GRAPH_OPTION_KEYS, 'frontend', 'prefill', 'decode', 'planner', 'observability'].join(', ')}`,
      'model: is required: a non-empty string',
      expect.stringMatching(/^prefill\.replica: is not a known option \(did you mean replicas\?\); known options are replicas, tensorParallelSize, /),
      'decode: is required: the decode worker pool, e.g. { replicas: 1, tensorParallelSize: 1 }',
    ]);
  });

  test('unsupported Dynamo releases and unavailable images name what is supported', () => {
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm(), dynamoVersion: '1.3.1', workers: {} }))).toEqual([
      'dynamoVersion: Dynamo "1.3.1" is not supported; supported releases are 0.8.x, 0.9.x, 1.4.x, 1.5.x, 1.6.x (e.g. "1.6.1")',
    ]);
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm({ cuda: 13 }), dynamoVersion: '0.8.1', workers: {} }))).toEqual([
      'backend: the default image vllm-runtime:0.8.1-cuda13 fails to launch (known issue in the Dynamo 0.8.1 release notes); use the CUDA 12 image or 0.9.0-cuda13',
    ]);
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.trtllm({ cuda: 12 }), workers: {} }))).toEqual([
      'backend.cuda: tensorrtllm-runtime images of Dynamo 0.9.x are published for CUDA 13, got 12',
    ]);
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm({ image: 'a' }), image: 'b', workers: {} }))).toEqual([
      'image: is set, and so is backend\'s image "a"; set only one',
    ]);
  });

  test('cross-component rules: block sizes, KV cache dtypes, option conflicts', () => {
    expect(
      issuesOf(() =>
        renderDisagg({
          model: MODEL,
          backend: Backend.vllm(),
          fabric: Fabric.rdma(),
          frontend: { router: Router.kv({ blockSize: 16, ttlSeconds: 30 }) },
          prefill: { blockSize: 32, kvCacheDtype: 'fp8', engineConfig: { a: 1 } },
          decode: { blockSize: 32 },
        }),
      ),
    ).toEqual([
      'frontend.router.ttlSeconds: only applies when the router predicts cache state without KV events; got 30 with kvEvents on. Set kvEvents: false, or remove ttlSeconds',
      'prefill.engineConfig: applies only to Backend.trtllm(); a vllm worker takes engine flags in extraArgs',
      'frontend.router.blockSize: is 16, but VllmPrefillWorker runs block size 32; the router computes prefill cost in the workers\' blocks, so they must match (guide 3)',
      'prefill.kvCacheDtype: is fp8 on VllmPrefillWorker but auto (the default) on VllmDecodeWorker; the KV cache is transferred as is, so prefill and decode must use one dtype',
    ]);
    expect(
      issuesOf(() => renderDisagg({ model: MODEL, backend: Backend.sglang(), fabric: Fabric.rdma(), prefill: {}, decode: { blockSize: 64 } })),
    ).toEqual(['decode.blockSize: is 64, but prefill runs 16; all workers of a graph must use one KV block size']);
  });

  test('extra args may not repeat a flag rendered from an option', () => {
    expect(
      issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm(), workers: { extraArgs: ['--enforce-eager', '--tensor-parallel-size=2', '--max-num-seqs', '8'] } })),
    ).toEqual([
      'workers.extraArgs[1]: sets --tensor-parallel-size, which the library renders from the graph and worker options; set the option instead',
    ]);
    const ok = renderAgg({ model: MODEL, backend: Backend.vllm(), workers: { extraArgs: ['--enforce-eager', '--max-num-seqs', '8'] } });
    expect(container(ok, 'VllmWorker').args.slice(-3)).toEqual(['--enforce-eager', '--max-num-seqs', '8']);
  });

  test('multinode GPUs must split evenly; names must be valid', () => {
    expect(
      issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm(), workers: { gpus: 8, nodeCount: 3, serviceName: 'vllm_worker' } }, 'My-Graph', 'ns')),
    ).toEqual([
      'name: must be a DNS-1123 label (lowercase letters, digits and \'-\', starting and ending with a letter or digit, at most 63 characters), got "My-Graph"; pass `name` to choose the DynamoGraphDeployment name',
      'workers.serviceName: must start with a letter and contain only letters, digits and \'-\' (at most 63 characters), got "vllm_worker"',
      'workers.nodeCount: is 3, which does not divide the worker\'s 8 GPUs evenly; each node runs the same number of GPUs',
    ]);
  });

  test('Grove\'s 45-character pod name budget: graph name + service name (twice for multinode)', () => {
    const name = 'a-rather-long-deployment-name-of-32';
    expect(
      issuesOf(() => renderDisagg({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {} }, name)),
    ).toEqual([
      'prefill: names pods with 52 characters: graph name "a-rather-long-deployment-name-of-32" (35) + service "vllmprefillworker" (17); Grove allows 45. Shorten the graph name or the service name',
      'decode: names pods with 51 characters: graph name "a-rather-long-deployment-name-of-32" (35) + service "vllmdecodeworker" (16); Grove allows 45. Shorten the graph name or the service name',
    ]);
    expect(() => renderDisagg({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: { serviceName: 'prefill' }, decode: { serviceName: 'decode' } }, name)).not.toThrow();
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.sglang(), workers: { tensorParallelSize: 16, nodeCount: 2, serviceName: 'decode-pool' } }, 'llama-3-70b-instruct'))).toEqual([
      'workers: names pods with 46 characters: graph name "llama-3-70b-instruct" (20) + service "decode-pool" (11) + "decode-pool-ldr" (15) of this multinode worker; Grove allows 45. Shorten the graph name or the service name',
    ]);
  });

  test('a model cache given as a plain object is checked like a ModelCache', () => {
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm(), modelCache: { claimName: 'Bad_Name', mountPath: 'models' }, workers: {} }))).toEqual([
      'modelCache.claimName: must be a DNS-1123 subdomain (lowercase letters, digits, \'-\' and \'.\', at most 253 characters), got "Bad_Name"',
      'modelCache.mountPath: must be an absolute path, got "models"',
    ]);
  });

  test('resources in the DGD\'s own shape are an error, not silently dropped', () => {
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm(), workers: { resources: { cpu: '8', memory: '40Gi' } as any } }))).toEqual([
      'workers.resources.cpu: must be { request?, limit? }, e.g. { request: "8", limit: "8" }, got "8"',
      'workers.resources.memory: must be { request?, limit? }, e.g. { request: "40Gi", limit: "40Gi" }, got "40Gi"',
    ]);
  });

  test('environment: secrets by reference, names checked', () => {
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm(), env: { '1BAD': 'x', OK: 3 as any }, workers: {} }))).toEqual([
      'env.1BAD: must be a valid environment variable name (letters, digits, \'_\', \'-\', \'.\'; not starting with a digit), got "1BAD"',
      'env.OK: must be a non-empty string, got 3',
    ]);
  });
});
