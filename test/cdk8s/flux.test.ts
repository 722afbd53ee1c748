import { Chart, Testing } from 'cdk8s';
import { FluxKustomization } from '../../src/cdk8s';
import { issuesOf } from '../core/helpers';
import { esmModelErrors } from '../support/manifests';

/** Flux Kustomizations: the stages of a GitOps delivery. */
const sourceRef = { kind: 'GitRepository', name: 'platform' } as const;

test('defaults: flux-system, reconciled every 10 minutes, waiting up to 15 for what it applied, pruning what is removed', () => {
  const chart = new Chart(Testing.app(), 'c');
  new FluxKustomization(chart, 'infra', { sourceRef, path: './dist/infra' });
  const [k] = Testing.synth(chart);
  expect(k).toEqual({
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: 'infra', namespace: 'flux-system' },
    spec: { interval: '10m', timeout: '15m', sourceRef, path: './dist/infra', prune: true, wait: true },
  });
  expect(esmModelErrors([k])).toEqual([[]]);
});

test('a stage in another namespace names the namespace of the stage it waits for', () => {
  const chart = new Chart(Testing.app(), 'c');
  const infra = new FluxKustomization(chart, 'infra', { sourceRef, path: './infra' });
  new FluxKustomization(chart, 'apps', {
    name: 'serving-apps', namespace: 'serving-gitops', sourceRef: { ...sourceRef, namespace: 'flux-system' }, path: 'apps', dependsOn: [infra, { name: 'secrets' }],
    targetNamespace: 'serving', wait: false, prune: false, interval: '1h', timeout: '30m',
  });
  const apps = Testing.synth(chart)[1];
  expect(apps.metadata).toEqual({ name: 'serving-apps', namespace: 'serving-gitops' });
  expect(apps.spec.dependsOn).toEqual([{ name: 'infra', namespace: 'flux-system' }, { name: 'secrets', namespace: undefined }].map((d) => JSON.parse(JSON.stringify(d))));
  expect([apps.spec.targetNamespace, apps.spec.wait, apps.spec.prune, apps.spec.interval, apps.spec.timeout]).toEqual(['serving', false, false, '1h', '30m']);
  expect(esmModelErrors([apps])).toEqual([[]]);
});

test('every problem at once, naming the field', () => {
  const chart = new Chart(Testing.app(), 'c');
  expect(issuesOf(() => new FluxKustomization(chart, 'Bad_Name', {
    sourceRef: { kind: 'HelmRepository' as never, name: 'x' }, path: '../other-repo', interval: 'often', dependsOn: [{ name: 'Bad_Name' }, 'infra' as never], wait: 'yes' as never, sourcRef: {},
  } as never))).toEqual([
    expect.stringMatching(/^name: /),
    expect.stringMatching(/^sourcRef: is not a known option/),
    'sourceRef.kind: must be one of "GitRepository", "OCIRepository", "Bucket", got "HelmRepository"',
    `path: must be a folder inside the source, relative to its root without '..', such as "./dist/cluster-infra", got "../other-repo"`,
    'interval: must be a duration such as "10m" or "1h", got "often"',
    'wait: must be true or false, got "yes"',
    expect.stringMatching(/^dependsOn\[0\]\.name: /),
    'dependsOn[0]: is this Kustomization itself ("Bad_Name"); a stage cannot wait for itself',
    'dependsOn[1]: must be a FluxKustomization or { name, namespace? }, got "infra"',
  ]);
  expect(issuesOf(() => new FluxKustomization(chart, 'x', {} as never))).toEqual([
    'sourceRef: is required: the Flux source (GitRepository, OCIRepository or Bucket) holding the manifests',
    'path: is required',
  ].map((m) => expect.stringContaining(m)));
});
