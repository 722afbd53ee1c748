import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { TWINS } from './twins';

// `pulumi up`: the cluster stack (Prometheus and the Dynamo platform in dynamo-system, with
// guide 1's SLA-planned deployment), then every other example in one namespace (config
// `namespace`). Workloads wait for the platform: its CRDs and operator must exist first.
const namespace = new pulumi.Config().get('namespace') ?? 'dynamo-workloads';

const platform = TWINS['cluster-infra']();
TWINS['cluster-workloads'](undefined, { dependsOn: [platform] });

const workloads = new k8s.core.v1.Namespace(namespace, { metadata: { name: namespace } });
const after = { dependsOn: [platform, workloads] };
TWINS['disaggregated-rdma'](namespace, after);
TWINS['aggregated-kv-router'](namespace, after);
TWINS['sglang-disaggregated'](namespace, after);
TWINS['trtllm-disaggregated'](namespace, after);
TWINS['planned-disaggregated'](namespace, after);
// TWINS['sla-planned'] is the same request as cluster-workloads, which deploys it already.
