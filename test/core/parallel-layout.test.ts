import { aggregatedGraphSpec, attentionHeads, Backend, checkGraphManifest, DynamoValidationError, manifestPath, renderGraph } from '../../src/core/internal';

/**
 * A parallel layout uses exactly the GPUs it asks for (tensor x pipeline x data parallel =
 * the GPUs across the nodes), and tensor parallelism divides the model's attention heads,
 * in the constructs (which check their draft) and in lint alike.
 */

interface Worker {
  readonly engine: 'vllm' | 'sglang' | 'trtllm';
  readonly args: readonly string[];
  readonly gpus: number;
  readonly nodes?: number;
}

/** A 1.6.1 graph with a frontend and one aggregated worker. */
function graph(w: Worker): Record<string, unknown> {
  const image = `nvcr.io/nvidia/ai-dynamo/${w.engine === 'trtllm' ? 'tensorrtllm' : w.engine}-runtime:1.6.1`;
  return {
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeployment',
    metadata: { name: 'g' },
    spec: {
      services: {
        Frontend: { componentType: 'frontend', extraPodSpec: { mainContainer: { image, command: ['python3', '-m', 'dynamo.frontend'] } } },
        worker: {
          componentType: 'worker',
          resources: { limits: { gpu: String(w.gpus) } },
          ...(w.nodes !== undefined ? { multinode: { nodeCount: w.nodes } } : {}),
          extraPodSpec: { mainContainer: { image, command: ['python3', '-m', `dynamo.${w.engine}`], args: [...w.args] } },
        },
      },
    },
  };
}

const LAYOUT_RULES = ['parallelism-gpus', 'multinode-gpus', 'tensor-parallel-heads'];

/** `path [rule]: message` of the layout findings. */
function layout(w: Worker): string[] {
  return checkGraphManifest(graph(w))
    .filter((f) => LAYOUT_RULES.includes(f.rule))
    .map((f) => `${manifestPath(f)} [${f.rule}]: ${f.message}`);
}

describe('tensor x pipeline x data parallel = the GPUs of an engine', () => {
  test('fewer ranks than GPUs: the idle GPUs are reported, with both fixes', () => {
    expect(layout({ engine: 'vllm', args: ['--model', 'Qwen/Qwen3-32B', '--tensor-parallel-size', '2'], gpus: 4 })).toEqual([
      "worker.resources.limits.gpu [parallelism-gpus]: is 4, but each engine's parallelism (tensor 2) runs on 2: 2 GPUs would sit idle. Give each engine 2 GPUs, or raise the tensor parallel size to 4 (tensor x pipeline x data parallel = the GPUs across the nodes)",
    ]);
    // a layout the rules cannot read whole is not reported idle: TensorRT-LLM's engine config is not among the objects,
    expect(layout({ engine: 'trtllm', args: ['--model-path', 'm', '--extra-engine-args', '/config/engine.yaml'], gpus: 4 })).toEqual([]);
    // a vLLM --config file can set the parallelism
    expect(layout({ engine: 'vllm', args: ['--model', 'm', '--config', '/config/vllm.yaml'], gpus: 4 })).toEqual([]);
  });

  test('pipeline and data parallel ranks count, on every node', () => {
    expect(layout({ engine: 'vllm', args: ['--model', 'm', '-tp', '2', '-pp', '2'], gpus: 8 })).toEqual([
      "worker.resources.limits.gpu [parallelism-gpus]: is 8, but each engine's parallelism (tensor 2 x pipeline 2) runs on 4: 4 GPUs would sit idle. Give each engine 4 GPUs, or raise the tensor parallel size to 4 (tensor x pipeline x data parallel = the GPUs across the nodes)",
    ]);
    expect(layout({ engine: 'vllm', args: ['--model', 'm', '-tp', '2', '-pp', '2'], gpus: 4 })).toEqual([]);
    expect(layout({ engine: 'sglang', args: ['--model-path', 'm', '--tp-size', '4', '--pp-size', '2'], gpus: 4, nodes: 2 })).toEqual([]);
    expect(layout({ engine: 'sglang', args: ['--model-path', 'm', '--tp-size', '4'], gpus: 4, nodes: 2 })).toEqual([
      "worker.multinode.nodeCount [multinode-gpus]: is 2, but the engine's 4 parallel ranks (tensor 4) fit on one node's 4 GPUs: the other nodes would sit idle. Drop multinode, or raise the parallelism to use 8 GPUs",
    ]);
  });

  test("data parallel layouts as Dynamo's examples run them are not misread", () => {
    // SGLang data-parallel attention: the data parallel ranks split the tensor parallel GPUs
    expect(layout({ engine: 'sglang', args: ['--model-path', 'm', '--tp', '16', '--dp-size', '16', '--enable-dp-attention', '--ep-size', '16'], gpus: 8, nodes: 2 })).toEqual([]);
    // SGLang without it: each data parallel rank has its own tensor parallel GPUs
    expect(layout({ engine: 'sglang', args: ['--model-path', 'm', '--tp-size', '2', '--dp-size', '2'], gpus: 4 })).toEqual([]);
    expect(layout({ engine: 'sglang', args: ['--model-path', 'm', '--tp-size', '2', '--dp-size', '2'], gpus: 2 })).toEqual([
      "worker.resources.limits.gpu [parallelism-gpus]: is 2, fewer than the 4 GPUs each engine's parallelism needs (tensor 2 x data 2); give each engine at least 4 GPUs",
    ]);
    // vLLM wide expert parallel: 8 local data parallel ranks on each of 2 nodes
    expect(layout({ engine: 'vllm', args: ['--model', 'm', '--data-parallel-size', '16', '--data-parallel-size-local', '8', '--enable-expert-parallel'], gpus: 8, nodes: 2 })).toEqual([]);
  });
});

