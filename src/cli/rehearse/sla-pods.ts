import * as crypto from 'crypto';

/**
 * The Dynamo operator's and the kubelet's part in an SLA rehearsal, for replicas and pods only:
 * the scaling adapters it creates, the Pod objects it would create for each replica (labels as
 * Dynamo's operator sets them), and the status it reports, so that the planner and Prometheus's
 * Kubernetes discovery see what they would see in a cluster. A graph is read in either of the
 * operator's forms: v1beta1 `spec.components` (1.x) or v1alpha1 `spec.services` (0.x). Pure: the
 * rehearsal sends what these return.
 */

/** The component types a DynamoGraphDeployment names, as its pods are labelled (v1alpha1: `componentType`). */
export type ComponentType = 'frontend' | 'worker' | 'prefill' | 'decode' | 'planner' | string;

export interface GraphComponent {
  readonly name: string;
  readonly type: ComponentType;
  /** The replicas the spec asks for (1 when it says none). */
  readonly replicas: number;
  readonly image?: string;
  /** `podTemplate.metadata.labels`. */
  readonly labels: Readonly<Record<string, string>>;
  /** GPUs one replica requests (its main container's `nvidia.com/gpu` limit). */
  readonly gpus: number;
  /** Whether it asks for a scaling adapter (v1beta1: `scalingAdapter` present; v1alpha1: unless `scalingAdapter.disable`). */
  readonly scalingAdapter: boolean;
  /** Its role in a disaggregated graph (v1beta1: its type; v1alpha1: `subComponentType`), which the operator labels. */
  readonly subType?: 'prefill' | 'decode';
}

/** Whether a component runs an engine (v1beta1: worker, prefill, decode; v1alpha1: componentType worker). */
export const isWorker = (c: GraphComponent) => ['worker', 'prefill', 'decode'].includes(c.type);

const isString = (v: unknown): v is string => typeof v === 'string';
const stringMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) if (isString(x)) out[k] = x;
  return out;
};

/** The components of a graph as the operator reads them: v1beta1 `spec.components`, v1alpha1 `spec.services`. */
export function graphComponents(dgd: Record<string, any>): GraphComponent[] {
  const replicasOf = (c: any) => (Number.isSafeInteger(c.replicas) && c.replicas >= 0 ? (c.replicas as number) : 1);
  const role = (v: unknown) => (v === 'prefill' || v === 'decode' ? v : undefined);
  const services: unknown = dgd.spec?.services;
  if (services && typeof services === 'object' && !Array.isArray(services)) {
    return Object.entries(services as Record<string, any>)
      .filter(([, s]) => s && typeof s === 'object')
      .map(([name, s]) => {
        const container = s.extraPodSpec?.mainContainer;
        const gpus = Number(s.resources?.limits?.gpu ?? 0);
        return {
          name,
          type: isString(s.componentType) ? s.componentType : 'worker',
          replicas: replicasOf(s),
          image: isString(container?.image) ? container.image : undefined,
          labels: stringMap(s.labels),
          gpus: Number.isFinite(gpus) && gpus > 0 ? gpus : 0,
          scalingAdapter: s.scalingAdapter?.disable !== true,
          subType: role(s.subComponentType),
        };
      });
  }
  const components: unknown = dgd.spec?.components;
  if (!Array.isArray(components)) return [];
  return components
    .filter((c) => c && typeof c === 'object' && isString(c.name))
    .map((c) => {
      const container = (Array.isArray(c.podTemplate?.spec?.containers) ? c.podTemplate.spec.containers : []).find((x: any) => x?.name === 'main') ?? c.podTemplate?.spec?.containers?.[0];
      const gpuLimit = Number(container?.resources?.limits?.['nvidia.com/gpu'] ?? 0);
      return {
        name: c.name as string,
        type: isString(c.type) ? c.type : 'worker',
        replicas: replicasOf(c),
        image: isString(container?.image) ? container.image : undefined,
        labels: stringMap(c.podTemplate?.metadata?.labels),
        gpus: Number.isFinite(gpuLimit) && gpuLimit > 0 ? gpuLimit : 0,
        scalingAdapter: c.scalingAdapter !== undefined && c.scalingAdapter !== null,
        subType: role(c.type),
      };
    });
}

/** A component's replicas as a graph's spec writes them (undefined where it says none: the operator runs 1), in either form. */
export function specReplicas(dgd: Record<string, any>, component: string): number | undefined {
  const c = Array.isArray(dgd?.spec?.components) ? dgd.spec.components.find((x: any) => x?.name === component) : dgd?.spec?.services?.[component];
  return typeof c?.replicas === 'number' ? c.replicas : undefined;
}

