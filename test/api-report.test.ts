import * as fs from 'fs';
import { API_REPORT, apiReport, unexportedTypes } from './support/api-report';

test('the public surface is the one API.md records (npm run api updates it after a deliberate change)', () => {
  const recorded = fs.existsSync(API_REPORT) ? fs.readFileSync(API_REPORT, 'utf8') : '';
  const current = apiReport();
  if (current !== recorded) {
    const a = recorded.split('\n');
    const b = current.split('\n');
    const first = b.findIndex((line, i) => line !== a[i]);
    throw new Error(`API.md differs from the sources from line ${first + 1}:\n  recorded: ${a[first] ?? '(end)'}\n  sources:  ${b[first] ?? '(end)'}\nRun \`npm run api\` and review the change.`);
  }
});

test('every type a public declaration mentions is exported by the same entry point, so users can name it', () => {
  expect(unexportedTypes()).toEqual([]);
});
