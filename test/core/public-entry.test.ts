import * as core from '../../src';
import { Backend, checkGraphManifest, disaggregatedGraphSpec, DynamoValidationError, Fabric, renderGraph } from '../../src';

/** The core entry as a user without cdk8s or Pulumi reads it (README, "Without cdk8s or Pulumi"). */
describe('the core entry point', () => {
  test('renders a graph from the deployment options, and lints what it rendered clean', () => {
    const spec = disaggregatedGraphSpec('llm', 'dynamo-workloads', {
      model: 'Qwen/Qwen3-0.6B',
      backend: Backend.vllm(),
      fabric: Fabric.rdma(),
      prefill: { replicas: 1 },
      decode: { replicas: 2 },
    });
    const { graph, warnings } = renderGraph(spec);
    expect(graph).toMatchObject({ apiVersion: 'nvidia.com/v1beta1', kind: 'DynamoGraphDeployment', metadata: { name: 'llm', namespace: 'dynamo-workloads' } });
    // a 0.6B model split into prefill and decode is legal, and probably not worth it
    expect(warnings.map((w) => w.rule)).toEqual(['small-model-disaggregated']);
    expect(checkGraphManifest(graph).filter((f) => f.severity === 'error')).toEqual([]);
  });

  test('throws DynamoValidationError listing every problem', () => {
    const spec = disaggregatedGraphSpec('llm', undefined, { model: '', backend: Backend.vllm(), prefill: { replicas: -1 }, decode: { tensorParallelSize: 3, gpus: 4 } });
    let thrown: unknown;
    try {
      renderGraph(spec);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(DynamoValidationError);
    expect((thrown as DynamoValidationError).issues.map((i) => i.path)).toEqual(expect.arrayContaining(['model', 'prefill.replicas', 'decode.gpus']));
  });

  test('exports the public surface only: no option checks, renderer parts or validation flags', () => {
    const names = Object.keys(core);
    for (const internal of ['markChecked', 'isChecked', 'Diagnostics', 'checkGraph', 'checkWorker', 'renderWorker', 'renderPlanner', 'plannerFlags', 'releaseOf', 'reportFindings', 'patchPointer']) {
      expect(names).not.toContain(internal);
    }
    for (const contract of ['Backend', 'Router', 'Fabric', 'LoadPredictor', 'DynamoValidationError', 'HelmInstall', 'Dashboards', 'RELEASES', 'RULES']) {
      expect(names).toContain(contract);
    }
  });
});
