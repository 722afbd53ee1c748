import { Testing } from 'cdk8s';
import { IConstruct } from 'constructs';
import { EXAMPLES } from '../../examples';
import { DynamoGraph } from '../../src/cdk8s';
import { holes, manifestErrors, renderedHoles, toYaml } from '../support/manifests';

function graphsIn(root: IConstruct): DynamoGraph[] {
  return root.node.findAll().filter((c): c is DynamoGraph => c instanceof DynamoGraph);
}

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

  test('core renders no undefined, null, NaN or empty values (before cdk8s sanitizes anything)', () => {
    const chart = new ChartClass(Testing.app(), name);
    for (const graph of graphsIn(chart)) {
      const rendered = graph.render();
      expect(holes([rendered.graph, ...rendered.configMaps])).toEqual([]);
    }
    expect(renderedHoles(Testing.synth(chart))).toEqual([]);
  });
});
