import { Testing } from 'cdk8s';
import { DisaggregatedRdmaChart } from '../../examples/disaggregated-rdma';
import { fixtureObjects, fixtureTokens, heredoc, readGuides, tokens } from '../support/guides';
import { manifestErrors } from '../support/manifests';

/** Guide 2's manifest (PVC + DGD) is the expected output of the disaggregated-rdma example. */
describe('guide 2: disaggregated deployment with RDMA', () => {
  const FIXTURE = 'guide2-disaggregated.yaml';

  test('the fixture is the guide manifest, token for token', () => {
    const guide = readGuides();
    const expected = [...tokens(heredoc(guide, 'model-cache-pvc.yaml')), ...tokens(heredoc(guide, 'dynamo-disagg-deployment.yaml'))];
    expect(fixtureTokens(FIXTURE)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(200);
  });

  test('the example, at the release the guide was written for, synthesizes the guide manifest field for field', () => {
    const synthesized = Testing.synth(new DisaggregatedRdmaChart(Testing.app(), 'guide2', 'llm-serving', '0.9.0'));
    const expected = fixtureObjects(FIXTURE, { $LLM_NAMESPACE: 'llm-serving' });
    const key = (o: any) => `${o.kind}/${o.metadata.name}`;
    expect(synthesized.map(key).sort()).toEqual(expected.map(key).sort());
    for (const want of expected) {
      expect(synthesized.find((o) => key(o) === key(want))).toEqual(want);
    }
  });

  test('the guide manifest itself is valid against the CRD and Kubernetes schemas', () => {
    for (const obj of fixtureObjects(FIXTURE, { $LLM_NAMESPACE: 'llm-serving' })) expect(manifestErrors(obj)).toEqual([]);
  });
});
