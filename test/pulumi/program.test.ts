import * as path from 'path';
import * as pulumi from '@pulumi/pulumi';
import { PulumiRecorder } from '../support/pulumi';

/**
 * examples/pulumi/index.ts as `pulumi up` runs it (under mocks): every URN
 * unique, and every workload after the platform that installs its CRDs.
 */
const recorder = new PulumiRecorder();
beforeAll(() => recorder.install());
beforeAll(() => jest.spyOn(pulumi.log, 'warn').mockImplementation(() => Promise.resolve()));

test('the example program registers every resource once, workloads after the platform', async () => {
  require(path.resolve(__dirname, '../../examples/pulumi/index.ts'));
  await recorder.settle();
  const urns = recorder.registrations.map((r) => r.urn);
  expect(urns.length).toBeGreaterThan(30);
  expect(urns.filter((u, i) => urns.indexOf(u) !== i)).toEqual([]);

  const platformReleases = recorder.registrations.filter((r) => r.type === 'kubernetes:helm.sh/v3:Release' && r.inputs.chart.startsWith('dynamo-')).map((r) => r.urn);
  // the 1.x platform is one chart (its operator installs the CRDs)
  expect(platformReleases).toHaveLength(1);
  const workloads = recorder.registrations.filter((r) => ['DynamoGraphDeployment', 'DynamoGraphDeploymentRequest'].some((k) => r.type.endsWith(`:${k}`)));
  expect(workloads.length).toBe(6);
  for (const w of workloads) expect(w.dependencies).toEqual(expect.arrayContaining(platformReleases));
});
