import { Backend, checkGraphManifest, disaggregatedGraphSpec, aggregatedGraphSpec, Fabric, RELEASES, renderGraph, renderSlaPlanned, Router } from '../../src';
import { crdErrors } from '../support/crd';
import { holes } from '../support/manifests';
import { normalized } from '../support/normalized';

/** `rehearsal: true`: the same graph with Dynamo's mocker in place of every engine. */

const VERSIONS: Record<string, string> = { '0.8': '0.8.1', '0.9': '0.9.0', '1.4': '1.4.2', '1.5': '1.5.1', '1.6': '1.6.1' };
const BACKENDS = { vllm: () => Backend.vllm(), sglang: () => Backend.sglang(), trtllm: () => Backend.trtllm() };

const options = (dynamoVersion: string, backend: Backend, rehearsal: boolean) => ({
  dynamoVersion,
  model: 'meta-llama/Llama-3.3-70B-Instruct',
  servedModelName: 'llama',
  backend,
  fabric: Fabric.rdma(),
  rehearsal,
  frontend: { router: Router.kv({ blockSize: 32 }) },
  prefill: { tensorParallelSize: 2, replicas: 2, blockSize: 32, maxNumSeqs: 8 },
  decode: { tensorParallelSize: 4, blockSize: 32, maxModelLen: 16384 },
  planner: { ttftMs: 300, itlMs: 30, maxGpuBudget: 16 },
});

describe.each(Object.keys(RELEASES).flatMap((line) => Object.keys(BACKENDS).map((b) => [line, b] as const)))('Dynamo %s, %s', (line, backend) => {
  const version = VERSIONS[line];
  const release = RELEASES[line];
  const real = renderGraph(disaggregatedGraphSpec('llm', 'ns', options(version, BACKENDS[backend as keyof typeof BACKENDS](), false) as never));
  const rehearsal = renderGraph(disaggregatedGraphSpec('llm', 'ns', options(version, BACKENDS[backend as keyof typeof BACKENDS](), true) as never));
  const services = (g: unknown) => normalized(g);

  test('workers run the mocker in their role, with the engine\'s model, served name, block size and limits; nothing else changes', () => {
    const before = services(real.graph);
    const after = services(rehearsal.graph);
    expect(Object.keys(after)).toEqual(Object.keys(before));
    for (const name of Object.keys(after)) {
      const s = after[name];
      if (s.componentType !== 'worker') {
        expect({ name, service: s }).toEqual({ name, service: before[name] });
        continue;
      }
      const role = s.subComponentType as 'prefill' | 'decode';
      const c = s.extraPodSpec.mainContainer;
      expect(c.command).toEqual(['python3', '-m', 'dynamo.mocker']);
      expect(c.args).toEqual([
        '--model-path', 'meta-llama/Llama-3.3-70B-Instruct',
        '--model-name', 'llama',
        ...(release.mocker.engineTypeFlag ? [release.mocker.engineTypeFlag, backend] : []),
        '--block-size', '32',
        ...(role === 'prefill' ? ['--max-num-seqs', '8'] : []),
        ...(role === 'decode' && release.mocker.maxModelLen ? ['--max-model-len', '16384'] : []),
        ...release.mocker.roleFlags[role],
        // 1.x: unset, the mocker's event plane is NATS under Kubernetes discovery, and the platform has none
        ...(line.startsWith('1.') ? ['--event-plane', 'zmq'] : []),
      ]);
      expect(c.image).toBe(release.mocker.image ? `nvcr.io/nvidia/ai-dynamo/${release.mocker.image}:${version}` : before[name].extraPodSpec.mainContainer.image);
      // no GPU, no RDMA or EFA device, no IPC_LOCK, no fabric environment
      expect(s.resources?.limits?.gpu).toBeUndefined();
      expect(c.resources).toBeUndefined();
      expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      expect((s.envs ?? []).filter((e: { name: string }) => /^(UCX_|FI_|NIXL)/.test(e.name))).toEqual([]);
      expect(s.replicas).toBe(before[name].replicas);
      expect(s.scalingAdapter).toBe(before[name].scalingAdapter);
    }
  });

  test('valid against the release\'s CRD, and its rules find nothing to fix', () => {
    expect(crdErrors(rehearsal.graph)).toEqual([]);
    expect(holes([rehearsal.graph, ...rehearsal.configMaps])).toEqual([]);
    expect(checkGraphManifest(rehearsal.graph, rehearsal.configMaps, { release }).filter((f) => f.severity === 'error')).toEqual([]);
    expect(rehearsal.configMaps.filter((c) => c.metadata.name.endsWith('-engine'))).toEqual([]);
  });
});

test('an aggregated rehearsal: one mocker pool, no role flags', () => {
  const r = renderGraph(aggregatedGraphSpec('agg', 'ns', { model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), rehearsal: true, workers: { replicas: 3 } }));
  const worker = (r.graph as any).spec.components.find((c: any) => c.type === 'worker');
  expect(worker.replicas).toBe(3);
  expect(worker.podTemplate.spec.containers[0].args).toEqual(['--model-path', 'Qwen/Qwen3-0.6B', '--engine-type', 'vllm', '--block-size', '16', '--event-plane', 'zmq']);
});

test('an SLA-planned rehearsal deploys the mocker graph (0.x deployMocker, 1.x features.mocker); contradicting deployMocker is an error', () => {
  const request = (o: object) => renderSlaPlanned('r', 'ns', { model: 'm', backend: Backend.vllm(), sla: { isl: 100, osl: 10, ttftMs: 100, itlMs: 10 }, ...o } as never).object as any;
  expect(request({ rehearsal: true }).spec.features.mocker).toEqual({ enabled: true });
  expect(request({ rehearsal: true, dynamoVersion: '0.9.0' }).spec.deployMocker).toBe(true);
  expect(() => request({ rehearsal: true, deployMocker: false })).toThrow(/rehearsal: is true, but deployMocker is false/);
});
