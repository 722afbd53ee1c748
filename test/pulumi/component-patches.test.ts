import * as pulumi from '@pulumi/pulumi';
import { Chart, JsonPatch, Testing } from 'cdk8s';
import * as cdk8s from '../../src/cdk8s';
import { Backend, DisaggregatedDeployment, DynamoValidationError, Fabric, JsonPatchOperation } from '../../src/pulumi';
import { crdErrors } from '../support/crd';
import { PulumiRecorder } from '../support/pulumi';

/** Patches relative to a service, its pod or its main container, as in the cdk8s shell: the same place on every release. */
const recorder = new PulumiRecorder();
beforeAll(() => recorder.install());
beforeAll(() => jest.spyOn(pulumi.log, 'warn').mockImplementation(() => Promise.resolve()));
beforeEach(() => recorder.clear());

let n = 0;
function deployment(dynamoVersion: string) {
  return new DisaggregatedDeployment(`llm-${n++}`, { name: 'llm', dynamoVersion, model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {} });
}

/** The service named `name` of a rendered graph, whatever its API version. */
function service(graph: any, name: string): any {
  expect(crdErrors(graph)).toEqual([]);
  return graph.apiVersion === 'nvidia.com/v1beta1' ? graph.spec.components.find((c: any) => c.name === name) : graph.spec.services[name];
}

describe.each([
  ['1.6.1', (s: any) => s.podTemplate.spec, (s: any) => s.podTemplate.spec.containers.find((c: any) => c.name === 'main')],
  ['0.9.0', (s: any) => s.extraPodSpec, (s: any) => s.extraPodSpec.mainContainer],
])('Dynamo %s', (dynamoVersion, podOf, containerOf) => {
  test('the same pod and container patches reach the pod spec and the main container of the registered graph', async () => {
    const d = deployment(dynamoVersion);
    d.decode!.addPodPatch({ op: 'add', path: '/priorityClassName', value: 'llm-critical' }, { op: 'add', path: '/terminationGracePeriodSeconds', value: 600 });
    d.frontend.addContainerPatch({ op: 'add', path: '/stdin', value: true });
    d.prefill!.addContainerPatch({ op: 'add', path: '/workingDir', value: '/srv' });
    const graph = (await d.graph.rendered).graph;
    const decode = service(graph, d.decode!.serviceName);
    expect([podOf(decode).priorityClassName, podOf(decode).terminationGracePeriodSeconds]).toEqual(['llm-critical', 600]);
    expect(containerOf(service(graph, 'Frontend')).stdin).toBe(true);
    expect(containerOf(service(graph, d.prefill!.serviceName)).workingDir).toBe('/srv');
    expect(podOf(service(graph, d.prefill!.serviceName)).priorityClassName).toBeUndefined();
    // what the engine receives is the patched graph
    await recorder.settle();
    const registered = recorder.registrations.find((r) => r.type === 'kubernetes:nvidia.com/' + graph.apiVersion.split('/')[1] + ':DynamoGraphDeployment');
    expect(service(registered!.inputs, d.decode!.serviceName)).toEqual(decode);
  });

  test('a component patch is relative to the service entry, in the API version\'s own fields', async () => {
    const d = deployment(dynamoVersion);
    d.decode!.addComponentPatch({ op: 'replace', path: '/replicas', value: 3 });
    expect(service((await d.graph.rendered).graph, d.decode!.serviceName).replicas).toBe(3);
  });

  test('the cdk8s construct and the Pulumi component patched alike write the same graph', async () => {
    const ops: JsonPatchOperation[] = [{ op: 'add', path: '/hostIPC', value: false }, { op: 'add', path: '/nodeSelector', value: { pool: 'gpu' } }];
    const d = deployment(dynamoVersion);
    d.decode!.addPodPatch(...ops);
    const chart = new Chart(Testing.app(), 'c');
    const c = new cdk8s.DisaggregatedDeployment(chart, 'llm', { dynamoVersion, model: 'Qwen/Qwen3-0.6B', backend: cdk8s.Backend.vllm(), fabric: cdk8s.Fabric.rdma(), prefill: {}, decode: {} });
    c.decode!.addPodPatch(JsonPatch.add('/hostIPC', false), JsonPatch.add('/nodeSelector', { pool: 'gpu' }));
    const synthesized = Testing.synth(chart).find((o) => o.kind === 'DynamoGraphDeployment');
    expect(service((await d.graph.rendered).graph, d.decode!.serviceName)).toEqual(service(synthesized, c.decode!.serviceName));
  });
});

test('a patch that is no JSON Patch operation, or whose path is no pointer, is refused at once, naming it; none is kept', async () => {
  const d = deployment('1.6.1');
  let e: unknown;
  try {
    d.decode!.addPodPatch({ op: 'add', path: '/hostIPC', value: false }, { op: 'add', path: 'hostNetwork', value: true }, { op: 'upsert', path: '/x' } as unknown as JsonPatchOperation);
  } catch (err) {
    e = err;
  }
  expect(e).toBeInstanceOf(DynamoValidationError);
  expect((e as DynamoValidationError).issues.map((i) => i.path)).toEqual(['patches[1].path', 'patches[2]']);
  expect(service((await d.graph.rendered).graph, d.decode!.serviceName).podTemplate.spec.hostIPC).toBeUndefined();
});

test('patches added after the graph rendered are refused', async () => {
  const d = deployment('1.6.1');
  await d.graph.rendered;
  expect(() => d.decode!.addPodPatch({ op: 'add', path: '/hostIPC', value: true })).toThrow(/after it rendered/);
});
