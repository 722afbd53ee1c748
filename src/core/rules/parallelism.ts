import { checkInteger } from '../checks';
import { Findings } from './findings';
import { GraphModel, workers } from './graph-model';
import { dataParallel, nodeCount, pipelineParallel, podGpus, tensorParallel } from './workload';

/**
 * GPUs and parallelism agree: an engine of tensor x pipeline (x data) parallel
 * ranks needs that many GPUs across its nodes, and a multinode engine needs
 * more than one node's GPUs.
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

    const ranks = (tp ?? 1) * (pp ?? 1) * (dp ?? 1);
    const total = gpus * nodes;
    const product = [`tensor ${tp ?? 1}`, ...(pp !== undefined ? [`pipeline ${pp}`] : []), ...(dp !== undefined ? [`data ${dp}`] : [])].join(' x ');
    if (ranks > total) {
      const have = nodes > 1 ? `${gpus} GPUs per node x ${nodes} nodes = ${total}` : `${gpus}${gpusAt.defaulted ? " (the operator's default)" : ''}`;
      f.report(
        'parallelism-gpus',
        s,
        gpusAt,
        `is ${have}, fewer than the ${ranks} GPUs each engine's parallelism needs (${product}); give each engine at least ${ranks} GPUs`,
      );
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
    }
  }
}
