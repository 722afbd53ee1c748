/**
 * The core's public surface, named one by one: what a user of `dynamo-constructs` (and, re-exported, of
 * `dynamo-constructs/cdk8s` and `dynamo-constructs/pulumi`) may import and rely on. Every type a public
 * declaration mentions is exported here too, so that users can name it (`test/api-report.test.ts` checks).
 * What the shells and the command line need beyond this comes from `./internal`, which no package entry
 * point exposes.
 */

// Errors and the rule catalog
export { DynamoValidationError } from './base/errors';
export type { ValidationIssue, ValidationWarning } from './base/errors';
export type { JsonPatchOperation } from './base/json-patch';
export { RULES } from './base/rule-catalog';
export type { ErrorRuleId, RuleId, RuleInfo, Severity, WarningRuleId } from './base/rule-catalog';

// Kubernetes shapes the options use
export type {
  Affinity,
  CompilationCache,
  ComponentTopologyConstraint,
  ComputeResources,
  EnvVar,
  GraphTopologyConstraint,
  ImagePullPolicy,
  Json,
  JsonObject,
  KubeObject,
  LabelSelector,
  LabelSelectorRequirement,
  NameRef,
  NodeAffinity,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  ObjectMeta,
  PodAffinity,
  PodAffinityTerm,
  PodPlacementOptions,
  TopologySpreadConstraint,
} from './base/k8s';
export { EnvValue, POD_INFO_FIELDS } from './base/env';
export type { EnvMap, PodInfoField } from './base/env';

// Releases: what differs per Dynamo release, and what breaks between them
export { DEFAULT_DYNAMO_VERSION, RELEASES } from './releases/versions';
export type {
  BackendName,
  DynamoRelease,
  EngineRelease,
  LoadPredictorKind,
  LocalRunRelease,
  MockerRelease,
  MonitoringRelease,
  PlannerMetricNames,
  PlannerRelease,
  PlatformRelease,
  PodMonitorRelease,
  ReleaseMetrics,
  RouterFlags,
} from './releases/versions';
export { AICONFIGURATOR_SUPPORT } from './releases/aiconfigurator';
export { ledgerFor, UPGRADE_LEDGER } from './rules/upgrade';
export type { LedgerEntry } from './rules/upgrade';

// The value classes and the options of each part of a graph
export { Backend, BACKEND_NAMES } from './engines/backend';
export type { WorkerRole } from './engines/renderer';
export type { BackendOptions, CudaVersion } from './engines/backend';
export { Router } from './graph/router';
export type { KvRouterOptions, RouterMode } from './graph/router';
export { Fabric } from './graph/fabric';
export type { EfaFabricOptions, FabricKind, RdmaFabricOptions } from './graph/fabric';
export { ACCESS_MODES, DEFAULT_MODEL_CACHE_MOUNT_PATH, renderModelCachePvc } from './graph/model-cache';
export type { AccessMode, ExistingModelCacheOptions, ModelCacheMount, ModelCacheOptions } from './graph/model-cache';
export { FRONTEND_HTTP_PORT } from './model/dgd';
export type { FrontendOptions } from './graph/frontend';
export type { Toleration, WorkerOptions } from './graph/worker';
export { DEFAULT_POD_SECURITY, POD_SECURITY_LEVELS } from './graph/service';
export type { PodSecurity } from './graph/context';
export { LoadPredictor } from './graph/load-predictor';
export type { ArimaOptions, KalmanOptions, ProphetOptions } from './graph/load-predictor';
export { DEFAULT_PROFILE_RESULTS_CONFIG_MAP } from './graph/planner';
export type { IPrometheusEndpoint, PlannerOptions } from './graph/planner';

// Graphs: the options, the engine-free rendering, and the pointers for patches
export { DEFAULT_UPDATE_STRATEGY, renderGraph, UPDATE_STRATEGIES } from './graph/graph';
export type { ComponentSpec, GraphOptions, GraphSpec, IModelCache, RenderedGraph, RenderOptions, UpdateStrategy } from './graph/graph';
export { servicePointer } from './model/patch-paths';
export type { PatchScope } from './model/patch-paths';
export type { GraphApiVersion } from './model/graph-formats';
export { aggregatedGraphSpec, disaggregatedGraphSpec, FRONTEND_SERVICE_NAME, PLANNER_SERVICE_NAME } from './deployments/deployment';
export type { AggregatedDeploymentOptions, DeploymentOptions, DisaggregatedDeploymentOptions } from './deployments/deployment';

// SLA-planned deployments (DynamoGraphDeploymentRequest)
export { GENERATED_HF_TOKEN_SECRET, GPU_SKUS, renderSlaPlanned } from './deployments/sla-planned';
export type {
  AiConfiguratorOptions,
  BaseConfigRef,
  DeploymentOverrides,
  Sla,
  SlaPlannedDeploymentOptions,
} from './deployments/sla-planned';
export type { ProfilingHardware, ProfilingWorkload } from './model/sla-request';

// Observability
export type { SlaTargets } from './observability/sla-targets';
export { Dashboards, GRAFANA_DASHBOARD_LABEL, GRAFANA_DASHBOARD_LABEL_VALUE, renderDashboardConfigMap } from './observability/dashboards';
export type { Dashboard, PlannerDashboardOptions, ServingDashboardOptions } from './observability/dashboards';
export { observedGraphOf, renderObservability, renderSlaAlerts } from './observability/observability';
export type { IObservable, IPrometheusRelease, ObservabilityOptions, ObservedGraph, PodMonitorOptions, SlaAlertOptions } from './observability/observability';

// The cluster around the graph: Helm releases, Flux, the Prometheus stack, the Dynamo platform, Secrets
export { FLUX_HELM_RELEASE_API, FLUX_HELM_REPOSITORY_API, HelmInstall } from './cluster/helm';
export type { FluxInstallOptions, HelmChartRef, HelmInstallKind, HelmReleaseSpec, TemplateInstallOptions } from './cluster/helm';
export { FLUX_KUSTOMIZATION_API, FLUX_SOURCE_KINDS, renderFluxKustomization } from './cluster/flux';
export type { FluxKustomizationOptions, FluxKustomizationRef, FluxSourceKind, FluxSourceRef } from './cluster/flux';
export { KUBE_PROMETHEUS_STACK_VERSION, PROMETHEUS_COMMUNITY_REPO, prometheusStackModel } from './cluster/prometheus-stack';
export type { PrometheusStackModel, PrometheusStackOptions } from './cluster/prometheus-stack';
export { DYNAMO_CRDS_RELEASE, dynamoPlatformModel, PROMETHEUS_OPERATOR_API } from './cluster/platform';
export type { DynamoPlatformModel, DynamoPlatformOptions, PlatformEtcdOptions, PlatformIngressOptions, PlatformNatsOptions, PlatformWebhookOptions } from './cluster/platform';
export { HfTokenSecret, ImagePullSecret, SecretRef } from './cluster/secrets';

// Lint as a library: manifests someone else wrote, read into the graph model and checked
export { checkGraphManifest, checkRequestManifest, manifestModel } from './rules';
export type { CheckOptions } from './rules';
export type { Finding } from './rules/findings';
export type { EnvEntry, GraphModel, Place, ServiceKind, ServiceModel, ServiceRole } from './model/graph-model';
export type { EngineName, Launch } from './model/launch';
export type { AmbiguousFlag } from './model/flag-abbreviations';
