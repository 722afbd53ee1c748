import { App } from 'cdk8s';
import { AggregatedKvRouterChart } from './aggregated-kv-router';
import { ClusterDeliveryChart, ClusterInfraChart, ClusterWorkloadsChart } from './cluster';
import { DisaggregatedRdmaChart } from './disaggregated-rdma';
import { PlannedDisaggregatedChart } from './planned-disaggregated';
import { SglangDisaggregatedChart } from './sglang-disaggregated';
import { SlaPlannedChart } from './sla-planned';
import { TrtllmDisaggregatedChart } from './trtllm-disaggregated';

/** Every example chart, by the name it is synthesized under (`dist/<name>.k8s.yaml`). */
export const EXAMPLES = {
  'disaggregated-rdma': DisaggregatedRdmaChart,
  'aggregated-kv-router': AggregatedKvRouterChart,
  'sglang-disaggregated': SglangDisaggregatedChart,
  'trtllm-disaggregated': TrtllmDisaggregatedChart,
  'sla-planned': SlaPlannedChart,
  'planned-disaggregated': PlannedDisaggregatedChart,
  'cluster-infra': ClusterInfraChart,
  'cluster-workloads': ClusterWorkloadsChart,
} as const;

/** The GitOps delivery of the cluster example (Flux only: Pulumi applies the stack itself, so it has no twin). */
export const DELIVERY = {
  'cluster-delivery': ClusterDeliveryChart,
} as const;

/** Adds every example chart to `app`. */
export function addExamples(app: App): void {
  for (const [name, ChartClass] of Object.entries({ ...EXAMPLES, ...DELIVERY })) {
    new ChartClass(app, name);
  }
}
