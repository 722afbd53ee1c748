/**
 * One import measurement, in a fresh process: `node imports.js <entry>` times
 * `require` of an entry point and lists the engine packages it loaded.
 */
const entry = process.argv[2];
const LOADS: Record<string, string[]> = {
  'core': ['dynamo-constructs'],
  'cdk8s': ['cdk8s', 'constructs'],
  'cdk8s-shell': ['dynamo-constructs/cdk8s'],
  'pulumi': ['@pulumi/pulumi', '@pulumi/kubernetes'],
  'pulumi-shell': ['dynamo-constructs/pulumi'],
};
const ENGINE_PACKAGE = /node_modules[\\/]((?:@pulumi|@grafana)[\\/][^\\/]+|cdk8s-plus-28|cdk8s|constructs)[\\/]/;

const start = process.hrtime.bigint();
for (const m of LOADS[entry]) require(m);
const ms = Number(process.hrtime.bigint() - start) / 1e6;
const modules = [...new Set(Object.keys(require.cache).flatMap((k) => ENGINE_PACKAGE.exec(k)?.[1].replace(/\\/g, '/') ?? []))].sort();
process.stdout.write(`${JSON.stringify({ ms, rssMiB: 0, modules })}\n`);
