import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  aggregatedGraphSpec,
  Backend,
  checkClaimManifest,
  checkDeployment,
  checkDynamoPlatform,
  checkGraphManifest,
  checkPrometheusStack,
  disaggregatedGraphSpec,
  DisaggregatedDeploymentOptions,
  DynamoValidationError,
  EnvValue,
  Fabric,
  manifestPath,
  observedGraphOf,
  renderGraph,
  renderPodMonitors,
  renderModelCachePvc,
  renderSlaPlanned,
  Router,
  RuleId,
  RULES,
  validate,
} from '../../src/core/internal';
import { lintSources } from '../../src/cli/lint/lint';
import { collectSources } from '../../src/cli/sources';
import { dynamoCrds, lintCrds } from '../support/crd';
import * as YAML from 'yaml';
import { GUIDE_VERSION } from './helpers';

/**
 * Every rule of the catalog, each with a case that breaks it and the closest
 * case that does not, and the message it gives. The table is typed by rule
 * id: a rule added to the catalog without a case here does not compile.
 */

interface Reported {
  readonly path: string;
  readonly message: string;
  readonly rule: string;
}

interface RuleCase {
  /** Breaks the rule. */
  readonly bad: () => Reported[];
  /** The same, without breaking it. */
  readonly good: () => Reported[];
  /** The report `bad` must contain for this rule. */
  readonly expected: { readonly path: string; readonly message: string | RegExp };
}

/** What the library reports for options: the errors it throws, or the warnings it returns. */
function fromOptions(fn: () => unknown): Reported[] {
  try {
    const out = fn() as { warnings?: readonly Reported[] } | Reported[] | undefined;
    if (Array.isArray(out)) return out;
    return [...(out?.warnings ?? [])];
  } catch (e) {
    if (e instanceof DynamoValidationError) return [...e.issues];
    throw e;
  }
}

/** What the rules report for a manifest (paths as `dynamo-constructs lint` prints them). */
function fromManifest(graph: unknown, objects: unknown[] = []): Reported[] {
  return checkGraphManifest(graph as Record<string, unknown>, objects).map((f) => ({ path: manifestPath(f), message: f.message, rule: f.rule }));
}

