import * as YAML from 'yaml';
import { Backend, Fabric, Router } from '../../src';
import { container, envOf, flagValue, issuesOf, renderAgg, renderDisagg, services } from './helpers';

const MODEL = 'org/model-70b';

describe('vLLM', () => {
  const r = renderDisagg({
    model: MODEL,
    backend: Backend.vllm(),
    fabric: Fabric.rdma(),
    servedModelName: 'm',
    trustRemoteCode: true,
    prefill: { tensorParallelSize: 2, pipelineParallelSize: 2, maxNumSeqs: 4, kvCacheDtype: 'fp8', blockSize: 32, maxModelLen: 8192 },
    decode: { tensorParallelSize: 4, maxNumSeqs: 512, kvCacheDtype: 'fp8', blockSize: 32 },
  });

  test('renders the engine flags in a fixed order, role flag last', () => {
    expect(container(r, 'VllmPrefillWorker').command).toEqual(['python3', '-m', 'dynamo.vllm']);
    expect(container(r, 'VllmPrefillWorker').args).toEqual([
      '--model', MODEL,
      '--served-model-name', 'm',
      '--tensor-parallel-size', '2',
      '--pipeline-parallel-size', '2',
      '--kv-cache-dtype', 'fp8',
      '--max-num-seqs', '4',
      '--block-size', '32',
      '--max-model-len', '8192',
      '--trust-remote-code',
      '--is-prefill-worker',
    ]);
    expect(container(r, 'VllmDecodeWorker').args.slice(-1)).toEqual(['--is-decode-worker']);
  });

  test('GPUs default to TP x PP and the runtime image to the release tag', () => {
    expect(services(r).VllmPrefillWorker.resources.limits.gpu).toBe('4');
    expect(services(r).VllmDecodeWorker.resources.limits.gpu).toBe('4');
    expect(container(r, 'VllmPrefillWorker').image).toBe('nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0');
    expect(services(r).VllmPrefillWorker.sharedMemory).toEqual({ size: '16Gi' });
  });

  test('KV router: aggregated and prefill workers publish KV events over ZMQ; decode never does', () => {
    const kv = renderDisagg({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), frontend: { router: Router.kv() }, prefill: {}, decode: {} });
    expect(flagValue(container(kv, 'VllmPrefillWorker').args, '--kv-events-config')).toBe('{"enable_kv_cache_events":true,"endpoint":"tcp://*:5557"}');
    expect(container(kv, 'VllmDecodeWorker').args).not.toContain('--kv-events-config');
    const agg = renderAgg({ model: MODEL, backend: Backend.vllm(), frontend: { router: Router.kv() }, workers: {} });
    expect(JSON.parse(flagValue(container(agg, 'VllmWorker').args, '--kv-events-config')!)).toEqual({ enable_kv_cache_events: true, endpoint: 'tcp://*:5557' });
  });

  test('KV router without events: the router predicts, and vLLM is told not to publish', () => {
    const kv = renderAgg({ model: MODEL, backend: Backend.vllm(), frontend: { router: Router.kv({ kvEvents: false }) }, workers: {} });
    expect(JSON.parse(flagValue(container(kv, 'VllmWorker').args, '--kv-events-config')!)).toEqual({ enable_kv_cache_events: false });
    expect(container(kv, 'Frontend').args).toContain('--no-kv-events');
  });

  test('without a KV router no KV event flags are rendered', () => {
    for (const router of [undefined, Router.roundRobin(), Router.random()]) {
      const rr = renderAgg({ model: MODEL, backend: Backend.vllm(), frontend: { router }, workers: {} });
      expect(container(rr, 'VllmWorker').args).not.toContain('--kv-events-config');
    }
  });

  test('EFA: NIXL LIBFABRIC through the connector config, replacing Dynamo\'s default connector', () => {
    const efa = renderDisagg({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.efa(), prefill: {}, decode: {} });
    for (const s of ['VllmPrefillWorker', 'VllmDecodeWorker']) {
      const args = container(efa, s).args;
      expect(flagValue(args, '--connector')).toBe('none');
      expect(JSON.parse(flagValue(args, '--kv-transfer-config')!)).toEqual({
        kv_connector: 'NixlConnector',
        kv_role: 'kv_both',
        kv_connector_extra_config: { backends: ['LIBFABRIC'] },
      });
    }
  });

  test('flags the library owns cannot be passed again, even on the other role', () => {
    expect(
      issuesOf(() =>
        renderDisagg({ model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: { extraArgs: ['--is-decode-worker'] }, decode: { extraArgs: ['--kv-transfer-config', '{}'] } }),
      ),
    ).toEqual([
      'prefill.extraArgs[0]: sets --is-decode-worker, which the library renders from the graph and worker options; set the option instead',
      'decode.extraArgs: sets --kv-transfer-config without --connector none; dynamo.vllm refuses both a connector config and its default connector (nixl)',
    ]);
    const custom = renderAgg({ model: MODEL, backend: Backend.vllm(), workers: { extraArgs: ['--connector', 'none', '--kv-transfer-config', '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'] } });
    expect(flagValue(container(custom, 'VllmWorker').args, '--connector')).toBe('none');
  });

  test('a KV router announces vLLM\'s default block size, and a different router size is an error', () => {
    const r = renderAgg({ model: MODEL, backend: Backend.vllm(), frontend: { router: Router.kv() }, workers: {} });
    expect(flagValue(container(r, 'Frontend').args, '--kv-cache-block-size')).toBe('16');
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm(), frontend: { router: Router.kv({ blockSize: 32 }) }, workers: {} }))).toEqual([
      'frontend.router.blockSize: is 32, but VllmWorker runs block size 16; the router computes prefill cost in the workers\' blocks, so they must match (guide 3)',
    ]);
  });

  // found by the conformance suite: the block sizes and KV dtypes are those of the release's vLLM parser
  test('block sizes and KV cache dtypes are the ones the release\'s vLLM takes', () => {
    expect(() => renderAgg({ model: MODEL, backend: Backend.vllm(), workers: { blockSize: 256 } })).not.toThrow();
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm(), workers: { blockSize: 24, kvCacheDtype: 'fp9' } }))).toEqual([
      'workers.kvCacheDtype: is "fp9"; vllm 0.14.1 (Dynamo 0.9.x) takes "auto", "bfloat16", "fp8", "fp8_ds_mla", "fp8_e4m3", "fp8_e5m2", "fp8_inc"',
      'workers.blockSize: is 24; vLLM 0.14.1 accepts block sizes 1, 8, 16, 32, 64, 128, 256',
    ]);
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.vllm(), dynamoVersion: '0.8.1', workers: { kvCacheDtype: 'fp9' } }))).toEqual([
      'workers.kvCacheDtype: is "fp9"; vllm 0.12.0 (Dynamo 0.8.x) takes "auto", "bfloat16", "fp8", "fp8_ds_mla", "fp8_e4m3", "fp8_e5m2", "fp8_inc"',
    ]);
  });

  test('the CUDA 13 image variant on request', () => {
    const c13 = renderAgg({ model: MODEL, backend: Backend.vllm({ cuda: 13 }), workers: {} });
    expect(container(c13, 'VllmWorker').image).toBe('nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0-cuda13');
    const v08 = renderAgg({ model: MODEL, backend: Backend.vllm(), dynamoVersion: '0.8.0', workers: {} });
    expect(container(v08, 'VllmWorker').image).toBe('nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0');
  });
});

