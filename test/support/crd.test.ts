import { crdErrors } from './crd';

/** The CRD oracle must be able to fail, or the tests that rely on it prove nothing. */
describe('CRD schema oracle', () => {
  const valid = () => ({
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeployment',
    metadata: { name: 'g' },
    spec: {
      backendFramework: 'vllm',
      services: {
        Frontend: { componentType: 'frontend', replicas: 1, extraPodSpec: { mainContainer: { image: 'x', env: [{ name: 'A', value: '1' }] } } },
      },
    },
  });

  test('accepts a minimal graph', () => {
    expect(crdErrors(valid())).toEqual([]);
  });

  test('rejects unknown fields (structural schema)', () => {
    const g: any = valid();
    g.spec.services.Frontend.replicaCount = 2;
    expect(crdErrors(g).join('\n')).toMatch(/Frontend\/replicaCount: is not a field of the schema/);
  });

  test('rejects a wrong type and an out-of-enum value', () => {
    const g: any = valid();
    g.spec.services.Frontend.replicas = '1';
    g.spec.backendFramework = 'tgi';
    const errors = crdErrors(g).join('\n');
    expect(errors).toMatch(/replicas: must be integer/);
    expect(errors).toMatch(/backendFramework: must be equal to one of the allowed values/);
  });

  test('rejects a negative replica count and more than 25 services', () => {
    const g: any = valid();
    g.spec.services.Frontend.replicas = -1;
    for (let i = 0; i < 25; i++) g.spec.services[`W${i}`] = { componentType: 'worker' };
    const errors = crdErrors(g).join('\n');
    expect(errors).toMatch(/replicas: must be >= 0/);
    expect(errors).toMatch(/must NOT have more than 25 properties/);
  });

  test('rejects duplicate keys of a list-map (container env)', () => {
    const g: any = valid();
    g.spec.services.Frontend.extraPodSpec.mainContainer.env.push({ name: 'A', value: '2' });
    expect(crdErrors(g).join('\n')).toMatch(/env: has a second entry with name "A"; list keys must be unique/);
  });

  test('checks the CEL rule on created PVCs', () => {
    const g: any = valid();
    g.spec.pvcs = [{ name: 'cache', create: true, size: '10Gi' }];
    expect(crdErrors(g)).toContain('/spec/pvcs/0: When create is true, size, storageClass, and volumeAccessMode are required');
  });

  test('int-or-string quantities accept both forms and reject garbage', () => {
    const g: any = valid();
    g.spec.services.Frontend.sharedMemory = { size: '16Gi' };
    expect(crdErrors(g)).toEqual([]);
    g.spec.services.Frontend.sharedMemory = { size: 'lots' };
    expect(crdErrors(g).join('\n')).toMatch(/sharedMemory\/size: must match pattern/);
  });
});
