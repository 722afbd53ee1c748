import * as fs from 'fs';
import * as path from 'path';
import { Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { DisaggregatedRdmaChart } from '../../examples/disaggregated-rdma';
import { manifestErrors } from '../support/manifests';

/**
 * Guide 2's manifest (PVC + DGD) is the expected output of the
 * disaggregated-rdma example. The guide's text lost its line breaks, so the
 * manifest is transcribed in test/fixtures; the first test proves the
 * transcription has exactly the guide's tokens, in the guide's order.
 */

const GUIDES = path.resolve(__dirname, '../../../shared/reference/guides.md');
const FIXTURE = path.resolve(__dirname, '../fixtures/guide2-disaggregated.yaml');

function tokens(text: string): string[] {
  return text
    .split(/\s+/)
    .map((t) => t.replace(/^[["]+|[\]",]+$/g, ''))
    .filter((t) => t !== '' && t !== '-' && t !== '---');
}

function heredoc(guide: string, file: string): string {
  const flat = guide.replace(/\s+/g, ' ');
  const start = flat.indexOf(`cat << EOF > ${file}`);
  if (start < 0) throw new Error(`guide 2 heredoc for ${file} not found in ${GUIDES}`);
  const body = flat.slice(start + `cat << EOF > ${file}`.length);
  return body.slice(0, body.indexOf(' EOF'));
}

function readGuide(): string {
  if (!fs.existsSync(GUIDES)) throw new Error(`deployment guides not found at ${GUIDES}`);
  return fs.readFileSync(GUIDES, 'utf8');
}

function fixtureObjects(namespace: string): any[] {
  const text = fs.readFileSync(FIXTURE, 'utf8').replace(/\$LLM_NAMESPACE/g, namespace);
  return YAML.parseAllDocuments(text).map((d) => d.toJS());
}

describe('guide 2: disaggregated deployment with RDMA', () => {
  test('the fixture is the guide manifest, token for token', () => {
    const guide = readGuide();
    const expected = [...tokens(heredoc(guide, 'model-cache-pvc.yaml')), ...tokens(heredoc(guide, 'dynamo-disagg-deployment.yaml'))];
    const fixture = fs
      .readFileSync(FIXTURE, 'utf8')
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n');
    expect(tokens(fixture)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(200);
  });

  test('the example synthesizes the guide manifest field for field', () => {
    const chart = new DisaggregatedRdmaChart(Testing.app(), 'guide2', 'llm-serving');
    const synthesized = Testing.synth(chart);
    const expected = fixtureObjects('llm-serving');
    const key = (o: any) => `${o.kind}/${o.metadata.name}`;
    expect(synthesized.map(key).sort()).toEqual(expected.map(key).sort());
    for (const want of expected) {
      expect(synthesized.find((o) => key(o) === key(want))).toEqual(want);
    }
  });

  test('the guide manifest itself is valid against the CRD and Kubernetes schemas', () => {
    for (const obj of fixtureObjects('llm-serving')) expect(manifestErrors(obj)).toEqual([]);
  });
});
