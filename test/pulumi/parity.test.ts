import * as pulumi from '@pulumi/pulumi';
import { Chart, Testing } from 'cdk8s';
import { EXAMPLES } from '../../examples';
import { TWINS } from '../../examples/pulumi/twins';
import { RELEASES } from '../../src/core';
import * as cdk8s from '../../src/cdk8s';
import { AggregatedDeployment, Backend, DisaggregatedDeployment, Fabric, Router } from '../../src/pulumi';
import { PulumiRecorder } from '../support/pulumi';

/**
 * For every example, the objects the Pulumi twin registers (under mocks) are
 * the objects the cdk8s example synthesizes: same set, same content. Helm
 * charts are the one designed difference: cdk8s installs them as Flux
 * HelmRepository/HelmRelease objects, Pulumi as helm.v3.Releases; both are
 * compared as releases (name, namespace, chart, repository, version, values).
 */
const recorder = new PulumiRecorder();
beforeAll(() => recorder.install());
// warnings are asserted where they matter; keep the output readable
beforeAll(() => jest.spyOn(pulumi.log, 'warn').mockImplementation(() => Promise.resolve()));
beforeEach(() => recorder.clear());

const key = (o: any) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;

interface Release {
  name: string;
  namespace: string;
  chart: string;
  repo: string;
  version?: string;
  createNamespace: boolean;
  values: unknown;
}

function fluxReleases(objects: any[]): Release[] {
  const repos = new Map(objects.filter((o) => o.kind === 'HelmRepository').map((o) => [o.metadata.name, o.spec.url]));
  return objects
    .filter((o) => o.kind === 'HelmRelease')
    .map((o) => ({
      name: o.spec.releaseName,
      namespace: o.spec.targetNamespace,
      chart: o.spec.chart.spec.chart,
      repo: repos.get(o.spec.chart.spec.sourceRef.name),
      version: o.spec.chart.spec.version,
      createNamespace: o.spec.install.createNamespace,
      values: o.spec.values,
    }));
}

function pulumiReleases(): Release[] {
  return recorder.registrations
    .filter((r) => r.type === 'kubernetes:helm.sh/v3:Release')
    .map(({ inputs: i }) => ({ name: i.name, namespace: i.namespace, chart: i.chart, repo: i.repositoryOpts.repo, version: i.version, createNamespace: i.createNamespace, values: i.values }));
}

const byName = (a: Release, b: Release) => a.name.localeCompare(b.name);

test('every cdk8s example has a Pulumi twin', () => {
  expect(Object.keys(TWINS).sort()).toEqual(Object.keys(EXAMPLES).sort());
});

describe.each(Object.keys(EXAMPLES) as (keyof typeof EXAMPLES)[])('%s', (name) => {
  test('Pulumi registers exactly the objects cdk8s synthesizes', async () => {
    const namespace = 'parity-ns';
    const cdk8s = Testing.synth(new EXAMPLES[name](Testing.app(), name, namespace));
    expect(cdk8s.length).toBeGreaterThan(0);
    TWINS[name](namespace);
    await recorder.settle();

    const flux = (o: any) => o.apiVersion.startsWith('source.toolkit.fluxcd.io/') || o.apiVersion.startsWith('helm.toolkit.fluxcd.io/');
    const objects = cdk8s.filter((o) => !flux(o));
    const pulumiObjects = recorder.kubeObjects().filter((o) => o.kind !== undefined);
    expect(pulumiObjects.map(key).sort()).toEqual(objects.map(key).sort());
    for (const object of objects) {
      expect(pulumiObjects.find((o) => key(o) === key(object))).toEqual(object);
    }
    expect(pulumiReleases().sort(byName)).toEqual(fluxReleases(cdk8s).sort(byName));
  });
});

/**
 * Beyond the examples: for every release line and backend, a planned disaggregated
 * deployment behind the KV router and an aggregated one, with the same options in
 * both shells, give the same objects.
 */
const LINE_VERSIONS = Object.keys(RELEASES).map((line) => `${line}.0`);

describe.each(LINE_VERSIONS.flatMap((v) => (['vllm', 'sglang', 'trtllm'] as const).map((b) => [v, b] as const)))('Dynamo %s, %s', (dynamoVersion, backend) => {
  test('cdk8s and Pulumi give the same objects for planned disaggregated and aggregated deployments', async () => {
    const backendOf = () => (backend === 'vllm' ? Backend.vllm() : backend === 'sglang' ? Backend.sglang() : Backend.trtllm());
    const disagg = {
      dynamoVersion,
      model: 'meta-llama/Llama-3.3-70B-Instruct',
      fabric: Fabric.rdma(),
      frontend: { router: Router.kv() },
      prefill: { tensorParallelSize: 2 },
      decode: { tensorParallelSize: 4 },
      planner: { ttftMs: 300, itlMs: 30, maxGpuBudget: 16 },
    };
    const agg = { dynamoVersion, model: 'Qwen/Qwen3-32B', frontend: { router: Router.kv() }, workers: { replicas: 2 } };
    const chart = new Chart(Testing.app(), 'c', { namespace: 'serving' });
    new cdk8s.DisaggregatedDeployment(chart, 'llm', { ...disagg, backend: backendOf() });
    new cdk8s.AggregatedDeployment(chart, 'agg', { ...agg, backend: backendOf() });
    const objects = Testing.synth(chart);
    new DisaggregatedDeployment('llm', { ...disagg, namespace: 'serving', backend: backendOf() });
    new AggregatedDeployment('agg', { ...agg, namespace: 'serving', backend: backendOf() });
    await recorder.settle();
    const pulumiObjects = recorder.kubeObjects().filter((o) => o.kind !== undefined);
    expect(pulumiObjects.map(key).sort()).toEqual(objects.map(key).sort());
    for (const object of objects) expect(pulumiObjects.find((o) => key(o) === key(object))).toEqual(object);
  });
});

test.each([
  ['0.9.0', 'vllm'],
  ['1.6.1', 'vllm'],
  // TensorRT-LLM mounts an engine config, which its mocker stand-in has none of
  ['1.6.1', 'trtllm'],
] as const)('a rehearsal (Dynamo %s, %s) gives the same objects through cdk8s and Pulumi', async (dynamoVersion, engine) => {
  const o = { dynamoVersion, model: 'Qwen/Qwen3-32B', rehearsal: true, frontend: { router: Router.kv() }, prefill: { replicas: 2 }, decode: {}, planner: { ttftMs: 300, itlMs: 30 } };
  const chart = new Chart(Testing.app(), 'c', { namespace: 'serving' });
  new cdk8s.DisaggregatedDeployment(chart, 'llm', { ...o, backend: cdk8s.Backend[engine]() });
  const objects = Testing.synth(chart);
  expect(objects.filter((x) => x.kind === 'ConfigMap').map((x) => x.metadata.name)).toEqual(dynamoVersion.startsWith('1.') ? ['llm-planner-config'] : []);
  new DisaggregatedDeployment('llm', { ...o, namespace: 'serving', backend: Backend[engine]() });
  await recorder.settle();
  const pulumiObjects = recorder.kubeObjects().filter((x) => x.kind !== undefined);
  expect(pulumiObjects.map(key).sort()).toEqual(objects.map(key).sort());
  for (const object of objects) expect(pulumiObjects.find((x) => key(x) === key(object))).toEqual(object);
  expect(JSON.stringify(objects)).toContain('dynamo.mocker');
});
