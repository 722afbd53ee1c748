import * as pulumi from '@pulumi/pulumi';
import { Testing } from 'cdk8s';
import { EXAMPLES } from '../../examples';
import { TWINS } from '../../examples/pulumi/twins';
import { PulumiRecorder } from '../support/pulumi';

/**
 * For every example, the objects the Pulumi twin registers (under mocks) are
 * the objects the cdk8s example synthesizes: same set, same content. Helm
 * charts are the one designed difference: cdk8s installs them as Flux
 * HelmRepository/HelmRelease objects, Pulumi as helm.v3.Releases; both are
 * compared as releases (name, namespace, chart, repository, version, values).
 */
const recorder = new PulumiRecorder();
beforeAll(() => recorder.install());
// warnings are asserted where they matter; keep the output readable
beforeAll(() => jest.spyOn(pulumi.log, 'warn').mockImplementation(() => Promise.resolve()));
beforeEach(() => recorder.clear());

const key = (o: any) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;

interface Release {
  name: string;
  namespace: string;
  chart: string;
  repo: string;
  version?: string;
  createNamespace: boolean;
  values: unknown;
}

function fluxReleases(objects: any[]): Release[] {
  const repos = new Map(objects.filter((o) => o.kind === 'HelmRepository').map((o) => [o.metadata.name, o.spec.url]));
  return objects
    .filter((o) => o.kind === 'HelmRelease')
    .map((o) => ({
      name: o.spec.releaseName,
      namespace: o.spec.targetNamespace,
      chart: o.spec.chart.spec.chart,
      repo: repos.get(o.spec.chart.spec.sourceRef.name),
      version: o.spec.chart.spec.version,
      createNamespace: o.spec.install.createNamespace,
      values: o.spec.values,
    }));
}

function pulumiReleases(): Release[] {
  return recorder.registrations
    .filter((r) => r.type === 'kubernetes:helm.sh/v3:Release')
    .map(({ inputs: i }) => ({ name: i.name, namespace: i.namespace, chart: i.chart, repo: i.repositoryOpts.repo, version: i.version, createNamespace: i.createNamespace, values: i.values }));
}

const byName = (a: Release, b: Release) => a.name.localeCompare(b.name);

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

    const flux = (o: any) => o.apiVersion.startsWith('source.toolkit.fluxcd.io/') || o.apiVersion.startsWith('helm.toolkit.fluxcd.io/');
    const objects = cdk8s.filter((o) => !flux(o));
    const pulumiObjects = recorder.kubeObjects().filter((o) => o.kind !== undefined);
    expect(pulumiObjects.map(key).sort()).toEqual(objects.map(key).sort());
    for (const object of objects) {
      expect(pulumiObjects.find((o) => key(o) === key(object))).toEqual(object);
    }
    expect(pulumiReleases().sort(byName)).toEqual(fluxReleases(cdk8s).sort(byName));
  });
});
