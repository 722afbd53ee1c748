/**
 * dynamo-constructs for Pulumi: thin ComponentResources over the
 * engine-neutral core. The core value classes are re-exported so that one
 * import is enough.
 */
export * from '../core';
export * from './common';
export * from './graph';
export * from './frontend';
export * from './worker';
export * from './planner';
export * from './model-cache';
export * from './deployment';
export * from './sla-planned-deployment';
export * from './helm';
export * from './prometheus-stack';
export * from './platform';
export * from './observability';
// the Pulumi classes extend the core references of the same name with creation from secret Outputs
export { HfTokenSecret, ImagePullSecret, HfTokenSecretArgs, ImagePullSecretArgs, SecretValue } from './secrets';
