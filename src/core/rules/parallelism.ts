import { checkInteger } from '../base/checks';
import { Findings } from './findings';
import { GraphModel, workers } from '../model/graph-model';
import { attentionHeads } from './model-size';
import { dataParallel, layoutKnown, modelOf, nodeCount, pipelineParallel, podGpus, tensorParallel } from './workload';

/**
 * GPUs and parallelism agree: an engine of tensor x pipeline (x data) parallel
 * ranks runs on exactly that many GPUs across its nodes (fewer cannot start it,
 * more sit idle), a multinode engine needs more than one node's GPUs, and tensor
 * parallelism splits the model's attention heads evenly.
 */
export function parallelismRules(g: GraphModel, f: Findings): void {
  for (const s of workers(g)) {
    if (s.engine === 'mocker') continue;
    const gpusAt = podGpus(s);
    const gpus = f.checkNumeric(s, gpusAt, (d, path, n) => checkInteger(d, path, n, 1, 'a whole number of GPUs >= 1'));
    const nodesAt = nodeCount(s);
    const nodes = f.checkNumeric(s, nodesAt, (d, path, n) => checkInteger(d, path, n, 1));
    const tpAt = tensorParallel(s);
    const tp = f.checkNumeric(s, tpAt, (d, path, n) => checkInteger(d, path, n, 1));
    const ppAt = pipelineParallel(s);
    const pp = f.checkNumeric(s, ppAt, (d, path, n) => checkInteger(d, path, n, 1));
    const dpAt = dataParallel(s);
    const dp = f.checkNumeric(s, dpAt, (d, path, n) => checkInteger(d, path, n, 1));
    if ((tpAt && tp === undefined) || (ppAt && pp === undefined) || (dpAt && dp === undefined) || gpus === undefined || nodes === undefined) continue;

    headRules(s, tpAt, tp, f);
    // vLLM's --data-parallel-size-local: each node runs that many ranks
    const ranks = (tp ?? 1) * (pp ?? 1) * (dp ?? 1) * (dpAt?.perNode ? nodes : 1);
    const total = gpus * nodes;
    const product = [`tensor ${tp ?? 1}`, ...(pp !== undefined ? [`pipeline ${pp}`] : []), ...(dp !== undefined ? [`data ${dp}${dpAt?.perNode ? ' per node' : ''}`] : [])].join(' x ');
    const have = nodes > 1 ? `${gpus} GPUs per node x ${nodes} nodes = ${total}` : `${gpus}${gpusAt.defaulted ? " (the operator's default)" : ''}`;
    if (ranks > total) {
      f.report('parallelism-gpus', s, gpusAt, `is ${have}, fewer than the ${ranks} GPUs each engine's parallelism needs (${product}); give each engine at least ${ranks} GPUs`);
    } else if (nodes > 1 && ranks % nodes !== 0) {
      f.report(
        'multinode-gpus',
        s,
        nodesAt,
        `is ${nodes}, which does not split the engine's ${ranks} parallel ranks (${product}) evenly: every node runs the same number of ranks. Use a node count that divides ${ranks}`,
      );
    } else if (nodes > 1 && ranks <= gpus) {
      f.report(
        'multinode-gpus',
        s,
        nodesAt,
        `is ${nodes}, but the engine's ${ranks} parallel ranks (${product}) fit on one node's ${gpus} GPUs: the other nodes would sit idle. Drop multinode, or raise the parallelism to use ${total} GPUs`,
      );
    } else if (ranks < total && layoutKnown(s)) {
      // the engine starts one rank per GPU of its layout: the rest of the request is reserved and idle
      const other = (pp ?? 1) * (dp ?? 1) * (dpAt?.perNode ? nodes : 1);
      const raise = total % other === 0 ? `, or raise the tensor parallel size to ${total / other}` : '';
      f.report(
        'parallelism-gpus',
        s,
        gpusAt,
        `is ${have}, but each engine's parallelism (${product}) runs on ${ranks}: ${total - ranks} GPU${total - ranks === 1 ? '' : 's'} would sit idle. Give each engine ${ranks} GPU${ranks === 1 ? '' : 's'}${raise} (tensor x pipeline x data parallel = the GPUs across the nodes)`,
      );
    }
  }
}

/** vLLM, SGLang and TensorRT-LLM shard attention by heads: tensor parallelism must divide them. */
function headRules(s: Parameters<typeof tensorParallel>[0], tpAt: ReturnType<typeof tensorParallel>, tp: number | undefined, f: Findings): void {
  const model = modelOf(s);
  const heads = model && attentionHeads(model.value);
  if (!tpAt || tp === undefined || !heads || heads.attention % tp === 0) return;
  const divisors = Array.from({ length: heads.attention }, (_, i) => i + 1).filter((n) => heads.attention % n === 0 && n <= Math.max(tp * 2, 8));
  f.report(
    'tensor-parallel-heads',
    s,
    tpAt,
    `is ${tp}, which does not divide the ${heads.attention} attention heads of ${model!.value} (its config.json num_attention_heads): the engine refuses to start. Use a tensor parallel size that divides ${heads.attention} (${divisors.join(', ')}), with as many GPUs`,
  );
}
