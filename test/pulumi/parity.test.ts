import * as pulumi from '@pulumi/pulumi';
import { Testing } from 'cdk8s';
import { EXAMPLES } from '../../examples';
import { TWINS } from '../../examples/pulumi/twins';
import { PulumiRecorder } from '../support/pulumi';

/**
 * For every example, the objects the Pulumi twin registers (under mocks) are
 * the objects the cdk8s example synthesizes: same set, same content.
 */
const recorder = new PulumiRecorder();
beforeAll(() => recorder.install());
// warnings are asserted where they matter; keep the output readable
beforeAll(() => jest.spyOn(pulumi.log, 'warn').mockImplementation(() => Promise.resolve()));
beforeEach(() => recorder.clear());

const key = (o: any) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;

test('every cdk8s example has a Pulumi twin', () => {
  expect(Object.keys(TWINS).sort()).toEqual(Object.keys(EXAMPLES).sort());
});

describe.each(Object.keys(EXAMPLES) as (keyof typeof EXAMPLES)[])('%s', (name) => {
  test('Pulumi registers exactly the objects cdk8s synthesizes', async () => {
    const namespace = 'parity-ns';
    const cdk8s = Testing.synth(new EXAMPLES[name](Testing.app(), name, namespace));
    expect(cdk8s.length).toBeGreaterThan(0);
    TWINS[name](namespace);
    await recorder.settle();
    const pulumi = recorder.kubeObjects();
    expect(pulumi.map(key).sort()).toEqual(cdk8s.map(key).sort());
    for (const object of cdk8s) {
      expect(pulumi.find((o) => key(o) === key(object))).toEqual(object);
    }
  });
});
