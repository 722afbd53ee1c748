import { readV1beta1, v1beta1GraphField, v1beta1ServiceField } from '../dgd-v1beta1';
import { Findings, Finding } from './findings';
import { GraphModel, graphModel, indexObjects } from './graph-model';
import { envRules } from './env';
import { fabricRules } from './fabric';
import { kvCacheRules } from './kv-cache';
import { modelSizeRules } from './model-size';
import { parallelismRules } from './parallelism';
import { plannerRules } from './planner';
import { requestRules } from './request';
import { routerRules } from './router';
import { claimRules, storageRules } from './storage';
import { structureRules } from './structure';

export * from './catalog';
export { Finding, manifestPath, reportDraftFindings, reportFindings } from './findings';
export { GraphModel, graphModel, indexObjects, Place, ServiceModel } from './graph-model';
export { parameterBillions } from './model-size';
export { MAX_SERVICES, MAX_GROVE_NAME_LENGTH } from './structure';

/** The rule families a graph is checked by, in reporting order. */
const GRAPH_RULES: readonly ((g: GraphModel, f: Findings) => void)[] = [
  structureRules,
  parallelismRules,
  kvCacheRules,
  routerRules,
  fabricRules,
  envRules,
  plannerRules,
  storageRules,
  modelSizeRules,
];

/**
 * Runs every rule over a DynamoGraphDeployment. `objects` are the other
 * objects deployed with it (TensorRT-LLM engine ConfigMaps, claims), which
 * some rules follow references into.
 */
export function checkGraphManifest(graph: Readonly<Record<string, unknown>>, objects: readonly unknown[] = []): Finding[] {
  // a v1beta1 graph is read into the normalized layout the rules know, and its findings pointed back
  const v1beta1 = graph.apiVersion === 'nvidia.com/v1beta1';
  const model = graphModel(v1beta1 ? readV1beta1(graph) : graph, indexObjects(objects));
  const f = new Findings();
  for (const rules of GRAPH_RULES) rules(model, f);
  if (!v1beta1) return f.all;
  return f.all.map((x) => ({ ...x, field: x.service === undefined ? v1beta1GraphField(x.field) : v1beta1ServiceField(x.field) }));
}

/** Runs every rule over a DynamoGraphDeploymentRequest. */
export function checkRequestManifest(request: Readonly<Record<string, unknown>>): Finding[] {
  const f = new Findings();
  requestRules(request, f);
  return f.all;
}

/** Runs the rules for a claim that holds model weights. */
export function checkClaimManifest(claim: Readonly<Record<string, unknown>>): Finding[] {
  const f = new Findings();
  claimRules(claim, f);
  return f.all;
}
