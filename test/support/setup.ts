// Warnings are asserted through `.warnings`; keep the test output readable.
process.env.DYNAMO_CONSTRUCTS_QUIET = '1';
