import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// cdk8s's Testing.app() and the package tests write into os.tmpdir(): the whole
// run gets one temp dir (inherited by the workers), removed by global-teardown.ts.
export default function globalSetup(): void {
  const dir = mkdtempSync(join(tmpdir(), 'dynamo-constructs-test-'));
  process.env.DYNAMO_CONSTRUCTS_TEST_TMPDIR = dir;
  process.env.TMPDIR = dir;
}