/** What lint reports for a directory holding one good manifest and `entry`, made by `make` (a link, a FIFO...). */
function fromDirectory(make: (dir: string) => void): Reported[] {
  const dir = mkdtempSync(join(tmpdir(), 'rules-dir-'));
  try {
    writeFileSync(join(dir, 'a.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\n');
    make(dir);
    const { sources, unread } = collectSources([dir], { stdout: () => undefined, stderr: () => undefined, stdin: () => '' });
    return lintSources(sources, { crds: dynamoCrds(), unread }).findings.map((f) => ({ path: f.path, message: f.message, rule: f.rule }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function fromLint(text: string, crds = dynamoCrds()): Reported[] {
  return lintSources([{ file: 'f.yaml', text }], { crds }).findings.map((f) => ({ path: f.path, message: f.message, rule: f.rule }));
}

const MODEL = 'meta-llama/Llama-3.3-70B-Instruct';

/** The library's 1.6.1 request as plain JSON, without the spec field `key` when one is named. */
function requestWithout(key?: string): any {
  const request = JSON.parse(JSON.stringify(renderSlaPlanned('req', 'ns', { model: MODEL, backend: Backend.vllm(), sla: { isl: 100, osl: 10, ttftMs: 300, itlMs: 30 } }).object));
  if (key !== undefined) delete request.spec[key];
  return request;
}

// the manifest rules are exercised on the guides' v1alpha1 layout, which the edits below address
const disagg = (o: Partial<DisaggregatedDeploymentOptions> = {}): DisaggregatedDeploymentOptions => ({
  dynamoVersion: GUIDE_VERSION,
  model: MODEL,
  backend: Backend.vllm(),
  fabric: Fabric.rdma(),
  prefill: { tensorParallelSize: 2 },
  decode: { tensorParallelSize: 2 },
  ...o,
});

const renderDisagg = (o: Partial<DisaggregatedDeploymentOptions> = {}, name = 'llm') => renderGraph(disaggregatedGraphSpec(name, 'ns', disagg(o)));

/** The library's own disaggregated RDMA graph, as plain JSON to edit. */
function baseGraph(): any {
  return JSON.parse(JSON.stringify(renderDisagg().graph));
}

/** A copy of the base graph changed by `edit`. */
function graphWith(edit: (g: any, s: Record<string, any>) => void): any {
  const g = baseGraph();
  edit(g, g.spec.services);
  return g;
}

const args = (s: any): string[] => s.extraPodSpec.mainContainer.args;
function setFlag(s: any, flag: string, value: string): void {
  const a = args(s);
  const i = a.indexOf(flag);
  if (i >= 0) a[i + 1] = value;
  else a.push(flag, value);
}
function dropRdma(s: any): void {
  delete s.extraPodSpec.mainContainer.resources;
  delete s.extraPodSpec.mainContainer.securityContext;
  s.envs = s.envs.filter((e: any) => !e.name.startsWith('UCX_'));
}

const HF_TOKEN = `hf_${'Ab3'.repeat(12)}`;

/**
 * A planned graph of `dynamoVersion` as the library writes it (graph, planner ConfigMap) with its
 * PodMonitors, after `edit` changes the monitors (frontend, worker, planner): what lint reads.
 */
function plannedWithMonitors(dynamoVersion: string, edit: (monitors: any[]) => void = () => undefined): Reported[] {
  const spec = disaggregatedGraphSpec('llm', 'ns', disagg({ dynamoVersion, planner: { ttftMs: 200, itlMs: 20, maxGpuBudget: 16, adjustmentIntervalSeconds: 30 } }));
  const rendered = renderGraph(spec);
  const monitors = JSON.parse(JSON.stringify(renderPodMonitors({ graph: observedGraphOf(spec) }, undefined)));
  edit(monitors);
  return fromManifest(rendered.graph, [...rendered.configMaps, ...monitors]);
}

/**
 * Every rule but lint --server's: the API server's own verdict, which test/cli/lint/lint.test.ts (stand-in) and the cluster suite
 * (a real server) exercise, and documents refused before they are sent (test/security/lint-server.test.ts).
 */
const CASES: Record<Exclude<RuleId, 'server-rejected' | 'server-not-sent'>, RuleCase> = {
  'required': {
    bad: () => fromOptions(() => renderDisagg({ model: undefined as never })),
    good: () => fromOptions(() => renderDisagg()),
    expected: { path: 'model', message: 'is required: a non-empty string' },
  },
  'unknown-option': {
    bad: () => fromOptions(() => renderDisagg({ prefill: { replica: 2 } as never })),
    good: () => fromOptions(() => renderDisagg({ prefill: { replicas: 2, tensorParallelSize: 2 } })),
    expected: { path: 'prefill.replica', message: /^is not a known option \(did you mean replicas\?\); known options are replicas, tensorParallelSize/ },
  },
  'value-type': {
    bad: () => fromOptions(() => renderDisagg({ backend: 'vllm' as never })),
    good: () => fromOptions(() => renderDisagg({ backend: Backend.vllm() })),
    expected: { path: 'backend', message: 'must be Backend.vllm(), Backend.sglang() or Backend.trtllm(), got "vllm"' },
  },
  'value-range': {
    bad: () => fromManifest(graphWith((_g, s) => setFlag(s.VllmPrefillWorker, '--tensor-parallel-size', '0'))),
    good: () => fromManifest(baseGraph()),
    expected: { path: 'VllmPrefillWorker.extraPodSpec.mainContainer.args[--tensor-parallel-size]', message: 'must be a positive integer, got 0' },
  },
  'value-format': {
    bad: () => fromOptions(() => renderDisagg({ fabric: Fabric.rdma({ resourceName: 'RDMA devices' }) })),
    good: () => fromOptions(() => renderDisagg({ fabric: Fabric.rdma({ resourceName: 'rdma/ib' }) })),
    expected: { path: 'fabric.resourceName', message: 'must be an extended resource name such as "rdma/hca_shared_devices", got "RDMA devices"' },
  },
  'quantity-format': {
    bad: () => fromOptions(() => renderDisagg({ decode: { tensorParallelSize: 2, sharedMemory: 'lots' } })),
    good: () => fromOptions(() => renderDisagg({ decode: { tensorParallelSize: 2, sharedMemory: '32Gi' } })),
    expected: { path: 'decode.sharedMemory', message: 'must be a Kubernetes quantity such as "16Gi" or "500m", got "lots"' },
  },
  'option-conflict': {
    bad: () => fromOptions(() => renderDisagg({ image: 'registry/vllm:1', backend: Backend.vllm({ image: 'registry/vllm:2' }) })),
    good: () => fromOptions(() => renderDisagg({ image: 'registry/vllm:1' })),
    expected: { path: 'image', message: 'is set, and so is backend\'s image "registry/vllm:2"; set only one' },
  },
  'name-format': {
    bad: () =>
      fromManifest(
        graphWith((_g, s) => {
          s.Vllm_Decode = s.VllmDecodeWorker;
          delete s.VllmDecodeWorker;
        }),
      ),
    good: () => fromManifest(baseGraph()),
    expected: { path: 'Vllm_Decode', message: 'must start with a letter and contain only letters, digits and \'-\' (at most 63 characters), got "Vllm_Decode"' },
  },
  'name-length': {
    bad: () => fromManifest(graphWith((g) => (g.metadata.name = 'a-rather-long-deployment-name-of-32'))),
    good: () => fromManifest(graphWith((g) => (g.metadata.name = 'short'))),
    expected: {
      path: 'VllmPrefillWorker',
      message: 'names pods with 52 characters: graph name "a-rather-long-deployment-name-of-32" (35) + service "vllmprefillworker" (17); Grove allows 45. Shorten the graph name or the service name',
    },
  },
  'duplicate-service': {
    bad: () => fromOptions(() => renderGraph(aggregatedGraphSpec('llm', 'ns', { model: MODEL, backend: Backend.vllm(), workers: { serviceName: 'Frontend' } }))),
    good: () => fromOptions(() => renderGraph(aggregatedGraphSpec('llm', 'ns', { model: MODEL, backend: Backend.vllm(), workers: { serviceName: 'Workers' } }))),
    expected: { path: 'workers', message: 'uses service name "Frontend", already used by frontend; service names must be unique' },
  },
  'too-many-services': {
    bad: () =>
      fromManifest(
        graphWith((_g, s) => {
          for (let i = 0; i < 23; i++) s[`Extra${i}`] = { componentType: 'other' };
        }),
      ),
    good: () =>
      fromManifest(
        graphWith((_g, s) => {
          for (let i = 0; i < 22; i++) s[`Extra${i}`] = { componentType: 'other' };
        }),
      ),
    expected: { path: 'spec.services', message: 'has 26 services; a DynamoGraphDeployment holds at most 25' },
  },
  'graph-structure': {
    bad: () => fromManifest(graphWith((_g, s) => delete s.VllmDecodeWorker)),
    good: () => fromManifest(baseGraph()),
    expected: { path: 'spec.services', message: 'has prefill workers but no decode worker; prefill and decode workers come in pairs' },
  },
  'role-flags': {
    bad: () =>
      fromManifest(
        graphWith((_g, s) => {
          const a = args(s.VllmDecodeWorker);
          a[a.indexOf('--is-decode-worker')] = '--is-prefill-worker';
        }),
      ),
    good: () => fromManifest(baseGraph()),
    expected: {
      path: 'VllmDecodeWorker.extraPodSpec.mainContainer.args[--is-prefill-worker]',
      message: 'makes this a prefill worker, but its subComponentType is decode; the planner would scale it as decode. Make them agree',
    },
  },
  'block-size-mismatch': {
    bad: () => fromManifest(graphWith((_g, s) => setFlag(s.VllmPrefillWorker, '--block-size', '32'))),
    good: () =>
      fromManifest(
        graphWith((_g, s) => {
          setFlag(s.VllmPrefillWorker, '--block-size', '32');
          setFlag(s.VllmDecodeWorker, '--block-size', '32');
        }),
      ),
    expected: {
      path: 'VllmPrefillWorker.extraPodSpec.mainContainer.args[--block-size]',
      message: 'is 32, but VllmDecodeWorker runs 16 (the vllm default); all workers of a graph must use one KV block size',
    },
  },
  'kv-dtype-mismatch': {
    bad: () => fromOptions(() => renderDisagg({ prefill: { tensorParallelSize: 2, kvCacheDtype: 'fp8' } })),
    good: () => fromOptions(() => renderDisagg({ prefill: { tensorParallelSize: 2, kvCacheDtype: 'fp8' }, decode: { tensorParallelSize: 2, kvCacheDtype: 'fp8' } })),
    expected: {
      path: 'prefill.kvCacheDtype',
      message: 'is fp8 on VllmPrefillWorker but auto (the default) on VllmDecodeWorker; the KV cache is transferred as is, so prefill and decode must use one dtype',
    },
  },
  'parallelism-gpus': {
    bad: () => fromOptions(() => renderDisagg({ decode: { tensorParallelSize: 4, gpus: 2 } })),
    good: () => fromOptions(() => renderDisagg({ decode: { tensorParallelSize: 4, gpus: 4 } })),
    expected: { path: 'decode.gpus', message: "is 2, fewer than the 4 GPUs each engine's parallelism needs (tensor 4); give each engine at least 4 GPUs" },
  },
  'multinode-gpus': {
    bad: () => fromOptions(() => renderDisagg({ decode: { tensorParallelSize: 8, gpus: 16, nodeCount: 2 } })),
    good: () => fromOptions(() => renderDisagg({ decode: { tensorParallelSize: 8, pipelineParallelSize: 2, nodeCount: 2 } })),
    expected: {
      path: 'decode.nodeCount',
      message: "is 2, but the engine's 8 parallel ranks (tensor 8) fit on one node's 8 GPUs: the other nodes would sit idle. Drop multinode, or raise the parallelism to use 16 GPUs",
    },
  },
  'tensor-parallel-heads': {
    bad: () => fromOptions(() => renderDisagg({ model: 'Qwen/Qwen3-32B', decode: { tensorParallelSize: 3 } })),
    good: () => fromOptions(() => renderDisagg({ model: 'Qwen/Qwen3-32B', decode: { tensorParallelSize: 4 } })),
    expected: { path: 'decode.tensorParallelSize', message: 'is 3, which does not divide the 64 attention heads of Qwen/Qwen3-32B (its config.json num_attention_heads): the engine refuses to start. Use a tensor parallel size that divides 64 (1, 2, 4, 8), with as many GPUs' },
  },
  'ambiguous-flag': {
    bad: () => fromOptions(() => renderDisagg({ dynamoVersion: '1.6.1', backend: Backend.sglang(), decode: { tensorParallelSize: 2, extraArgs: ['--pp', '1'] } })),
    good: () => fromOptions(() => renderDisagg({ dynamoVersion: '1.6.1', backend: Backend.sglang(), decode: { tensorParallelSize: 2, extraArgs: ['--pp-size', '1'] } })),
    expected: { path: 'decode.extraArgs', message: 'is no flag of SGLang 0.5.21, and its parser refuses it as an abbreviation: it could be --pp-async-batch-depth, --pp-max-micro-batch-size or --pp-size. Write the flag in full' },
  },
  'update-strategy-unset': {
    bad: () => fromManifest({ ...(renderDisagg({ dynamoVersion: '1.6.1' }).graph as object), metadata: { name: 'llm' } }),
    good: () => fromManifest(renderDisagg({ dynamoVersion: '1.6.1' }).graph),
    expected: { path: 'metadata.annotations[nvidia.com/grove-update-strategy]', message: "is not set, and the graph has prefill and decode workers: Dynamo 1.6.x picks Grove's update strategy from it, and its release notes (Coherent for a graph with prefill and decode workers) and API docs (RollingRecreate) disagree on the default, so how a change rolls out is up to the operator version. Set it to RollingRecreate, Coherent (Grove alpha.14 or later) or OnDelete, as the library does" },
  },
  'rdma-without-ipc-lock': {
    bad: () =>
      fromManifest(
        graphWith((_g, s) => {
          delete s.VllmPrefillWorker.extraPodSpec.mainContainer.securityContext;
          delete s.VllmDecodeWorker.extraPodSpec.mainContainer.securityContext;
        }),
      ),
    good: () => fromManifest(baseGraph()),
    expected: {
      path: 'VllmPrefillWorker.extraPodSpec.mainContainer.securityContext.capabilities.add',
      message:
        'has no IPC_LOCK, but the pod requests rdma/hca_shared_devices: NIXL cannot pin memory for RDMA and KV transfer fails. Add IPC_LOCK to securityContext.capabilities.add (Fabric.rdma() and Fabric.efa() do)',
    },
  },
  'fabric-without-device': {
    bad: () =>
      fromManifest(
        graphWith((_g, s) => {
          delete s.VllmPrefillWorker.extraPodSpec.mainContainer.resources;
          delete s.VllmDecodeWorker.extraPodSpec.mainContainer.resources;
        }),
      ),
    good: () => fromManifest(graphWith((_g, s) => [s.VllmPrefillWorker, s.VllmDecodeWorker].forEach(dropRdma))),
    expected: {
      path: 'VllmDecodeWorker.envs[UCX_TLS]',
      message: 'configures an RDMA/EFA transport, but the pod requests no RDMA or EFA device: NIXL finds no device and fails. Request the device (Fabric.rdma(), Fabric.efa()) or remove UCX_TLS',
    },
  },
  'fabric-mismatch': {
    bad: () => fromManifest(graphWith((_g, s) => dropRdma(s.VllmDecodeWorker))),
    good: () => fromManifest(baseGraph()),
    expected: {
      path: 'VllmDecodeWorker.extraPodSpec.mainContainer.resources',
      message: 'runs over TCP, but VllmPrefillWorker over RDMA; KV cache moves between them, so both need the same fabric',
    },
  },
  'duplicate-env': {
    bad: () => fromManifest(graphWith((_g, s) => s.VllmDecodeWorker.envs.push({ name: 'UCX_TLS', value: 'rc' }))),
    good: () => fromManifest(baseGraph()),
    expected: { path: 'VllmDecodeWorker.envs[UCX_TLS]', message: "is listed twice; the operator's webhook refuses duplicate names in one list. Keep one entry" },
  },
  'literal-secret': {
    bad: () => fromOptions(() => renderDisagg({ env: { HF_TOKEN } })),
    good: () => fromOptions(() => renderDisagg({ env: { HF_TOKEN: EnvValue.fromSecret('hf-token-secret', 'HF_TOKEN') } })),
    expected: {
      path: 'env.HF_TOKEN',
      message:
        'holds a Hugging Face token in plain text: anyone who can read the manifest (or its Git history) has it. Revoke it, and reference a Secret instead: hfTokenSecret / envFromSecret for HF_TOKEN, or EnvValue.fromSecret(name, key) (secretKeyRef)',
    },
  },
  'privileged-container': {
    bad: () => fromManifest(graphWith((_g, s) => (s.Frontend.extraPodSpec.mainContainer.securityContext.privileged = true))),
    good: () => fromManifest(graphWith((_g, s) => (s.Frontend.extraPodSpec.mainContainer.securityContext.privileged = false))),
    expected: {
      path: 'Frontend.extraPodSpec.mainContainer.securityContext.privileged',
      message:
        'is true, so the container is privileged: it gets every device and capability of the node, and root in it is root on the node. Nothing in a frontend needs it (an RDMA/EFA worker needs only its device request and IPC_LOCK); remove it',
    },
  },
  'host-namespace': {
    bad: () => fromManifest(graphWith((_g, s) => (s.Frontend.extraPodSpec.hostPID = true))),
    good: () => fromManifest(graphWith((_g, s) => (s.Frontend.extraPodSpec.hostPID = false))),
    expected: {
      path: 'Frontend.extraPodSpec.hostPID',
      message: "is true: the pod sees every process of the node and can signal or trace those of its user. Nothing Dynamo runs needs the node's processes; remove it",
    },
  },
  'added-capability': {
    bad: () => fromManifest(graphWith((_g, s) => s.VllmPrefillWorker.extraPodSpec.mainContainer.securityContext.capabilities.add.push('CAP_SYS_ADMIN'))),
    good: () => fromManifest(graphWith((_g, s) => s.VllmPrefillWorker.extraPodSpec.mainContainer.securityContext.capabilities.add.push('NET_BIND_SERVICE'))),
    expected: {
      path: 'VllmPrefillWorker.extraPodSpec.mainContainer.securityContext.capabilities.add',
      message: 'adds SYS_ADMIN: as good as root on the node. NIXL needs only IPC_LOCK, with an RDMA/EFA device; remove it',
    },
  },
  'host-path-system': {
    bad: () => fromManifest(graphWith((_g, s) => (s.Frontend.extraPodSpec.volumes = [{ name: 'runtime', hostPath: { path: '/var/run/containerd/containerd.sock' } }]))),
    good: () => fromManifest(graphWith((_g, s) => (s.Frontend.extraPodSpec.volumes = [{ name: 'runtime', hostPath: { path: '/mnt/models' } }]))),
    expected: {
      path: 'Frontend.extraPodSpec.volumes[runtime].hostPath',
      message: 'mounts the node\'s "/var/run/containerd/containerd.sock": a process in the pod that writes there, or talks to a runtime socket, controls the node. Remove the volume',
    },
  },
  'planner-budget': {
    bad: () => fromOptions(() => renderDisagg({ planner: { ttftMs: 200, itlMs: 20, maxGpuBudget: 2 } })),
    good: () => fromOptions(() => renderDisagg({ planner: { ttftMs: 200, itlMs: 20, maxGpuBudget: 4 } })),
    expected: {
      path: 'planner.maxGpuBudget',
      message: 'is 2, below the 4 GPUs the graph needs at its minimum (minEndpoint 1 x (2 prefill + 2 decode GPUs per engine)); raise maxGpuBudget to at least 4',
    },
  },
  'pvc-reference': {
    bad: () =>
      fromManifest(
        graphWith((g, s) => {
          g.spec.pvcs = [{ name: 'model-cache', create: false }];
          s.VllmDecodeWorker.volumeMounts = [{ name: 'weights', mountPoint: '/opt/models' }];
        }),
      ),
    good: () =>
      fromManifest(
        graphWith((g, s) => {
          g.spec.pvcs = [{ name: 'model-cache', create: false }];
          s.VllmDecodeWorker.volumeMounts = [{ name: 'model-cache', mountPoint: '/opt/models' }];
        }),
      ),
    expected: {
      path: 'VllmDecodeWorker.volumeMounts[0].name',
      message: 'is "weights", which spec.pvcs does not list (it lists model-cache); the operator mounts only listed claims. Add { name: weights, create: false } to spec.pvcs',
    },
  },
  'image-unavailable': {
    bad: () => fromOptions(() => renderDisagg({ dynamoVersion: '0.8.1', backend: Backend.vllm({ cuda: 13 }) })),
    good: () => fromOptions(() => renderDisagg({ dynamoVersion: '0.9.0', backend: Backend.vllm({ cuda: 13 }) })),
    expected: {
      path: 'backend',
      message: 'the default image vllm-runtime:0.8.1-cuda13 fails to launch (known issue in the Dynamo 0.8.1 release notes); use the CUDA 12 image or 0.9.0-cuda13',
    },
  },
  'aic-unsupported': {
    bad: () => fromOptions(() => renderSlaPlanned('req', 'ns', { ...request(), aiConfigurator: { system: 'tpu_v5', backendVersion: '0.12.0' } })),
    good: () => fromOptions(() => renderSlaPlanned('req', 'ns', request())),
    expected: { path: 'aiConfigurator.system', message: /^must be an AIConfigurator GPU system \(.*h200_sxm.*\), got "tpu_v5"$/ },
  },
  'unknown-version': {
    bad: () => fromOptions(() => renderDisagg({ dynamoVersion: '0.5.0' })),
    good: () => fromOptions(() => renderDisagg({ dynamoVersion: '0.8.1' })),
    expected: { path: 'dynamoVersion', message: 'Dynamo "0.5.0" is not supported; supported releases are 0.8.x, 0.9.x, 1.4.x, 1.5.x, 1.6.x (e.g. "1.6.1")' },
  },
  'unsupported-on-release': {
    bad: () => fromOptions(() => renderDisagg({ dynamoVersion: '1.6.1', frontend: { router: Router.kv({ kvEvents: false, maxTreeSize: 4096 }) } })),
    good: () => fromOptions(() => renderDisagg({ dynamoVersion: '0.9.0', frontend: { router: Router.kv({ kvEvents: false, maxTreeSize: 4096 }) } })),
    expected: { path: 'frontend.router.maxTreeSize', message: 'has no flag in the Dynamo 1.6.x frontend (it was removed in 1.0); leave it out' },
  },
  'deprecated': {
    bad: () => fromOptions(() => renderDisagg({ dynamoVersion: '1.6.1', frontend: { router: Router.kv({ temperature: 0.5 }) } })),
    good: () => fromOptions(() => renderDisagg({ dynamoVersion: '1.5.1', frontend: { router: Router.kv({ temperature: 0.5 }) } })),
    expected: {
      path: 'frontend.router.temperature',
      message: 'renders --router-temperature, which Dynamo 1.6.x deprecates for removal in the next release; its replacement is router_temperature in the default policy parameters of --router-policy-config',
    },
  },
  'sla-drift': {
    bad: () => fromOptions(() => validate((d) => checkDeployment(d, disaggregatedGraphSpec('llm', 'ns', disagg({ planner: { ttftMs: 200, itlMs: 20 } })), { sla: { ttftMs: 500, itlMs: 20 } }))),
    good: () => fromOptions(() => validate((d) => checkDeployment(d, disaggregatedGraphSpec('llm', 'ns', disagg({ planner: { ttftMs: 200, itlMs: 20 } })), {}))),
    expected: { path: 'observability.sla', message: 'is 500 ms TTFT / 20 ms ITL, but the deployment is planned for 200 / 20; leave sla out so alerts follow the planned SLA' },
  },
  'crd-schema': {
    bad: () => fromLint(JSON.stringify(graphWith((_g, s) => (s.VllmDecodeWorker.replicas = -1)))),
    good: () => fromLint(JSON.stringify(baseGraph())),
    expected: { path: 'VllmDecodeWorker.replicas', message: 'must be >= 0' },
  },
  'kubernetes-schema': {
    bad: () => fromLint('apiVersion: v1\nkind: Service\nmetadata: { name: s }\nspec:\n  ports: [{ port: "http" }]\n'),
    good: () => fromLint('apiVersion: v1\nkind: Service\nmetadata: { name: s }\nspec:\n  ports: [{ port: 80 }]\n'),
    expected: { path: 'Service/s.spec.ports[0].port', message: 'must be integer' },
  },
  'file-not-read': {
    bad: () => fromDirectory((dir) => symlinkSync(join(dir, 'gone.yaml'), join(dir, 'b.yaml'))),
    good: () => fromDirectory((dir) => symlinkSync(join(dir, 'a.yaml'), join(dir, 'b.yaml'))),
    expected: { path: 'file', message: /dangling/ },
  },
  'yaml-syntax': {
    bad: () => fromLint('apiVersion: v1\nkind: [ConfigMap\n'),
    good: () => fromLint('apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\n'),
    expected: { path: 'line 3:1', message: /flow sequence/i },
  },
  'disaggregated-tcp': {
    bad: () => fromOptions(() => renderDisagg({ fabric: Fabric.tcp() })),
    good: () => fromOptions(() => renderDisagg({ fabric: Fabric.rdma() })),
    expected: { path: 'fabric', message: /^has no RDMA or EFA on a disaggregated graph: KV cache transfer falls back to TCP, TTFT ~40x worse/ },
  },
  'efa-shm-transfer': {
    bad: () => fromOptions(() => renderDisagg({ backend: Backend.sglang(), fabric: Fabric.efa({ shmTransfer: true }) })),
    good: () => fromOptions(() => renderDisagg({ backend: Backend.sglang(), fabric: Fabric.efa() })),
    expected: { path: 'fabric.shmTransfer', message: /^is not 0: a prefill and a decode worker on the same node hand KV cache to libfabric's shm provider.*Set FI_EFA_ENABLE_SHM_TRANSFER=0/ },
  },
  'fabric-unused': {
    bad: () => fromOptions(() => renderGraph(aggregatedGraphSpec('llm', 'ns', { model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), workers: {} }))),
    good: () => fromOptions(() => renderGraph(aggregatedGraphSpec('llm', 'ns', { model: MODEL, backend: Backend.vllm(), fabric: Fabric.tcp(), workers: {} }))),
    expected: {
      path: 'fabric',
      message: 'requests rdma/hca_shared_devices, but an aggregated single-node worker transfers no KV cache: the device request and IPC_LOCK only reserve capacity. Use Fabric.tcp() (no device)',
    },
  },
  'fabric-host-access': {
    bad: () => fromManifest(graphWith((_g, s) => (s.VllmDecodeWorker.extraPodSpec.hostNetwork = true))),
    good: () => fromManifest(baseGraph()),
    expected: {
      path: 'VllmDecodeWorker.extraPodSpec.hostNetwork',
      message:
        "is true: the pod runs in the node's network namespace: it listens on the node's addresses, reaches what is bound to the node's loopback and bypasses network policies. An RDMA/EFA worker reaches its NIC through its device request (Fabric.rdma(), Fabric.efa()); for RoCE, attach the RDMA NIC as a secondary network (SR-IOV, macvlan) instead",
    },
  },
  'host-path': {
    bad: () => fromManifest(graphWith((_g, s) => (s.Frontend.extraPodSpec.volumes = [{ name: 'models', hostPath: { path: '/mnt/models' } }]))),
    good: () => fromManifest(graphWith((_g, s) => (s.Frontend.extraPodSpec.volumes = [{ name: 'models', emptyDir: {} }]))),
    expected: {
      path: 'Frontend.extraPodSpec.volumes[models].hostPath',
      message: 'mounts the node\'s "/mnt/models": the pod reads and writes the node\'s files, outside any claim, and depends on the node it lands on. Use a PersistentVolumeClaim (ModelCache) or an emptyDir',
    },
  },
  'privilege-escalation': {
    bad: () => fromManifest(graphWith((_g, s) => (s.Frontend.extraPodSpec.mainContainer.securityContext.allowPrivilegeEscalation = true))),
    good: () => fromManifest(baseGraph()),
    expected: {
      path: 'Frontend.extraPodSpec.mainContainer.securityContext.allowPrivilegeEscalation',
      message: "is true: setuid binaries and file capabilities can raise a process's privileges. Dynamo's images run as a non-root user and need no escalation; set it to false (the library does)",
    },
  },
  'auto-apply-unset': {
    bad: () => fromLint(YAML.stringify(requestWithout('autoApply')), lintCrds()),
    good: () => fromLint(YAML.stringify(requestWithout()), lintCrds()),
    expected: {
      path: 'spec.autoApply',
      message: 'is not set, and the v1beta1 CRD defaults it to true: the graph the profiler picks is deployed, and its GPUs requested, as soon as profiling ends. Write autoApply: false to review it in status.profilingResults.selectedConfig first, or autoApply: true to deploy it unreviewed',
    },
  },
  'small-model-disaggregated': {
    bad: () => fromOptions(() => renderDisagg({ model: 'nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1' })),
    good: () => fromOptions(() => renderDisagg({ model: 'Qwen/Qwen3-32B' })),
    expected: { path: 'model', message: /^is "nvidia\/Llama-3.1-Nemotron-Nano-4B-v1.1" \(~4B parameters\), served disaggregated; below 10B/ },
  },
  'rwx-without-storage-class': {
    bad: () => fromOptions(() => renderModelCachePvc('model-cache', 'ns', { size: '100Gi' })),
    good: () => fromOptions(() => renderModelCachePvc('model-cache', 'ns', { size: '100Gi', storageClassName: 'nfs' })),
    expected: { path: 'storageClassName', message: /^is not set on a ReadWriteMany claim: it binds only if the cluster default StorageClass supports RWX/ },
  },
  'planner-replicas': {
    bad: () => fromOptions(() => renderDisagg({ planner: { ttftMs: 200, itlMs: 20, maxGpuBudget: 16 }, prefill: { tensorParallelSize: 2, replicas: 2 } })),
    good: () => fromOptions(() => renderDisagg({ planner: { ttftMs: 200, itlMs: 20, maxGpuBudget: 16 } })),
    expected: { path: 'prefill.replicas', message: /^is 2, but the planner scales this pool: every apply \(GitOps sync, pulumi up\) resets it to 2/ },
  },
  'no-frontend': {
    bad: () => fromManifest(graphWith((_g, s) => delete s.Frontend)),
    good: () => fromManifest(baseGraph()),
    expected: { path: 'spec.services', message: 'has no frontend: nothing serves the OpenAI API for these workers' },
  },
  'kv-events-missing': {
    bad: () =>
      fromManifest(
        graphWith((_g, s) => {
          s.Frontend.envs = [{ name: 'DYN_ROUTER_MODE', value: 'kv' }];
          args(s.VllmPrefillWorker).push('--kv-events-config', '{"enable_kv_cache_events":false}');
        }),
      ),
    // vLLM publishes by default in Dynamo 0.8/0.9
    good: () => fromManifest(graphWith((_g, s) => (s.Frontend.envs = [{ name: 'DYN_ROUTER_MODE', value: 'kv' }]))),
    expected: {
      path: 'VllmPrefillWorker.extraPodSpec.mainContainer.args[--kv-events-config]',
      message: /^is missing: the KV router waits for KV cache events this worker never publishes/,
    },
  },
  'router-replica-sync': {
    bad: () => fromOptions(() => renderDisagg({ frontend: { replicas: 2, router: Router.kv() } })),
    good: () => fromOptions(() => renderDisagg({ frontend: { replicas: 2, router: Router.kv({ replicaSync: true }) } })),
    expected: { path: 'frontend.router.replicaSync', message: /^is not set, and 2 frontend replicas each keep their own view of active blocks/ },
  },
  'frontend-port': {
    bad: () => fromOptions(() => renderDisagg({ frontend: { httpPort: 8080 } })),
    good: () => fromOptions(() => renderDisagg({ frontend: { httpPort: 8000 } })),
    expected: { path: 'frontend.httpPort', message: 'is 8080: the Dynamo operator points the frontend Service and probes at port 8000, so they need matching patches' },
  },
  'webhook-disabled': {
    // 0.x only: 1.x charts have no switch
    bad: () => fromOptions(() => validate((d) => checkDynamoPlatform(d, { version: GUIDE_VERSION, webhook: { enabled: false } }))),
    good: () => fromOptions(() => validate((d) => checkDynamoPlatform(d, { version: GUIDE_VERSION, webhook: { enabled: true } }))),
    expected: { path: 'webhook.enabled', message: 'is false: the operator no longer rejects invalid graphs at kubectl apply; they fail during reconciliation instead' },
  },
  'prometheus-podmonitors': {
    bad: () => fromOptions(() => validate((d) => checkPrometheusStack(d, { values: { prometheus: { prometheusSpec: { podMonitorSelectorNilUsesHelmValues: true } } } }))),
    good: () => fromOptions(() => validate((d) => checkPrometheusStack(d, {}))),
    expected: { path: 'values.prometheus.prometheusSpec.podMonitorSelectorNilUsesHelmValues', message: /PodMonitor/ },
  },
  'planner-scrape-window': {
    // guide 1's planner adjusts every 30 s; the platform chart's 0.9 monitors scrape every 30 s
    bad: () => plannedWithMonitors(GUIDE_VERSION, (m) => (m[0].spec.podMetricsEndpoints[0].interval = '30s')),
    good: () => plannedWithMonitors(GUIDE_VERSION),
    expected: {
      path: 'Planner.extraPodSpec.mainContainer.args[--adjustment-interval]',
      message:
        "is 30 s, under twice the 30 s scrape interval of PodMonitor/llm-frontend.spec.podMetricsEndpoints[0], which scrapes Frontend: the planner's increase(...[30s]) windows then hold fewer than two samples and are often empty, so it skips its decisions. Scrape the frontend every 15 s or less (interval: \"15s\"), or raise the adjustment interval to at least 60 s",
    },
  },
  'planner-namespace-label': {
    bad: () => plannedWithMonitors('1.6.1', (m) => delete m[0].spec.podMetricsEndpoints[0].relabelings),
    good: () => plannedWithMonitors('1.6.1'),
    expected: { path: 'PodMonitor/llm-frontend.spec.podMetricsEndpoints[0].relabelings', message: /^scrapes Frontend without adding a dynamo_namespace label: the Dynamo 1.6.x planner keeps only series/ },
  },
  'podmonitor-worker-types': {
    bad: () => plannedWithMonitors('1.6.1', (m) => (m[1].spec.selector = { matchLabels: { 'nvidia.com/dynamo-graph-deployment-name': 'llm', 'nvidia.com/dynamo-component-type': 'worker', 'nvidia.com/metrics-enabled': 'true' } })),
    good: () => plannedWithMonitors('1.6.1'),
    expected: {
      path: 'PodMonitor/llm-worker.spec.selector',
      message: /^selects the worker pods of llm of component type worker, but not those of VllmPrefillWorker \(nvidia.com\/dynamo-component-type: prefill\)/,
    },
  },
};

function request() {
  return {
    dynamoVersion: GUIDE_VERSION,
    model: MODEL,
    backend: Backend.vllm(),
    sla: { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 },
    aiConfigurator: { system: 'h200_sxm', backendVersion: '0.12.0' },
  };
}

describe.each(Object.entries(CASES))('%s', (rule, c) => {
  test(`is reported (${RULES[rule as RuleId].severity}) with its message, where it applies`, () => {
    const found = c.bad().filter((r) => r.rule === rule);
    expect(found).toContainEqual({ path: c.expected.path, rule, message: typeof c.expected.message === 'string' ? c.expected.message : expect.stringMatching(c.expected.message) });
  });

  test('is not reported once the problem is fixed', () => {
    expect(c.good().filter((r) => r.rule === rule)).toEqual([]);
  });
});

test('every rule the library reports is in the catalog, with one severity', () => {
  const seen = Object.values(CASES).flatMap((c) => [...c.bad(), ...c.good()]);
  for (const r of seen) expect(Object.keys(RULES)).toContain(r.rule);
});

describe('the rules read manifests as Dynamo writes them', () => {
  test('a shell command line is split into flags', () => {
    const g = graphWith((_g, s) => {
      const c = s.VllmPrefillWorker.extraPodSpec.mainContainer;
      c.command = ['/bin/sh', '-c'];
      c.args = [`cd /workspace && python3 -m dynamo.vllm --model ${MODEL} --tensor-parallel-size 4 --is-prefill-worker`];
    });
    expect(fromManifest(g).filter((r) => r.rule === 'parallelism-gpus')).toEqual([
      { path: 'VllmPrefillWorker.resources.limits.gpu', rule: 'parallelism-gpus', message: "is 2, fewer than the 4 GPUs each engine's parallelism needs (tensor 4); give each engine at least 4 GPUs" },
    ]);
  });

  test('the KV router switched on by environment (DYN_ROUTER_MODE) is checked like its flags', () => {
    const g = graphWith((_g, s) => {
      s.Frontend.envs = [
        { name: 'DYN_ROUTER_MODE', value: 'kv' },
        { name: 'DYN_KV_CACHE_BLOCK_SIZE', value: '64' },
      ];
    });
    expect(fromManifest(g).map((r) => `${r.path}: ${r.rule}`)).toEqual(['Frontend.envs[DYN_KV_CACHE_BLOCK_SIZE]: block-size-mismatch']);
  });

  test('a TensorRT-LLM block size is read from its engine config ConfigMap', () => {
    const r = renderGraph(
      disaggregatedGraphSpec('llm', 'ns', { model: MODEL, backend: Backend.trtllm(), fabric: Fabric.rdma(), frontend: { router: Router.kv({ blockSize: 32 }) }, prefill: {}, decode: {} }),
    );
    const [prefillConfig, decodeConfig] = JSON.parse(JSON.stringify(r.configMaps));
    expect(fromManifest(r.graph, [prefillConfig, decodeConfig])).toEqual([]);
    decodeConfig.data['engine.yaml'] += 'kv_cache_config:\n  tokens_per_block: 64\n';
    expect(fromManifest(r.graph, [prefillConfig, decodeConfig]).map((x) => `${x.path}: ${x.rule}`)).toEqual([
      'decode.engineConfig.kv_cache_config.tokens_per_block: block-size-mismatch',
      // the default release writes v1beta1: findings point into its layout
      'Frontend.podTemplate.spec.containers[main].args[--kv-cache-block-size]: block-size-mismatch',
    ]);
  });

  test('a planner whose settings are in a file is not judged on a budget the manifest does not hold', () => {
    const planned = (args: string[]) =>
      graphWith((_g, s) => {
        s.Planner = { componentType: 'planner', extraPodSpec: { mainContainer: { command: ['python3', '-m', 'dynamo.planner'], args } } };
        setFlag(s.VllmPrefillWorker, '--tensor-parallel-size', '8');
        s.VllmPrefillWorker.resources.limits.gpu = '8';
      });
    // inline JSON is read: a budget of 4 holds fewer GPUs than the graph starts with
    expect(fromManifest(planned(['--config', '{"max_gpu_budget": 4}'])).map((r) => r.rule)).toContain('planner-budget');
    expect(fromManifest(planned(['--config', '/etc/planner/config.yaml'])).map((r) => r.rule)).not.toContain('planner-budget');
  });

  test('a planner in agg mode may scale an aggregated graph', () => {
    const aggregated = (mode: string | undefined) => {
      const g = JSON.parse(JSON.stringify(renderGraph(aggregatedGraphSpec('llm', 'ns', { dynamoVersion: GUIDE_VERSION, model: MODEL, backend: Backend.vllm(), workers: {} })).graph));
      g.spec.services.Planner = { componentType: 'planner', extraPodSpec: { mainContainer: { command: ['python3', '-m', 'planner_sla'], args: mode ? [`--mode=${mode}`] : [] } } };
      return fromManifest(g).filter((r) => r.rule === 'graph-structure').map((r) => r.path);
    };
    expect(aggregated(undefined)).toEqual(['Planner']);
    expect(aggregated('agg')).toEqual([]);
  });

  test('services that run no engine (processors, multimodal encoders) are not worker pools', () => {
    const g = graphWith((_g, s) => {
      s.EncodeWorker = { componentType: 'worker', extraPodSpec: { mainContainer: { command: ['python3', '-m', 'dynamo.vllm'], args: ['--model', MODEL, '--multimodal-encode-worker'] } } };
      s.Processor = { componentType: 'worker', extraPodSpec: { mainContainer: { command: ['python3', 'components/processor.py'] } } };
    });
    expect(fromManifest(g)).toEqual([]);
  });

  test("guide 3's spelling of the round-robin mode is accepted, and an unknown mode is not", () => {
    const mode = (value: string) => fromManifest(graphWith((_g, s) => (s.Frontend.envs = [{ name: 'DYN_ROUTER_MODE', value }]))).map((r) => r.rule);
    expect(mode('round_robin')).toEqual([]);
    expect(mode('least-loaded')).toEqual(['value-range']);
  });

  test('a vLLM pod that is one rank of a data-parallel group needs the GPUs of its own rank only', () => {
    const dp = (extra: string[]) => fromManifest(graphWith((_g, s) => args(s.VllmPrefillWorker).push(...extra))).map((r) => r.rule);
    expect(dp(['--data-parallel-size', '4'])).toEqual(['parallelism-gpus']);
    expect(dp(['--data-parallel-size', '4', '--data-parallel-rank', '0'])).toEqual([]);
  });

  test('a frontend port is a port number, as an option and as a flag', () => {
    expect(fromOptions(() => renderDisagg({ frontend: { httpPort: 70000 } }))).toEqual([
      { path: 'frontend.httpPort', message: 'must be a port number (1-65535), got 70000', rule: 'value-range' },
    ]);
    const g = graphWith((_g, s) => (s.Frontend.extraPodSpec.mainContainer.args = ['--http-port', '70000']));
    expect(fromManifest(g).filter((r) => r.rule === 'value-range')).toEqual([
      { path: 'Frontend.extraPodSpec.mainContainer.args[--http-port]', message: 'must be a port number (1-65535), got 70000', rule: 'value-range' },
    ]);
  });

  test('a KV cache dtype the engine of the image\'s release does not take is an error; a custom image is not judged', () => {
    const dtype = (image: string | undefined, value: string) =>
      fromManifest(
        graphWith((_g, s) => {
          const c = s.VllmPrefillWorker.extraPodSpec.mainContainer;
          if (image !== undefined) c.image = image;
          c.args = [...c.args.filter((_a: string, i: number, all: string[]) => all[i] !== '--kv-cache-dtype' && all[i - 1] !== '--kv-cache-dtype'), '--kv-cache-dtype', value];
        }),
      ).filter((r) => r.rule === 'value-range');
    expect(dtype('nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0', 'fp9')).toEqual([
      {
        path: 'VllmPrefillWorker.extraPodSpec.mainContainer.args[--kv-cache-dtype]',
        message: 'is "fp9"; vllm 0.14.1 (Dynamo 0.9.x) takes "auto", "bfloat16", "fp8", "fp8_ds_mla", "fp8_e4m3", "fp8_e5m2", "fp8_inc"',
        rule: 'value-range',
      },
    ]);
    expect(dtype('nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0', 'fp8_e5m2')).toEqual([]);
    expect(dtype('registry.example.com/llm/vllm:latest', 'fp9')).toEqual([]);
  });

  test('a claim without ReadWriteMany needs no storage class', () => {
    const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    expect(checkClaimManifest(claim)).toEqual([]);
  });
});

describe('every problem at once, at the option that causes it', () => {
  const at = (issues: Reported[]) => issues.map((i) => `${i.path} [${i.rule}]`);

  test('option errors and what the rules find on a draft of the graph come in one error', () => {
    expect(at(fromOptions(() => renderDisagg({ prefill: { tensorParallelSize: 2, replicas: -1 }, decode: { tensorParallelSize: 4, gpus: 2 } })))).toEqual([
      'prefill.replicas [value-range]',
      'decode.gpus [parallelism-gpus]',
    ]);
  });

  test('a finding about a whole component stays when one of its options has an error', () => {
    const issues = at(fromOptions(() => renderDisagg({ prefill: { tensorParallelSize: 2, maxNumSeqs: 0 } }, 'a-rather-long-deployment-name-of-38-chars')));
    expect(issues).toEqual(expect.arrayContaining(['prefill.maxNumSeqs [value-range]', 'prefill [name-length]', 'decode [name-length]']));
  });

  test('router settings given as environment are reported at the variable, with other errors too', () => {
    const frontend = { env: { DYN_ROUTER_MODE: 'kv', DYN_ROUTER_TEMPERATURE: '-1' } };
    expect(at(fromOptions(() => renderDisagg({ frontend })))).toEqual(['frontend.env.DYN_ROUTER_TEMPERATURE [value-range]']);
    expect(at(fromOptions(() => renderDisagg({ frontend, decode: { tensorParallelSize: 2, replicas: -1 } })))).toEqual([
      'decode.replicas [value-range]',
      'frontend.env.DYN_ROUTER_TEMPERATURE [value-range]',
    ]);
  });

  test('a draft of invalid options announces no router block size of its own', () => {
    const blockSize = { bogus: 1 } as never;
    expect(at(fromOptions(() => renderDisagg({ frontend: { router: Router.kv() }, prefill: { blockSize }, decode: { blockSize } })))).toEqual([
      'prefill.blockSize [value-range]',
      'decode.blockSize [value-range]',
    ]);
  });

  test('a flag passed in extraArgs is reported at extraArgs, once', () => {
    expect(at(fromOptions(() => renderDisagg({ decode: { tensorParallelSize: 2, extraArgs: ['--block-size=32'] } })))).toEqual(['decode.extraArgs [block-size-mismatch]']);
    expect(at(fromOptions(() => renderDisagg({ decode: { tensorParallelSize: 2, extraArgs: ['--is-prefill-worker'] } })))).toEqual(['decode.extraArgs[0] [option-conflict]']);
  });

  test('an SLA-planned deployment reports its option errors and its rules together', () => {
    const issues = at(fromOptions(() => renderSlaPlanned('req', 'ns', { ...request(), sla: { ...request().sla, isl: 0 }, hardware: { minGpusPerEngine: 4 }, planner: { maxGpuBudget: 2 } })));
    expect(issues).toEqual(['sla.isl [value-range]', 'planner.maxGpuBudget [planner-budget]']);
  });
});

test('the README lists every rule with its severity, what it catches and its fix, as the catalog does', () => {
  const readme = require('fs').readFileSync(require('path').join(__dirname, '../../README.md'), 'utf8') as string;
  const unescape = (cell: string) => cell.trim().replace(/\\\|/g, '|');
  const rows = readme
    .split('\n')
    .filter((l) => /^\| `[a-z-]+` \| (error|warning) \|/.test(l))
    .map((l) => l.slice(1, -1).split(/(?<!\\)\|/).map(unescape));
  expect(rows).toEqual(Object.entries(RULES).map(([id, r]) => [`\`${id}\``, r.severity, r.catches, r.fix]));
});

test('service names are unique case-insensitively, as pod names and the 1.x API require (a real API server refused what the library let through)', () => {
  const issues = fromOptions(() => renderGraph(disaggregatedGraphSpec('llm', 'ns', disagg({ decode: { serviceName: 'frontend' } }))));
  expect(issues).toContainEqual({
    path: 'decode',
    rule: 'duplicate-service',
    message: 'uses service name "frontend", which differs only in case from "Frontend" (frontend); service names must be unique case-insensitively (pods are named after the lowercased name, and the 1.x API refuses it)',
  });
  const g = baseGraph();
  g.spec.services.frontend = g.spec.services.VllmDecodeWorker;
  delete g.spec.services.VllmDecodeWorker;
  expect(fromManifest(g).filter((r) => r.rule === 'duplicate-service')).toEqual([
    { path: 'frontend', rule: 'duplicate-service', message: 'differs only in case from "Frontend"; service names must be unique case-insensitively (pods are named after the lowercased name, and the 1.x API refuses it)' },
  ]);
});
