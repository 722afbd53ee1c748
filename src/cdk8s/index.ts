/**
 * dynamo-constructs for cdk8s: thin constructs over the engine-neutral core. The core's public surface
 * (value classes, options, errors, releases) is re-exported so that one import is enough; the constructs
 * and their props are named one by one.
 */
export * from '../core';
export { WARNING_METADATA } from './warnings';
export type { StrictOptions } from './warnings';
export { DynamoGraph } from './graph';
export type { DynamoGraphProps } from './graph';
export { GraphComponent } from './component';
export { Frontend } from './frontend';
export type { FrontendProps } from './frontend';
export { DecodeWorker, PrefillWorker, Worker, WorkerBase } from './worker';
export type { WorkerProps } from './worker';
export { Planner } from './planner';
export type { PlannerProps } from './planner';
export { ModelCache } from './model-cache';
export type { ExistingModelCacheProps, ModelCacheProps } from './model-cache';
export { AggregatedDeployment, DisaggregatedDeployment } from './deployment';
export type { AggregatedDeploymentProps, DisaggregatedDeploymentProps, NamedProps } from './deployment';
export { SlaPlannedDeployment } from './sla-planned-deployment';
export type { SlaPlannedDeploymentProps } from './sla-planned-deployment';
export { FluxKustomization } from './flux';
export type { FluxKustomizationProps } from './flux';
export { PrometheusStack } from './prometheus-stack';
export type { PrometheusStackProps } from './prometheus-stack';
export { DynamoPlatform } from './platform';
export type { DynamoPlatformProps } from './platform';
export { GrafanaDashboard, PodMonitors, SlaAlerts } from './observability';
export type { GrafanaDashboardProps, PodMonitorsProps, SlaAlertsProps } from './observability';
