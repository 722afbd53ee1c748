import { lintSources } from '../../src/cli/lint/lint';
import { aggregatedGraphSpec, Backend, checkGraphManifest, disaggregatedGraphSpec, manifestPath, releaseOfVersion, renderGraph } from '../../src/core/internal';
import { lintCrds } from '../support/crd';

/**
 * Dynamo 1.6 reads Grove's update strategy from the nvidia.com/grove-update-strategy
 * annotation, and its release notes and API docs disagree on the default: the library
 * always writes it, and lint reports a graph that leaves it out where that matters.
 */

const KEY = 'nvidia.com/grove-update-strategy';

/** A graph on the images of `tag`: aggregated, or with prefill and decode workers. */
function graph(tag: string, disaggregated: boolean, annotations?: Record<string, string>): Record<string, unknown> {
  const image = `nvcr.io/nvidia/ai-dynamo/vllm-runtime:${tag}`;
  const worker = (sub?: string) => ({
    componentType: 'worker',
    ...(sub ? { subComponentType: sub } : {}),
    resources: { limits: { gpu: '1' } },
    extraPodSpec: {
      mainContainer: {
        image,
        command: ['python3', '-m', 'dynamo.vllm'],
        args: ['--model', 'Qwen/Qwen3-0.6B', ...(sub === 'prefill' ? ['--disaggregation-mode', 'prefill', '--kv-transfer-config', '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'] : []), ...(sub === 'decode' ? ['--disaggregation-mode', 'decode'] : [])],
      },
    },
  });
  return {
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeployment',
    metadata: { name: 'g', ...(annotations ? { annotations } : {}) },
    spec: {
      services: {
        Frontend: { componentType: 'frontend', extraPodSpec: { mainContainer: { image, command: ['python3', '-m', 'dynamo.frontend'] } } },
        ...(disaggregated ? { prefill: worker('prefill'), decode: worker('decode') } : { worker: worker() }),
      },
    },
  };
}

const strategy = (g: Record<string, unknown>, version?: string) =>
  checkGraphManifest(g, [], version ? { release: releaseOfVersion(version) } : {})
    .filter((f) => f.rule === 'update-strategy-unset')
    .map((f) => `${manifestPath(f)} [${f.rule}, ${f.severity}]`);

test('lint --dynamo-version 1.6.1 on a 1.5.1 graph reports the missing update strategy annotation, as a warning that says what happens without it', () => {
  const yaml = JSON.stringify(graph('1.5.1', false));
  const result = lintSources([{ file: 'g.yaml', text: yaml }], { crds: lintCrds(), release: releaseOfVersion('1.6.1') });
  const found = result.findings.filter((f) => f.rule === 'update-strategy-unset');
  expect(found.map((f) => `${f.path} [${f.severity}]`)).toEqual([`metadata.annotations[${KEY}] [warning]`]);
  expect(found[0].message).toBe(
    "is not set, and the graph's images are Dynamo 1.5, which read none: Dynamo 1.6.x picks Grove's update strategy from it, and its release notes (Coherent for a graph with prefill and decode workers) and API docs (RollingRecreate) disagree on the default, so how a change rolls out is up to the operator version. Set it to RollingRecreate, Coherent (Grove alpha.14 or later) or OnDelete, as the library does",
  );
  // the same graph on its own release reads no annotation
  expect(strategy(graph('1.5.1', false))).toEqual([]);
  // with the annotation written, nothing to report
  expect(strategy(graph('1.5.1', false, { [KEY]: 'RollingRecreate' }), '1.6.1')).toEqual([]);
});

test('on its own 1.6 release, a graph with prefill and decode workers is reported; an aggregated one, where the sources agree, is not', () => {
  expect(strategy(graph('1.6.1', true))).toEqual([`metadata.annotations[${KEY}] [update-strategy-unset, warning]`]);
  expect(strategy(graph('1.6.1', true, { [KEY]: 'Coherent' }))).toEqual([]);
  expect(strategy(graph('1.6.1', false))).toEqual([]);
});

test('what the library renders for 1.6 carries the annotation, so the constructs report nothing', () => {
  const disagg = renderGraph(disaggregatedGraphSpec('g', 'ns', { dynamoVersion: '1.6.1', model: 'Qwen/Qwen3-32B', backend: Backend.vllm(), prefill: {}, decode: {} }));
  expect(disagg.warnings.filter((w) => w.rule === 'update-strategy-unset')).toEqual([]);
  const written = disagg.graph as { metadata: { annotations?: Record<string, string> } };
  expect(written.metadata.annotations?.[KEY]).toBe('RollingRecreate');
  expect(strategy(written as unknown as Record<string, unknown>, '1.6.1')).toEqual([]);
  // and with the annotation removed, the rules find it missing
  const bare = { ...written, metadata: { ...written.metadata, annotations: {} } };
  expect(strategy(bare as unknown as Record<string, unknown>, '1.6.1')).toEqual([`metadata.annotations[${KEY}] [update-strategy-unset, warning]`]);
  expect(renderGraph(aggregatedGraphSpec('a', 'ns', { dynamoVersion: '1.6.1', model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), workers: {} })).warnings).toEqual([]);
});
