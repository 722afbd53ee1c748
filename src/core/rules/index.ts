import { graphFormatOf } from '../model/graph-formats';
import { DynamoRelease } from '../releases/versions';
import { Findings, Finding } from './findings';
import { GraphModel, graphModel, indexObjects } from '../model/graph-model';
import { envRules } from './env';
import { fabricRules } from './fabric';
import { flagRules } from './flag-rules';
import { kvCacheRules } from './kv-cache';
import { modelSizeRules } from './model-size';
import { monitoringRules } from './monitoring';
import { parallelismRules } from './parallelism';
import { plannerRules } from './planner';
import { podSecurityRules } from './pod-security';
import { requestRules } from './request';
import { routerRules } from './router';
import { graphSecretRules, objectSecretRules, requestSecretRules } from './secrets';
import { claimRules, storageRules } from './storage';
import { structureRules } from './structure';
import { upgradeRules } from './upgrade';

export * from '../base/rule-catalog';
export { Finding, manifestPath, reportDraftFindings, reportFindings } from './findings';
export { GraphModel, graphModel, indexObjects, Place, ServiceModel } from '../model/graph-model';
export { flagValue, Launch } from '../model/launch';
export { AttentionHeads, attentionHeads, parameterBillions } from './model-size';
export { MAX_SERVICES, MAX_GROVE_NAME_LENGTH } from './structure';
export { LedgerEntry, ledgerFor, lineAtLeast, UPGRADE_LEDGER } from './upgrade';

/** The rule families a graph is checked by, in reporting order. */
const GRAPH_RULES: readonly ((g: GraphModel, f: Findings) => void)[] = [
  structureRules,
  flagRules,
  parallelismRules,
  kvCacheRules,
  routerRules,
  fabricRules,
  envRules,
  podSecurityRules,
  plannerRules,
  monitoringRules,
  storageRules,
  modelSizeRules,
  upgradeRules,
];

/** How a manifest is checked. */
export interface CheckOptions {
  /**
   * The Dynamo release the manifest will run: flags, fields and defaults are checked
   * against it, and what breaks on it is reported (`lint --dynamo-version`).
   * @default - the release the manifest's images name
   */
  readonly release?: DynamoRelease;
  /** The API version the manifest is written in, when it is not the graph's own (the library's normalized drafts). */
  readonly apiVersion?: string;
}

/**
 * Runs every rule over a DynamoGraphDeployment. `objects` are the other
 * objects deployed with it (TensorRT-LLM engine ConfigMaps, claims), which
 * some rules follow references into: a list, or the `indexObjects` of one
 * (a caller checking many graphs indexes once).
 */
export function checkGraphManifest(
  graph: Readonly<Record<string, unknown>>,
  objects: readonly unknown[] | ReadonlyMap<string, Readonly<Record<string, unknown>>> = [],
  options: CheckOptions = {},
): Finding[] {
  const format = graphFormatOf(graph.apiVersion);
  const model = manifestModel(graph, Array.isArray(objects) ? indexObjects(objects) : (objects as ReadonlyMap<string, Readonly<Record<string, unknown>>>), options);
  const f = new Findings();
  for (const rules of GRAPH_RULES) rules(model, f);
  // every string as written, in either layout: what the model leaves out (metadata, v1beta1 pod templates) can hold credentials too
  graphSecretRules(graph, model, f);
  return f.all.map((x) => ({ ...x, field: x.service === undefined ? format.graphField(x.field) : format.serviceField(x.field) }));
}

/**
 * A DynamoGraphDeployment of either API version in the rules' model: a 1.x (v1beta1) graph is
 * read into the normalized layout the rules know, which is the 0.8/0.9 (v1alpha1) one; findings
 * on it are pointed back into its own layout by `checkGraphManifest`.
 */
export function manifestModel(graph: Readonly<Record<string, unknown>>, objects: ReadonlyMap<string, Readonly<Record<string, unknown>>>, options: CheckOptions = {}): GraphModel {
  return graphModel(graphFormatOf(graph.apiVersion).read(graph), objects, {
    release: options.release,
    apiVersion: options.apiVersion ?? (typeof graph.apiVersion === 'string' ? graph.apiVersion : undefined),
  });
}

/** Runs every rule over a DynamoGraphDeploymentRequest. */
export function checkRequestManifest(request: Readonly<Record<string, unknown>>, options: Pick<CheckOptions, 'release'> = {}): Finding[] {
  const f = new Findings();
  requestRules(request, f, options.release);
  requestSecretRules(request, f);
  return f.all;
}

/**
 * Runs the rules for an object deployed next to the Dynamo objects (a claim that holds model
 * weights, a ConfigMap, a Secret...): what lint checks in every other document.
 */
export function checkObjectManifest(object: Readonly<Record<string, unknown>>): Finding[] {
  const f = new Findings();
  if (object.kind === 'PersistentVolumeClaim') claimRules(object, f);
  objectSecretRules(object, f);
  return f.all;
}

/** Runs the rules for a claim that holds model weights. */
export function checkClaimManifest(claim: Readonly<Record<string, unknown>>): Finding[] {
  const f = new Findings();
  claimRules(claim, f);
  return f.all;
}
