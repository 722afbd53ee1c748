import { Testing } from 'cdk8s';
import { SlaPlannedChart } from '../../examples/sla-planned';
import { fixtureObjects, fixtureTokens, heredoc, readGuides, tokens } from '../support/guides';
import { manifestErrors } from '../support/manifests';

describe('guide 1 step 8: SLA-planned deployment (DGDR)', () => {
  const FIXTURE = 'guide1-dgdr.yaml';

  test('the fixture is the guide manifest, token for token', () => {
    const expected = tokens(heredoc(readGuides(), 'nemotron-nano-4b-dgdr.yaml'));
    expect(fixtureTokens(FIXTURE)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(40);
  });

  test('the example, at the release the guide was written for, synthesizes the guide manifest field for field', () => {
    const synthesized = Testing.synth(new SlaPlannedChart(Testing.app(), 'guide1', undefined, '0.9.0'));
    expect(synthesized).toEqual(fixtureObjects(FIXTURE));
  });

  test('the guide manifest is valid against the DGDR CRD', () => {
    expect(manifestErrors(fixtureObjects(FIXTURE)[0])).toEqual([]);
  });
});
