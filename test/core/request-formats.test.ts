import { Backend, RELEASES, renderSlaPlanned } from '../../src/core/internal';
import { REQUEST_FORMATS } from '../../src/core/model/request-formats';

/** The request's writers: one per API version, chosen by the release. */
describe('DynamoGraphDeploymentRequest writers', () => {
  test('every API version of the releases table has a writer, and no writer is for an API version no release uses', () => {
    const used = new Set(Object.values(RELEASES).map((r) => r.apiVersion));
    expect(new Set(Object.keys(REQUEST_FORMATS))).toEqual(used);
  });

  // each release line, at a patch release of it
  test.each(Object.keys(RELEASES).map((line) => `${line}.1`))('Dynamo %s: the request is written in its release\'s API version, with the same SLA', (version) => {
    const { object } = renderSlaPlanned('llm', 'dynamo-workloads', {
      model: 'Qwen/Qwen3-0.6B',
      backend: Backend.vllm(),
      dynamoVersion: version,
      sla: { isl: 3000, osl: 150, ttftMs: 200, itlMs: 20 },
    });
    const release = RELEASES[version.split('.').slice(0, 2).join('.')];
    expect(object.apiVersion).toBe(release.apiVersion);
    expect(object.kind).toBe('DynamoGraphDeploymentRequest');
    // the SLA lands where each profiler reads it
    const spec = object.spec as Record<string, any>;
    const sla = release.apiVersion === 'nvidia.com/v1beta1' ? { ...spec.sla, ...spec.workload } : spec.profilingConfig.config.sla;
    expect(sla).toMatchObject({ isl: 3000, osl: 150, ttft: 200, itl: 20 });
  });
});
