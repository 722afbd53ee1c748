import { rmSync } from 'node:fs';

export default function globalTeardown(): void {
  const dir = process.env.DYNAMO_CONSTRUCTS_TEST_TMPDIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
}
