import * as pulumi from '@pulumi/pulumi';
import { Backend, DynamoGraph, Frontend, PrefillWorker } from '../../src/pulumi';

// A Pulumi program (under mocks) whose graph breaks a cross-component rule.
// Prints what the engine saw; exits 1 when the program fails, as `pulumi up` would.
let kubeRegistrations = 0;
const rejections = new Set<string>();
process.on('unhandledRejection', (e: any) => rejections.add(`${e?.name}: ${e?.message}`));

void pulumi.runtime
  .setMocks({
    newResource: (args) => {
      if (args.type.startsWith('kubernetes:')) kubeRegistrations++;
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: (args) => args.inputs,
  })
  .then(() => {
    const graph = new DynamoGraph('lonely', { model: 'm', backend: Backend.vllm() });
    new Frontend('lonely-frontend', { graph, serviceName: 'Frontend' });
    new PrefillWorker('lonely-prefill', { graph, serviceName: 'VllmPrefillWorker' });
    setTimeout(() => {
      process.stdout.write(JSON.stringify({ kubeRegistrations, rejections: [...rejections] }));
      process.exit(rejections.size > 0 ? 1 : 0);
    }, 500);
  });
