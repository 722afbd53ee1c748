import { Backend, DEFAULT_DYNAMO_VERSION, disaggregatedGraphSpec, renderGraph } from '../../src';
import { crdErrors } from '../support/crd';

// A gated model without a model cache: the frontend fetches the tokenizer itself, so on the releases
// whose own manifests give it the token Secret (1.x), it needs `envFrom` as much as the workers do.

function render(version: string): any {
  return renderGraph(
    disaggregatedGraphSpec('llm', 'serving', {
      model: 'meta-llama/Llama-3.3-70B-Instruct',
      backend: Backend.vllm(),
      dynamoVersion: version,
      hfTokenSecret: 'hf-token-secret',
      prefill: { tensorParallelSize: 4 },
      decode: { tensorParallelSize: 4 },
      planner: { ttftMs: 600, itlMs: 20 },
    }),
  ).graph;
}

/** The Secrets each component's main container takes its environment from, by component. */
function secretsByComponent(graph: any): Record<string, string[]> {
  if (graph.apiVersion === 'nvidia.com/v1beta1') {
    return Object.fromEntries(
      graph.spec.components.map((c: any) => {
        const main = c.podTemplate.spec.containers.find((x: any) => x.name === 'main');
        return [c.name, (main.envFrom ?? []).map((e: any) => e.secretRef.name)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(graph.spec.services).map(([n, s]: [string, any]) => [n, s.envFromSecret === undefined ? [] : [s.envFromSecret]]));
}

describe.each([DEFAULT_DYNAMO_VERSION, '1.5.1', '1.4.2'])('Dynamo %s', (version) => {
  const graph = render(version);

  test('the frontend and the workers get the token Secret, as the release templates give it; the planner does not', () => {
    expect(secretsByComponent(graph)).toEqual({
      Frontend: ['hf-token-secret'],
      Planner: [],
      VllmPrefillWorker: ['hf-token-secret'],
      VllmDecodeWorker: ['hf-token-secret'],
    });
    expect(crdErrors(graph)).toEqual([]);
  });
});

test('each release line gives the Secret where its own manifests do: 1.x frontend and workers, 0.8/0.9 workers only', () => {
  const given = Object.fromEntries(['1.6.1', '1.5.1', '1.4.2', '0.9.0', '0.8.1'].map((v) => [v, secretsByComponent(render(v))]));
  const workersOnly = { Frontend: [], Planner: [], VllmPrefillWorker: ['hf-token-secret'], VllmDecodeWorker: ['hf-token-secret'] };
  const withFrontend = { ...workersOnly, Frontend: ['hf-token-secret'] };
  expect(given).toEqual({ '1.6.1': withFrontend, '1.5.1': withFrontend, '1.4.2': withFrontend, '0.9.0': workersOnly, '0.8.1': workersOnly });
  // without the option no component takes its environment from a Secret
  const none: any = renderGraph(disaggregatedGraphSpec('llm', 'serving', { model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), prefill: {}, decode: {} })).graph;
  expect(Object.values(secretsByComponent(none)).flat()).toEqual([]);
  expect(crdErrors(render('0.9.0'))).toEqual([]);
});
