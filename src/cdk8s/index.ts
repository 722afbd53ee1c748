/**
 * dynamo-constructs for cdk8s: thin constructs over the engine-neutral core.
 * The core value classes are re-exported so that one import is enough.
 */
export * from '../core';
export * from './warnings';
export * from './graph';
export * from './component';
export * from './frontend';
export * from './worker';
export * from './planner';
export * from './model-cache';
export * from './deployment';
export * from './sla-planned-deployment';
export * from './helm';
export * from './flux';
export * from './prometheus-stack';
export * from './platform';
export * from './observability';
