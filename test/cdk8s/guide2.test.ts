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

  /**
   * The guide's services with the library's default pod hardening (podSecurity 'hardened'): no privilege
   * escalation, every capability dropped but the IPC_LOCK the guide adds, the runtime's seccomp profile, and
   * the image user's group on volumes. Nothing else differs.
   */
  const hardened = (o: any) => {
    if (o.kind !== 'DynamoGraphDeployment') return o;
    const copy = JSON.parse(JSON.stringify(o));
    for (const s of Object.values<any>(copy.spec.services)) {
      s.extraPodSpec.securityContext = { fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } };
      const main = s.extraPodSpec.mainContainer;
      main.securityContext = { allowPrivilegeEscalation: false, capabilities: { ...(main.securityContext?.capabilities ?? {}), drop: ['ALL'] } };
    }
    return copy;
  };

  test('the example, at the release the guide was written for, synthesizes the guide manifest field for field (with the default hardening)', () => {
    const synthesized = Testing.synth(new DisaggregatedRdmaChart(Testing.app(), 'guide2', 'llm-serving', '0.9.0'));
    const expected = fixtureObjects(FIXTURE, { $LLM_NAMESPACE: 'llm-serving' }).map(hardened);
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
