import { aggregatedGraphSpec, Backend, disaggregatedGraphSpec, Fabric, renderGraph, renderModelCachePvc, Router } from '../../src';
import { manifestErrors } from '../support/manifests';
import { issuesOf } from './helpers';

describe('model cache claim', () => {
  test('ReadWriteMany by default, size and storage class as given', () => {
    const { object, warnings } = renderModelCachePvc('models', 'ns', { size: '100Gi', storageClassName: 'cephfs' });
    expect(object).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'models', namespace: 'ns' },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '100Gi' } }, storageClassName: 'cephfs' },
    });
    expect(warnings).toEqual([]);
    expect(manifestErrors(object)).toEqual([]);
  });

  test('an RWX claim without a storage class is a warning: it may stay Pending', () => {
    const { warnings } = renderModelCachePvc('models', undefined, { size: '100Gi' });
    expect(warnings.map((w) => `${w.path} [${w.rule}]`)).toEqual(['storageClassName [rwx-without-storage-class]']);
    expect(renderModelCachePvc('models', undefined, { size: '100Gi', accessMode: 'ReadWriteOnce' }).warnings).toEqual([]);
  });

  test('bad options are all reported', () => {
    expect(issuesOf(() => renderModelCachePvc('models', undefined, { size: '100GB', accessMode: 'RWX' as any, mountPath: 'models' }))).toEqual([
      'size: must be a Kubernetes quantity such as "16Gi" or "500m", got "100GB"',
      'accessMode: must be one of "ReadWriteMany", "ReadWriteOnce", "ReadOnlyMany", "ReadWriteOncePod", got "RWX"',
      'mountPath: must be an absolute path, got "models"',
    ]);
    expect(issuesOf(() => renderModelCachePvc('models', undefined, {} as any))).toEqual(['size: is required, e.g. "100Gi"']);
  });
});

describe('robustness: bad input is a DynamoValidationError, never a TypeError', () => {
  test.each([
    ['no backend', { model: 'm', workers: {} }],
    ['null workers', { model: 'm', backend: Backend.vllm(), workers: null }],
    ['a string backend', { model: 'm', backend: 'vllm', workers: {} }],
    ['a plain-object router', { model: 'm', backend: Backend.vllm(), frontend: { router: { mode: 'kv' } }, workers: {} }],
    ['a string fabric', { model: 'm', backend: Backend.vllm(), fabric: 'rdma', workers: {} }],
    ['a non-array of pull secrets', { model: 'm', backend: Backend.vllm(), imagePullSecrets: 'ngc', workers: {} }],
    ['null router options', { model: 'm', backend: Backend.vllm(), frontend: { router: Router.kv(null as any) }, workers: { replicas: -1 } }],
    ['null fabric options', { model: 'm', backend: Backend.vllm(null as any), fabric: Fabric.rdma(null as any), workers: { replicas: -1 } }],
    ['a null toleration', { model: 'm', backend: Backend.vllm(), workers: { tolerations: [null] } }],
    ['a null frontend', { model: 'm', backend: Backend.vllm(), frontend: null, workers: {} }],
    ['null resources entries', { model: 'm', backend: Backend.vllm(), workers: { resources: { cpu: null } } }],
  ])('%s', (_name, options) => {
    expect(issuesOf(() => renderGraph(aggregatedGraphSpec('g', undefined, options as any))).length).toBeGreaterThan(0);
  });

  test('no options at all', () => {
    expect(issuesOf(() => renderGraph(disaggregatedGraphSpec('g', undefined, undefined as any)))).toEqual([
      'model: is required: a non-empty string',
      'backend: is required: Backend.vllm(), Backend.sglang() or Backend.trtllm()',
      'prefill: is required: the prefill worker pool, e.g. { replicas: 1, tensorParallelSize: 1 }',
      'decode: is required: the decode worker pool, e.g. { replicas: 1, tensorParallelSize: 1 }',
    ]);
  });
});
