import * as pulumi from '@pulumi/pulumi';
import { TWINS } from './twins';

// `pulumi up` deploys every example into one namespace (config `namespace`).
const namespace = new pulumi.Config().get('namespace') ?? 'dynamo-workloads';
for (const twin of Object.values(TWINS)) twin(namespace);