describe('SGLang', () => {
  test('disaggregated workers: page size, TP, NIXL transfer, bootstrap server reachable from other pods', () => {
    const r = renderDisagg({ model: MODEL, backend: Backend.sglang(), fabric: Fabric.rdma(), trustRemoteCode: true, prefill: { tensorParallelSize: 2, maxNumSeqs: 8, kvCacheDtype: 'fp8_e5m2' }, decode: { maxModelLen: 4096, kvCacheDtype: 'fp8_e5m2' } });
    expect(container(r, 'prefill').command).toEqual(['python3', '-m', 'dynamo.sglang']);
    expect(container(r, 'prefill').args).toEqual([
      '--model-path', MODEL,
      '--page-size', '16',
      '--tp-size', '2',
      '--kv-cache-dtype', 'fp8_e5m2',
      '--max-running-requests', '8',
      '--trust-remote-code',
      '--skip-tokenizer-init',
      '--disaggregation-mode', 'prefill',
      '--disaggregation-transfer-backend', 'nixl',
      '--disaggregation-bootstrap-port', '12345',
      '--host', '0.0.0.0',
    ]);
    const decode = container(r, 'decode').args;
    expect(flagValue(decode, '--disaggregation-mode')).toBe('decode');
    expect(flagValue(decode, '--context-length')).toBe('4096');
    expect(flagValue(decode, '--kv-cache-dtype')).toBe('fp8_e5m2');
  });

  test('KV events as ZMQ JSON on publishing workers; the router announces the 16-token page size', () => {
    const r = renderDisagg({ model: MODEL, backend: Backend.sglang(), fabric: Fabric.rdma(), frontend: { router: Router.kv() }, prefill: {}, decode: {} });
    expect(JSON.parse(flagValue(container(r, 'prefill').args, '--kv-events-config')!)).toEqual({
      publisher: 'zmq',
      topic: 'kv-events',
      endpoint: 'tcp://*:5557',
    });
    expect(container(r, 'decode').args).not.toContain('--kv-events-config');
    expect(flagValue(container(r, 'Frontend').args, '--kv-cache-block-size')).toBe('16');
  });

  // found by the conformance suite: SGLang has no --tp; argparse takes it as an abbreviation of --tp-size
  test('tensor parallelism is passed as --tp-size, SGLang\'s own flag', () => {
    const args = container(renderAgg({ model: MODEL, backend: Backend.sglang(), workers: { tensorParallelSize: 4 } }), 'worker').args;
    expect(flagValue(args, '--tp-size')).toBe('4');
    expect(args).not.toContain('--tp');
  });

  test('KV cache dtypes are SGLang\'s, not vLLM\'s', () => {
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.sglang(), workers: { kvCacheDtype: 'fp8' } }))).toEqual([
      'workers.kvCacheDtype: is "fp8"; sglang 0.5.8 (Dynamo 0.9.x) takes "auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16", "fp4_e2m1"',
    ]);
  });

  test('EFA selects the LIBFABRIC NIXL backend by environment', () => {
    const r = renderDisagg({ model: MODEL, backend: Backend.sglang(), fabric: Fabric.efa(), prefill: {}, decode: {} });
    expect(envOf(r, 'prefill')).toMatchObject({
      FI_PROVIDER: 'efa',
      FI_EFA_USE_DEVICE_RDMA: '1',
      FI_EFA_ENABLE_SHM_TRANSFER: '0',
      SGLANG_DISAGGREGATION_NIXL_BACKEND: 'LIBFABRIC',
    });
  });
});

