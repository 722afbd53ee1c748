/**
 * dynamo-constructs: the engine-neutral core. Plain objects in, plain
 * Kubernetes objects out; imports neither cdk8s nor Pulumi.
 *
 * For constructs, import `dynamo-constructs/cdk8s` (or `dynamo-constructs/pulumi`).
 */
export * from './core';
