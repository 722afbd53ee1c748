/**
 * The whole core, as the shells and the command line use it: the public surface (`./index`) and the
 * checks, renderers and helpers behind it. No package entry point exposes this module; what users
 * may rely on is `./index`. @internal
 */
export * from './index';
export * from './base/errors';
export * from './base/json-patch';
export { checkDnsLabel, checkDnsSubdomain } from './base/checks';
export * from './base/k8s';
export * from './base/env';
export * from './releases/versions';
export * from './engines/backend';
export * from './graph/router';
export * from './graph/fabric';
export * from './graph/model-cache';
export * from './graph/frontend';
export * from './graph/worker';
export * from './graph/mocker';
export * from './graph/load-predictor';
export * from './releases/aiconfigurator';
export * from './graph/planner';
export * from './deployments/sla-planned';
export * from './graph/graph';
export { patchPointer, rebasePatches, servicePointer } from './model/patch-paths';
export type { GraphApiVersion, PatchScope } from './model/patch-paths';
export * from './deployments/deployment';
export * from './cluster/helm';
export * from './cluster/flux';
export * from './cluster/prometheus-stack';
export * from './cluster/platform';
export * from './cluster/secrets';
export * from './observability/sla-targets';
export * from './observability/dashboards';
export * from './observability/observability';
export * from './rules';
export * from './base/checked';
