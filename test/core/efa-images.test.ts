import { Backend, BackendName, DEFAULT_DYNAMO_VERSION, disaggregatedGraphSpec, Fabric, renderGraph } from '../../src';
import { crdErrors } from '../support/crd';

// Where a release publishes `<backend>-runtime:<version>-efa` (1.x), Fabric.efa() runs the engine
// workers on it: the plain tag has no aws-ofi-nccl, so NCCL cannot use EFA there.

const BACKENDS: Record<BackendName, () => Backend> = { vllm: () => Backend.vllm(), sglang: () => Backend.sglang(), trtllm: () => Backend.trtllm() };
const IMAGE_NAMES: Record<BackendName, string> = { vllm: 'vllm-runtime', sglang: 'sglang-runtime', trtllm: 'tensorrtllm-runtime' };

function render(version: string, backend: BackendName, fabric: Fabric, image?: string): any {
  return renderGraph(
    disaggregatedGraphSpec('llm', 'serving', { model: 'Qwen/Qwen3-0.6B', backend: BACKENDS[backend](), dynamoVersion: version, fabric, image, prefill: {}, decode: {} }),
  ).graph;
}

/** The main image of each component, by name, and its runtimeVersionOverride (1.x). */
function images(graph: any): Record<string, { image: string; runtimeVersionOverride?: string }> {
  if (graph.apiVersion === 'nvidia.com/v1beta1') {
    return Object.fromEntries(
      graph.spec.components.map((c: any) => [
        c.name,
        { image: c.podTemplate.spec.containers.find((x: any) => x.name === 'main').image, runtimeVersionOverride: c.runtimeVersionOverride },
      ]),
    );
  }
  return Object.fromEntries(Object.entries(graph.spec.services).map(([n, s]: [string, any]) => [n, { image: s.extraPodSpec.mainContainer.image }]));
}

describe.each([DEFAULT_DYNAMO_VERSION, '1.5.1', '1.4.2'])('Dynamo %s publishes EFA runtime images', (version) => {
  test.each(['vllm', 'sglang', 'trtllm'] as BackendName[])('Fabric.efa() puts the %s workers on the -efa tag, the frontend on the plain one', (backend) => {
    const graph = render(version, backend, Fabric.efa());
    const plain = `nvcr.io/nvidia/ai-dynamo/${IMAGE_NAMES[backend]}:${version}`;
    const byName = images(graph);
    const workers = Object.keys(byName).filter((n) => n !== 'Frontend');
    expect(workers).toHaveLength(2);
    for (const w of workers) {
      // the tag is no plain version, so admission reads the version from runtimeVersionOverride
      expect(byName[w]).toEqual({ image: `${plain}-efa`, runtimeVersionOverride: version });
    }
    expect(byName.Frontend).toEqual({ image: plain });
    expect(crdErrors(graph)).toEqual([]);
  });

});

test('only Fabric.efa(), on a release that publishes EFA images and with the default image, changes the image', () => {
  const imagesOf = (graph: any) => [...new Set(Object.values(images(graph)).map((i) => i.image))].sort();
  const runtime = (v: string) => `nvcr.io/nvidia/ai-dynamo/vllm-runtime:${v}`;
  const own = 'registry.example.com/dynamo/vllm-runtime:custom';
  expect({
    efa: imagesOf(render(DEFAULT_DYNAMO_VERSION, 'vllm', Fabric.efa())),
    rdma: imagesOf(render(DEFAULT_DYNAMO_VERSION, 'vllm', Fabric.rdma())),
    tcp: imagesOf(render(DEFAULT_DYNAMO_VERSION, 'vllm', Fabric.tcp())),
    ownImage: imagesOf(render(DEFAULT_DYNAMO_VERSION, 'vllm', Fabric.efa(), own)),
    // 0.8 and 0.9 publish no EFA images (the variants came with 1.0.0)
    efa09: imagesOf(render('0.9.0', 'vllm', Fabric.efa())),
    efa08: imagesOf(render('0.8.1', 'vllm', Fabric.efa())),
  }).toEqual({
    efa: [runtime(DEFAULT_DYNAMO_VERSION), `${runtime(DEFAULT_DYNAMO_VERSION)}-efa`],
    rdma: [runtime(DEFAULT_DYNAMO_VERSION)],
    tcp: [runtime(DEFAULT_DYNAMO_VERSION)],
    ownImage: [own],
    efa09: [runtime('0.9.0')],
    efa08: [runtime('0.8.1')],
  });
  expect(crdErrors(render('0.9.0', 'vllm', Fabric.efa()))).toEqual([]);
});
