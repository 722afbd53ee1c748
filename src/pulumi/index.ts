/**
 * dynamo-constructs for Pulumi: thin ComponentResources over the engine-neutral core. The core's public
 * surface (value classes, options, errors, releases) is re-exported so that one import is enough; the
 * components and their args are named one by one.
 */
export * from '../core';
export type { StrictArgs } from './common';
export { DynamoGraph } from './graph';
export { GraphComponent } from './component';
export type { DynamoGraphArgs } from './graph';
export { Frontend } from './frontend';
export type { FrontendArgs } from './frontend';
export { DecodeWorker, PrefillWorker, Worker, WorkerBase } from './worker';
export type { WorkerArgs } from './worker';
export { Planner } from './planner';
export type { PlannerArgs } from './planner';
export { ModelCache } from './model-cache';
export type { ModelCacheArgs } from './model-cache';
export { AggregatedDeployment, DisaggregatedDeployment } from './deployment';
export type { AggregatedDeploymentArgs, DisaggregatedDeploymentArgs, NamedArgs } from './deployment';
export { SlaPlannedDeployment } from './sla-planned-deployment';
export type { SlaPlannedDeploymentArgs } from './sla-planned-deployment';
export { PrometheusStack } from './prometheus-stack';
export type { PrometheusStackArgs } from './prometheus-stack';
export { DynamoPlatform } from './platform';
export type { DynamoPlatformArgs } from './platform';
export { GrafanaDashboard, PodMonitors, SlaAlerts } from './observability';
export type { GrafanaDashboardArgs, PodMonitorsArgs, SlaAlertsArgs } from './observability';
// the Pulumi classes extend the core references of the same name with creation from secret Outputs
export { HfTokenSecret, ImagePullSecret } from './secrets';
export type { HfTokenSecretArgs, ImagePullSecretArgs, SecretArgs, SecretValue } from './secrets';