describe("tensor parallelism divides the model's attention heads", () => {
  test('the heads of the models the library knows, as their config.json gives them', () => {
    expect(attentionHeads('Qwen/Qwen3-32B')).toEqual({ attention: 64, keyValue: 8 });
    expect(attentionHeads('qwen/qwen3-0.6b')).toEqual({ attention: 16, keyValue: 8 });
    expect(attentionHeads('meta-llama/Llama-3.3-70B-Instruct')).toEqual({ attention: 64, keyValue: 8 });
    expect(attentionHeads('example/unknown-7B')).toBeUndefined();
  });

  test('a tensor parallel size that does not divide them is an error at the flag; a known model only', () => {
    expect(layout({ engine: 'vllm', args: ['--model', 'Qwen/Qwen3-0.6B', '--tensor-parallel-size', '3'], gpus: 3 })).toEqual([
      'worker.extraPodSpec.mainContainer.args[--tensor-parallel-size] [tensor-parallel-heads]: is 3, which does not divide the 16 attention heads of Qwen/Qwen3-0.6B (its config.json num_attention_heads): the engine refuses to start. Use a tensor parallel size that divides 16 (1, 2, 4, 8), with as many GPUs',
    ]);
    expect(layout({ engine: 'vllm', args: ['--model', 'Qwen/Qwen3-0.6B', '--tensor-parallel-size', '4'], gpus: 4 })).toEqual([]);
    expect(layout({ engine: 'vllm', args: ['--model', 'example/unknown-7B', '--tensor-parallel-size', '3'], gpus: 3 })).toEqual([]);
  });
});

describe('the constructs check the layout of their draft', () => {
  const render = (tensorParallelSize: number, gpus: number, model = 'Qwen/Qwen3-32B') => () =>
    renderGraph(aggregatedGraphSpec('g', 'ns', { model, backend: Backend.vllm(), workers: { tensorParallelSize, gpus } }));
  const issues = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      if (e instanceof DynamoValidationError) return e.issues.map((i) => `${i.path} [${i.rule}]`);
      throw e;
    }
    return [];
  };

  test('tensorParallelSize 3 on 4 GPUs throws, naming the fields', () => {
    expect(render(3, 4)).toThrow(DynamoValidationError);
    expect(issues(render(3, 4))).toEqual(['workers.tensorParallelSize [tensor-parallel-heads]', 'workers.gpus [parallelism-gpus]']);
  });

  test('a layout that uses its GPUs and divides the heads renders', () => {
    expect(issues(render(4, 4))).toEqual([]);
    expect(issues(render(2, 4))).toEqual(['workers.gpus [parallelism-gpus]']);
  });
});
