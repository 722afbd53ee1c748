import { Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { EXAMPLES } from '../../examples';

// Prints every example's manifests as YAML, for the cross-process determinism test.
for (const [name, ChartClass] of Object.entries(EXAMPLES)) {
  const objects = Testing.synth(new ChartClass(Testing.app(), name));
  process.stdout.write(`# ${name}\n${objects.map((o) => YAML.stringify(o)).join('---\n')}`);
}
