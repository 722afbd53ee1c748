import { Backend, renderSlaPlanned, SlaPlannedDeploymentOptions } from '../../src';
import { manifestErrors } from '../support/manifests';
import { issuesOf } from './helpers';

/** What an SLA-planned request writes that decides whether GPUs deploy and which Secrets the pods read. */
const MODEL = 'meta-llama/Llama-3.3-70B-Instruct';
const SLA = { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 };

function spec(o: Partial<SlaPlannedDeploymentOptions> = {}): any {
  const { object } = renderSlaPlanned('req', 'ns', { model: MODEL, backend: Backend.vllm(), sla: SLA, ...o });
  expect(manifestErrors(object)).toEqual([]);
  return (object as any).spec;
}

describe('autoApply', () => {
  // the 1.x CRD defaults autoApply to true: left out, the graph deploys as soon as profiling ends
  test.each(['1.6.1', '1.4.2', '0.9.0'])('is written on %s whether or not it is set', (dynamoVersion) => {
    expect(spec({ dynamoVersion }).autoApply).toBe(false);
    expect(spec({ dynamoVersion, autoApply: true }).autoApply).toBe(true);
    expect(spec({ dynamoVersion, autoApply: false }).autoApply).toBe(false);
  });
});

describe('hfTokenSecret', () => {
  test("1.x: the profiling Job reads it beside the profiler's own container settings", () => {
    const s = spec({ hfTokenSecret: 'hf-token-secret', resources: { cpu: { request: '4' } } });
    expect(s.overrides.profilingJob.template.spec.containers).toEqual([
      { name: 'profiler', resources: { requests: { cpu: '4' } }, envFrom: [{ secretRef: { name: 'hf-token-secret' } }] },
    ]);
  });

  test('as an object with a name, such as a cdk8s-plus Secret', () => {
    const s = spec({ hfTokenSecret: { name: 'hf-token-secret' } });
    expect(s.overrides.profilingJob.template.spec.containers[0].envFrom).toEqual([{ secretRef: { name: 'hf-token-secret' } }]);
  });

  test('another name is refused: the generated graph reads hf-token-secret whatever the request says', () => {
    expect(issuesOf(() => spec({ hfTokenSecret: 'my-hf' }))).toEqual([
      'hfTokenSecret: is "my-hf", but the graph Dynamo\'s profiler generates reads the Secret "hf-token-secret" and the request cannot rename it; name the Secret "hf-token-secret"',
    ]);
    expect(issuesOf(() => spec({ hfTokenSecret: 'Bad_Name' as string })).length).toBe(2);
  });

  test('0.9: accepted by name; the v1alpha1 profiling config has no place for it on the Job', () => {
    const s = spec({ dynamoVersion: '0.9.0', hfTokenSecret: 'hf-token-secret' });
    expect(JSON.stringify(s)).not.toContain('hf-token-secret');
  });
});

describe('imagePullSecrets', () => {
  test('1.x: on the profiling Job', () => {
    const s = spec({ imagePullSecrets: ['ngc', { name: 'mirror' }] });
    expect(s.overrides.profilingJob.template.spec.imagePullSecrets).toEqual([{ name: 'ngc' }, { name: 'mirror' }]);
  });

  test('merged with a profilingJob fragment of the user', () => {
    const s = spec({ imagePullSecrets: ['ngc'], profilingJob: { backoffLimit: 2 } });
    expect(s.overrides.profilingJob).toEqual({ backoffLimit: 2, template: { spec: { containers: [{ name: 'profiler' }], imagePullSecrets: [{ name: 'ngc' }] } } });
  });

  test('0.9: refused, naming what the release lacks', () => {
    expect(issuesOf(() => spec({ dynamoVersion: '0.9.0', imagePullSecrets: ['ngc'] }))).toEqual([
      'imagePullSecrets: is not part of the Dynamo 0.9.x request (nvidia.com/v1alpha1); use nothing in the request: the 0.8/0.9 profiling Job has no pull secrets',
    ]);
  });

  test('each named once', () => {
    expect(issuesOf(() => spec({ imagePullSecrets: ['ngc', 'ngc'] }))).toEqual(['imagePullSecrets[1]: names "ngc" a second time; list each once']);
  });
});

describe('profiling Job fragment', () => {
  // the JobSpec schema requires a pod template's containers: tolerations alone used to be refused
  test('tolerations alone name the profiler container', () => {
    const s = spec({ tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] });
    expect(s.overrides.profilingJob.template.spec.containers).toEqual([{ name: 'profiler' }]);
  });
});

describe('an unsupported release hides no other problem', () => {
  test('the request reports what every supported release finds, beside the version', () => {
    const o = { labels: { 'team-token': 'hf_abcdefghijklmnopqrstuvwxyz0123' }, planner: { minEndpoint: 4, maxGpuBudget: 2 }, autoApply: 'yes' as never };
    const supported = issuesOf(() => spec({ ...o, dynamoVersion: '1.6.1' }));
    const unsupported = issuesOf(() => spec({ ...o, dynamoVersion: '1.3.1' }));
    expect(supported.length).toBeGreaterThanOrEqual(3);
    expect(unsupported).toEqual(expect.arrayContaining(supported));
    expect(unsupported.filter((i) => !supported.includes(i))).toEqual([expect.stringMatching(/^dynamoVersion: Dynamo "1\.3\.1" is not supported/)]);
  });
});