describe('TensorRT-LLM', () => {
  const r = renderDisagg({
    model: MODEL,
    backend: Backend.trtllm(),
    fabric: Fabric.rdma(),
    trustRemoteCode: true,
    frontend: { router: Router.kv() },
    prefill: { maxNumSeqs: 4, kvCacheDtype: 'fp8', blockSize: 64, engineConfig: { kv_cache_config: { free_gpu_memory_fraction: 0.5 } } },
    decode: { tensorParallelSize: 4, pipelineParallelSize: 2, maxNumSeqs: 256, kvCacheDtype: 'fp8', blockSize: 64, maxModelLen: 8192 },
  });

  test('engine config generated into a ConfigMap per worker, user keys deep-merged', () => {
    expect(r.configMaps.map((c) => c.metadata.name)).toEqual(['g-prefill-engine', 'g-decode-engine']);
    const prefill = YAML.parse((r.configMaps[0] as any).data['engine.yaml']);
    expect(prefill).toEqual({
      backend: 'pytorch',
      tensor_parallel_size: 1,
      max_batch_size: 4,
      trust_remote_code: true,
      disable_overlap_scheduler: true,
      kv_cache_config: { dtype: 'fp8', tokens_per_block: 64, free_gpu_memory_fraction: 0.5 },
      cache_transceiver_config: { backend: 'DEFAULT' },
    });
    const decode = YAML.parse((r.configMaps[1] as any).data['engine.yaml']);
    expect(decode).toMatchObject({ tensor_parallel_size: 4, pipeline_parallel_size: 2, max_batch_size: 256, max_seq_len: 8192 });
    expect(decode.disable_overlap_scheduler).toBeUndefined();
  });

  test('the ConfigMap is mounted and passed with --extra-engine-args', () => {
    const c = container(r, 'prefill');
    expect(c.args.slice(0, 8)).toEqual([
      '--model-path', MODEL,
      '--extra-engine-args', '/etc/dynamo/engine/engine.yaml',
      '--kv-block-size', '64',
      '--disaggregation-mode', 'prefill',
    ]);
    expect(c.volumeMounts).toEqual([{ name: 'engine-config', mountPath: '/etc/dynamo/engine', readOnly: true }]);
    expect(services(r).prefill.extraPodSpec.volumes).toEqual([{ name: 'engine-config', configMap: { name: 'g-prefill-engine' } }]);
    expect(services(r).prefill.sharedMemory).toEqual({ size: '80Gi' });
  });

  test('KV events: --publish-events-and-metrics on prefill only', () => {
    expect(container(r, 'prefill').args).toContain('--publish-events-and-metrics');
    expect(container(r, 'decode').args).not.toContain('--publish-events-and-metrics');
  });

  test('EFA: NIXL cache transceiver with the LIBFABRIC backend', () => {
    const efa = renderDisagg({ model: MODEL, backend: Backend.trtllm(), fabric: Fabric.efa(), prefill: {}, decode: {} });
    expect(YAML.parse((efa.configMaps[0] as any).data['engine.yaml']).cache_transceiver_config).toEqual({ backend: 'NIXL' });
    expect(envOf(efa, 'prefill').TRTLLM_NIXL_KVCACHE_BACKEND).toBe('LIBFABRIC');
  });

  test('multinode engines get the environment mpirun needs as root', () => {
    const m = renderAgg({ model: MODEL, backend: Backend.trtllm(), workers: { tensorParallelSize: 16, nodeCount: 2 } });
    expect(envOf(m, 'worker')).toMatchObject({ OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' });
    expect(services(m).worker.resources.limits.gpu).toBe('8');
    const single = renderAgg({ model: MODEL, backend: Backend.trtllm(), workers: { tensorParallelSize: 8 } });
    expect(envOf(single, 'worker').OMPI_ALLOW_RUN_AS_ROOT).toBeUndefined();
  });

  test('engine config keys rendered from options cannot be overridden through engineConfig', () => {
    expect(
      issuesOf(() =>
        renderAgg({
          model: MODEL,
          backend: Backend.trtllm(),
          workers: { tensorParallelSize: 2, engineConfig: { tensor_parallel_size: 4, kv_cache_config: { dtype: 'fp8', free_gpu_memory_fraction: 0.9 } } },
        }),
      ),
    ).toEqual([
      'workers.engineConfig.tensor_parallel_size: is rendered from the tensorParallelSize option, which sizes GPUs and checks it against the other workers; set tensorParallelSize instead',
      'workers.engineConfig.kv_cache_config.dtype: is rendered from the kvCacheDtype option, which sizes GPUs and checks it against the other workers; set kvCacheDtype instead',
      // what the override would have run
      'workers.gpus: is 2, fewer than the 4 GPUs each engine\'s parallelism needs (tensor 4); give each engine at least 4 GPUs',
    ]);
  });

  test('block sizes must be powers of two', () => {
    expect(issuesOf(() => renderAgg({ model: MODEL, backend: Backend.trtllm(), workers: { blockSize: 48 } }))).toEqual([
      'workers.blockSize: is 48; TensorRT-LLM needs a power of two greater than 1 tokens per block',
    ]);
  });

  test('runtime tags are CUDA 13 already', () => {
    expect(container(r, 'prefill').image).toBe('nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.9.0');
    const c13 = renderAgg({ model: MODEL, backend: Backend.trtllm({ cuda: 13 }), workers: {} });
    expect(container(c13, 'worker').image).toBe('nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.9.0');
  });
});
