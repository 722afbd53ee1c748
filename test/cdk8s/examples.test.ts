import { Testing } from 'cdk8s';
import { EXAMPLES } from '../../examples';
import { holes, manifestErrors, toYaml } from '../support/manifests';

describe.each(Object.entries(EXAMPLES))('example %s', (name, ChartClass) => {
  const synth = () => Testing.synth(new ChartClass(Testing.app(), name));

  test('matches its snapshot', () => {
    expect(toYaml(synth())).toMatchSnapshot();
  });

  test('every object is valid: DGDs against the Dynamo CRD, the rest against Kubernetes schemas', () => {
    const objects = synth();
    expect(objects.length).toBeGreaterThan(0);
    for (const obj of objects) {
      expect({ object: `${obj.kind}/${obj.metadata.name}`, errors: manifestErrors(obj) }).toEqual({
        object: `${obj.kind}/${obj.metadata.name}`,
        errors: [],
      });
    }
  });

  test('has no undefined, null, NaN or empty values', () => {
    expect(holes(synth())).toEqual([]);
  });

  test('is deterministic: the same program gives byte-identical YAML', () => {
    expect(toYaml(synth())).toBe(toYaml(synth()));
  });
});