/** The patch that sets a component's replicas in a graph's spec (where the spec has none too), or undefined if it has no such component. */
export function replicasPatch(dgd: Record<string, any>, component: string, replicas: number): { body: string; contentType: string } | undefined {
  if (Array.isArray(dgd?.spec?.components)) {
    const i = dgd.spec.components.findIndex((c: any) => c?.name === component);
    return i < 0 ? undefined : { body: JSON.stringify([{ op: 'add', path: `/spec/components/${i}/replicas`, value: replicas }]), contentType: 'application/json-patch+json' };
  }
  if (!dgd?.spec?.services?.[component]) return undefined;
  return { body: JSON.stringify({ spec: { services: { [component]: { replicas } } } }), contentType: 'application/merge-patch+json' };
}

/**
 * The merge patch that makes a v1alpha1 graph's workers name `served` as their served model
 * (`--served-model-name`, which 0.9's planner reads first from their arguments), or undefined when
 * each already does or the graph is v1beta1.
 */
export function servedModelPatch(dgd: Record<string, any>, served: string): string | undefined {
  const services = dgd?.spec?.services;
  if (!services || typeof services !== 'object' || Array.isArray(services)) return undefined;
  const patch: Record<string, unknown> = {};
  for (const c of graphComponents(dgd).filter((x) => isWorker(x))) {
    const args: unknown = services[c.name]?.extraPodSpec?.mainContainer?.args;
    const list = Array.isArray(args) ? args.filter(isString) : [];
    const i = list.indexOf('--served-model-name');
    if (i >= 0 && list[i + 1] === served) continue;
    const kept = i >= 0 ? [...list.slice(0, i), ...list.slice(i + 2)] : list;
    patch[c.name] = { extraPodSpec: { mainContainer: { args: [...kept, '--served-model-name', served] } } };
  }
  return Object.keys(patch).length > 0 ? JSON.stringify({ spec: { services: patch } }) : undefined;
}

/** The Dynamo namespace the operator gives a graph's processes (`DYN_NAMESPACE`): `<namespace>-<graph>` (1.x, and 0.9, whose `dynamoNamespace` field is deprecated for it). */
export function dynamoNamespaceOf(namespace: string, graph: string): string {
  return `${namespace}-${graph}`;
}

/** The scaling adapter the operator creates for a component: `<graph>-<component, lowercased>`. */
export function scalingAdapterName(graph: string, component: string): string {
  return `${graph}-${component.toLowerCase()}`;
}

export function scalingAdapter(graph: string, namespace: string, c: GraphComponent, apiVersion = 'nvidia.com/v1beta1'): Record<string, unknown> {
  return {
    apiVersion,
    kind: 'DynamoGraphDeploymentScalingAdapter',
    metadata: { name: scalingAdapterName(graph, c.name), namespace, labels: { 'nvidia.com/dynamo-graph-deployment-name': graph } },
    spec: { replicas: Math.max(1, c.replicas), dgdRef: { name: graph, serviceName: c.name } },
  };
}

/** A component's Deployment name, and the hash its ReplicaSet's pods carry. */
function deploymentName(graph: string, component: string): string {
  return `${graph}-${component.toLowerCase()}`;
}

function templateHash(graph: string, component: string): string {
  return crypto.createHash('sha256').update(`${graph}/${component}`).digest('hex').slice(0, 10);
}

/** The labels Dynamo's operator puts on a component's pods. */
export function podLabels(dgd: Record<string, any>, c: GraphComponent, dynamoNamespace: string): Record<string, string> {
  const graph = String(dgd.metadata?.name);
  return {
    ...stringMap(dgd.metadata?.labels),
    ...c.labels,
    'nvidia.com/dynamo-graph-deployment-name': graph,
    'nvidia.com/dynamo-component': c.name,
    'nvidia.com/dynamo-namespace': dynamoNamespace,
    'nvidia.com/dynamo-component-type': c.type,
    ...(c.subType ? { 'nvidia.com/dynamo-sub-component-type': c.subType } : {}),
    'nvidia.com/metrics-enabled': 'true',
    'pod-template-hash': templateHash(graph, c.name),
  };
}

/** The container port a component's metrics are served on, by the name Dynamo's operator gives it. */
export function metricsPortOf(type: ComponentType): { name: string; port: number } {
  if (type === 'frontend') return { name: 'http', port: 8000 };
  if (type === 'planner') return { name: 'metrics', port: 9085 };
  return { name: 'system', port: 9090 };
}

