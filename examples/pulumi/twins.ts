import { aggregatedKvRouter } from './aggregated-kv-router';
import { clusterInfra, clusterWorkloads } from './cluster';
import { disaggregatedRdma } from './disaggregated-rdma';
import { plannedDisaggregated } from './planned-disaggregated';
import { sglangDisaggregated } from './sglang-disaggregated';
import { slaPlanned } from './sla-planned';
import { trtllmDisaggregated } from './trtllm-disaggregated';

/** The Pulumi twin of each cdk8s example, by the example's name (see ../index.ts). */
export const TWINS = {
  'disaggregated-rdma': disaggregatedRdma,
  'aggregated-kv-router': aggregatedKvRouter,
  'sglang-disaggregated': sglangDisaggregated,
  'trtllm-disaggregated': trtllmDisaggregated,
  'sla-planned': slaPlanned,
  'planned-disaggregated': plannedDisaggregated,
  'cluster-infra': clusterInfra,
  'cluster-workloads': clusterWorkloads,
} as const;
