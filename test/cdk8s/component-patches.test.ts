import { Chart, JsonPatch, Testing } from 'cdk8s';
import { Backend, DisaggregatedDeployment, DynamoValidationError, Fabric } from '../../src/cdk8s';
import { crdErrors } from '../support/crd';

/** Patches relative to a service, its pod or its main container land in the same place on every release. */
function deployment(dynamoVersion: string) {
  const chart = new Chart(Testing.app(), 'c');
  const d = new DisaggregatedDeployment(chart, 'llm', {
    dynamoVersion, model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: {}, decode: {},
  });
  return { chart, d };
}

/** The service named `name` of a synthesized graph, whatever its API version. */
function service(chart: Chart, name: string): any {
  const graph = Testing.synth(chart).find((o) => o.kind === 'DynamoGraphDeployment');
  expect(crdErrors(graph)).toEqual([]);
  return graph.apiVersion === 'nvidia.com/v1beta1' ? graph.spec.components.find((c: any) => c.name === name) : graph.spec.services[name];
}

describe.each([
  ['1.6.1', (s: any) => s.podTemplate.spec, (s: any) => s.podTemplate.spec.containers.find((c: any) => c.name === 'main')],
  ['0.9.0', (s: any) => s.extraPodSpec, (s: any) => s.extraPodSpec.mainContainer],
])('Dynamo %s', (dynamoVersion, podOf, containerOf) => {
  test('the same pod and container patches reach the pod spec and the main container', () => {
    const { chart, d } = deployment(dynamoVersion);
    d.decode.addPodPatch(JsonPatch.add('/priorityClassName', 'llm-critical'), JsonPatch.add('/terminationGracePeriodSeconds', 600));
    d.frontend.addContainerPatch(JsonPatch.add('/stdin', true));
    d.prefill.addContainerPatch(JsonPatch.add('/workingDir', '/srv'));
    const decode = service(chart, d.decode.serviceName);
    expect([podOf(decode).priorityClassName, podOf(decode).terminationGracePeriodSeconds]).toEqual(['llm-critical', 600]);
    expect(containerOf(service(chart, 'Frontend')).stdin).toBe(true);
    expect(containerOf(service(chart, d.prefill.serviceName)).workingDir).toBe('/srv');
    // the other services are untouched
    expect(podOf(service(chart, d.prefill.serviceName)).priorityClassName).toBeUndefined();
  });

  test('a component patch is relative to the service entry, in the API version\'s own fields', () => {
    const { chart, d } = deployment(dynamoVersion);
    d.decode.addComponentPatch(JsonPatch.replace('/replicas', 3));
    expect(service(chart, d.decode.serviceName).replicas).toBe(3);
  });
});

test('a patch path that is no JSON pointer is refused, naming the patch, and none of the patches is applied', () => {
  const { chart, d } = deployment('1.6.1');
  let e: unknown;
  try {
    d.decode.addPodPatch(JsonPatch.add('/hostIPC', false), JsonPatch.add('hostNetwork', true));
  } catch (err) {
    e = err;
  }
  expect(e).toBeInstanceOf(DynamoValidationError);
  expect((e as DynamoValidationError).issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
    `patches[1].path: must be a JSON pointer relative to the component's pod spec, starting with "/" (e.g. "/hostNetwork"), got "hostNetwork"`,
  ]);
  expect(service(chart, d.decode.serviceName).podTemplate.spec.hostIPC).toBeUndefined();
});