/** A replica's Pod object, named as a Deployment's pods are; `metricsPort` where the process serves its metrics elsewhere than the usual port. */
export function podObject(dgd: Record<string, any>, c: GraphComponent, replica: number, dynamoNamespace: string, metricsPort?: number): Record<string, unknown> {
  const graph = String(dgd.metadata?.name);
  const port = { ...metricsPortOf(c.type), ...(metricsPort !== undefined ? { port: metricsPort } : {}) };
  const suffix = crypto.createHash('sha256').update(`${graph}/${c.name}/${replica}`).digest('hex').slice(0, 5);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${deploymentName(graph, c.name)}-${templateHash(graph, c.name)}-${suffix}`,
      namespace: dgd.metadata?.namespace,
      labels: podLabels(dgd, c, dynamoNamespace),
    },
    spec: {
      nodeName: 'rehearsal',
      automountServiceAccountToken: false,
      containers: [{ name: 'main', image: c.image ?? 'rehearsal', ports: [{ name: port.name, containerPort: port.port, protocol: 'TCP' }] }],
    },
  };
}

/** The status a kubelet reports for a started container: Running, ready, at `ip`. */
export function runningStatus(ip: string, ready: boolean, startedAt: string): Record<string, unknown> {
  const condition = (type: string, status: boolean) => ({ type, status: status ? 'True' : 'False', lastTransitionTime: startedAt });
  return {
    status: {
      phase: 'Running',
      hostIP: '127.0.0.1',
      podIP: ip,
      podIPs: [{ ip }],
      startTime: startedAt,
      conditions: [condition('PodScheduled', true), condition('Initialized', true), condition('ContainersReady', ready), condition('Ready', ready)],
      containerStatuses: [{ name: 'main', ready, restartCount: 0, image: 'rehearsal', imageID: '', started: true, state: { running: { startedAt } } }],
    },
  };
}

/**
 * Status fields Dynamo 1.6's operator reports per component and its planner reads, which older
 * copies of the DynamoGraphDeployment CRD do not declare (the API server would prune them).
 */
export const PROJECTED_COMPONENT_STATUS: Readonly<Record<string, { type: string }>> = {
  servedModelName: { type: 'string' },
  runtimeComponentName: { type: 'string' },
};

/** The DynamoGraphDeployment CRD with the projected status fields its copy lacks, and which those were. */
export function withProjectedStatus(crd: Record<string, any>): { crd: Record<string, any>; added: string[] } {
  const copy = JSON.parse(JSON.stringify(crd)) as Record<string, any>;
  const added = new Set<string>();
  for (const v of (copy.spec?.versions ?? []) as any[]) {
    const props = v?.schema?.openAPIV3Schema?.properties?.status?.properties?.components?.additionalProperties?.properties;
    if (!props || typeof props !== 'object') continue;
    for (const [k, schema] of Object.entries(PROJECTED_COMPONENT_STATUS)) {
      if (!(k in props)) {
        props[k] = schema;
        added.add(k);
      }
    }
  }
  return { crd: copy, added: [...added] };
}

/**
 * What the operator reports of a graph: every component's replicas, and Ready when all are. v1beta1
 * (1.x): `components` with what 1.6's planner reads; v1alpha1 (0.9): `services`, and the Ready
 * condition, which is all 0.9's planner reads.
 */
export function graphStatus(
  generation: number,
  components: readonly GraphComponent[],
  counts: ReadonlyMap<string, { desired: number; ready: number }>,
  graph: string,
  dynamoNamespace: string,
  at: string,
  servedModelName?: string,
  apiVersion = 'nvidia.com/v1beta1',
): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  let allReady = true;
  for (const c of components) {
    const n = counts.get(c.name) ?? { desired: c.replicas, ready: 0 };
    const ready = n.ready >= n.desired;
    allReady &&= ready;
    const replicas = {
      replicas: n.desired,
      updatedReplicas: n.desired,
      readyReplicas: Math.min(n.ready, n.desired),
      availableReplicas: Math.min(n.ready, n.desired),
    };
    status[c.name] = apiVersion === 'nvidia.com/v1alpha1'
      ? { componentKind: 'Deployment', componentName: deploymentName(graph, c.name), ...replicas }
      : {
        componentKind: 'Deployment',
        componentNames: [deploymentName(graph, c.name)],
        ...replicas,
        ready,
        runtimeNamespace: dynamoNamespace,
        gpusPerEngine: c.gpus,
        gpusPerReplica: c.gpus,
        // 1.6's operator projects the workers' served model name, which its planner reads
        ...(servedModelName !== undefined && isWorker(c) ? { servedModelName } : {}),
      };
  }
  const condition = { type: 'Ready', status: allReady ? 'True' : 'False', reason: allReady ? 'AllComponentsReady' : 'ComponentsNotReady', message: '', lastTransitionTime: at, observedGeneration: generation };
  return apiVersion === 'nvidia.com/v1alpha1'
    ? { status: { state: allReady ? 'successful' : 'pending', conditions: [condition], services: status } }
    : { status: { observedGeneration: generation, state: allReady ? 'successful' : 'pending', conditions: [condition], components: status } };
}
