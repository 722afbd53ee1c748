import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App } from 'cdk8s';
import { addExamples } from '../../../examples';
import { lintSources } from '../../../src/cli/lint/lint';
import { WARNING_METADATA } from '../../../src/cdk8s';
import { lintCrds } from '../../support/crd';

/**
 * The constructs and `dynamo-constructs lint` run the same rules: linting the
 * synthesized examples finds no errors and exactly the warnings the constructs
 * reported when the app synthesized.
 */
test('lint finds in the synthesized examples what the constructs found, and no errors', () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'examples-lint-'));
  try {
    const app = new App({ outdir });
    addExamples(app);
    app.synth();
    const reported = app.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === WARNING_METADATA).map((m) => (m.data as { rule: string }).rule))
      .sort();

    const sources = fs.readdirSync(outdir).sort().map((f) => ({ file: f, text: fs.readFileSync(path.join(outdir, f), 'utf8') }));
    const result = lintSources(sources, { crds: lintCrds() });
    expect(result.errors).toBe(0);
    expect(result.findings.map((f) => f.rule).sort()).toEqual(reported);
    // the guide 2 example: a 4B model disaggregated, and a claim without a storage class
    expect(reported).toEqual(['rwx-without-storage-class', 'small-model-disaggregated']);
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
});
