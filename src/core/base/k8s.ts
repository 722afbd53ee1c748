/**
 * Plain Kubernetes object shapes produced by core. Only the fields the
 * library writes are typed; everything is JSON.
 */

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A complete Kubernetes object: what a shell hands to cdk8s or Pulumi unchanged. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly [key: string]: unknown;
}

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: {
    readonly secretKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
    readonly configMapKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
    readonly fieldRef?: { readonly fieldPath: string };
  };
}

/** Something that has a Kubernetes name: a plain string, or an object such as a cdk8s-plus `ISecret`. */
export type NameRef = string | { readonly name: string };

export function nameOf(ref: NameRef): string {
  return typeof ref === 'string' ? ref : ref.name;
}

export type ImagePullPolicy = 'Always' | 'IfNotPresent' | 'Never';
export const IMAGE_PULL_POLICIES: readonly ImagePullPolicy[] = ['Always', 'IfNotPresent', 'Never'];

/** CPU and memory for a component, as in cdk8s-plus: each with an optional request and limit. */
export interface ComputeResources {
  /** CPU request and limit, e.g. `{ request: '8', limit: '10' }`. */
  readonly cpu?: { readonly request?: string; readonly limit?: string };
  /** Memory request and limit, e.g. `{ request: '40Gi', limit: '40Gi' }`. */
  readonly memory?: { readonly request?: string; readonly limit?: string };
}

/** A label selector requirement (`metav1.LabelSelectorRequirement`). */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  /** Non-empty for `In` and `NotIn`, empty for `Exists` and `DoesNotExist`. */
  readonly values?: readonly string[];
}

/** A label selector (`metav1.LabelSelector`). */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** A node selector requirement (`core/v1.NodeSelectorRequirement`). */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  /** Non-empty for `In` and `NotIn`, one integer for `Gt` and `Lt`, empty for `Exists` and `DoesNotExist`. */
  readonly values?: readonly string[];
}

/** One term of a node selector: every requirement must hold (`core/v1.NodeSelectorTerm`). */
export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[];
  readonly matchFields?: readonly NodeSelectorRequirement[];
}

/** Node affinity (`core/v1.NodeAffinity`). */
export interface NodeAffinity {
  readonly requiredDuringSchedulingIgnoredDuringExecution?: { readonly nodeSelectorTerms: readonly NodeSelectorTerm[] };
  readonly preferredDuringSchedulingIgnoredDuringExecution?: readonly { readonly weight: number; readonly preference: NodeSelectorTerm }[];
}

/** Pods a pod (anti-)affinity term matches, and the topology it counts in (`core/v1.PodAffinityTerm`). */
export interface PodAffinityTerm {
  readonly labelSelector?: LabelSelector;
  readonly namespaceSelector?: LabelSelector;
  readonly namespaces?: readonly string[];
  /** The node label whose value defines the domain, e.g. `kubernetes.io/hostname`. */
  readonly topologyKey: string;
  readonly matchLabelKeys?: readonly string[];
  readonly mismatchLabelKeys?: readonly string[];
}

/** Pod affinity or anti-affinity (`core/v1.PodAffinity`, `core/v1.PodAntiAffinity`). */
export interface PodAffinity {
  readonly requiredDuringSchedulingIgnoredDuringExecution?: readonly PodAffinityTerm[];
  readonly preferredDuringSchedulingIgnoredDuringExecution?: readonly { readonly weight: number; readonly podAffinityTerm: PodAffinityTerm }[];
}

/** Scheduling constraints of a pod (`core/v1.Affinity`), written to the pod spec as given. */
export interface Affinity {
  readonly nodeAffinity?: NodeAffinity;
  readonly podAffinity?: PodAffinity;
  readonly podAntiAffinity?: PodAffinity;
}

/** How a pod spreads across a topology (`core/v1.TopologySpreadConstraint`). */
export interface TopologySpreadConstraint {
  /** Largest allowed difference in matching pods between two domains (>= 1). */
  readonly maxSkew: number;
  /** The node label whose value defines the domain, e.g. `topology.kubernetes.io/zone`. */
  readonly topologyKey: string;
  readonly whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  readonly labelSelector?: LabelSelector;
  /** Only with `whenUnsatisfiable: 'DoNotSchedule'` (>= 1). */
  readonly minDomains?: number;
  readonly nodeAffinityPolicy?: 'Honor' | 'Ignore';
  readonly nodeTaintsPolicy?: 'Honor' | 'Ignore';
  readonly matchLabelKeys?: readonly string[];
}

/**
 * Grove topology-aware placement of a component (Dynamo 1.x): its pods are packed within one
 * domain of the graph's ClusterTopology. Written as `components[].topologyConstraint`.
 */
export interface ComponentTopologyConstraint {
  /**
   * The topology domain the component's pods are packed within (e.g. `rack`); a domain of the
   * ClusterTopology the graph's `topologyConstraint.clusterTopologyName` names, and no wider than
   * the graph's own `packDomain`.
   */
  readonly packDomain: string;
}

/** Where a component's pods are scheduled: settings every component takes. */
export interface PodPlacementOptions {
  /**
   * Node and pod (anti-)affinity of the component's pods (`affinity` of the pod spec: 1.x
   * `podTemplate.spec.affinity`, 0.8/0.9 `extraPodSpec.affinity`).
   * @default - none
   */
  readonly affinity?: Affinity;
  /**
   * PriorityClass of the component's pods (`priorityClassName` of the pod spec); the class must exist.
   * @default - the graph's `priorityClassName`, else none (the cluster's default priority)
   */
  readonly priorityClassName?: string;
  /**
   * How the component's pods spread across zones or nodes (`topologySpreadConstraints` of the pod spec).
   * @default - none
   */
  readonly topologySpreadConstraints?: readonly TopologySpreadConstraint[];
  /**
   * Grove topology-aware packing of the component (`components[].topologyConstraint`). Dynamo 1.x
   * (1.6.1 renders it); the 0.8/0.9 CRD has no such field, and the option is refused there.
   * Needs the graph's `topologyConstraint` (its ClusterTopology).
   * @default - the graph's `topologyConstraint.packDomain`, when set (the operator's inheritance)
   */
  readonly topologyConstraint?: ComponentTopologyConstraint;
}

/**
 * Grove topology-aware placement of a whole graph (Dynamo 1.x): `spec.topologyConstraint`.
 */
export interface GraphTopologyConstraint {
  /** The ClusterTopology resource that defines the topology hierarchy (e.g. zone > block > rack > host). */
  readonly clusterTopologyName: string;
  /**
   * The domain every component's pods are packed within, unless a component sets a narrower one.
   * @default - none: only components that set their own `topologyConstraint` are packed
   */
  readonly packDomain?: string;
}

/**
 * A PVC-backed compilation cache of a worker (Dynamo 1.x `components[].compilationCache`): the
 * operator mounts the claim where the backend keeps its compiled kernels and graphs and sets the
 * backend's environment for it.
 */
export interface CompilationCache {
  /** An existing PersistentVolumeClaim in the graph's namespace. */
  readonly claimName: string;
  /**
   * Where the claim is mounted.
   * @default - the operator's path for the backend
   */
  readonly mountPath?: string;
}
