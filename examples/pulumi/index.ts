import * as pulumi from '@pulumi/pulumi';
import { TWINS } from './twins';

// `pulumi up` deploys the cluster stack (Prometheus, the Dynamo platform and an
// SLA-planned deployment in dynamo-system) and every other example into one
// namespace (config `namespace`).
const namespace = new pulumi.Config().get('namespace') ?? 'dynamo-workloads';
const { cluster, ...workloads } = TWINS;
cluster();
for (const twin of Object.values(workloads)) twin(namespace);
