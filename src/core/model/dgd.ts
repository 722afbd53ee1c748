import { ComponentTopologyConstraint, EnvVar } from '../base/k8s';

/** The port the Dynamo operator gives the frontend's container, Service and probes. */
export const FRONTEND_HTTP_PORT = 8000;

/**
 * One service of the library's normalized graph, in the layout of a 0.8/0.9 (v1alpha1)
 * `spec.services` entry (the fields the library writes). The 0.8/0.9 graph is written as is;
 * the 1.x (v1beta1) component, 1.6.1's included, is written from it (dgd-v1beta1.ts).
 */
export interface DgdService {
  envFromSecret?: string;
  componentType: 'frontend' | 'worker' | 'planner';
  subComponentType?: 'prefill' | 'decode';
  replicas?: number;
  resources?: {
    requests?: Record<string, string>;
    limits?: Record<string, string>;
  };
  sharedMemory?: { size?: string; disabled?: boolean };
  multinode?: { nodeCount: number };
  volumeMounts?: { name: string; mountPoint: string }[];
  envs?: EnvVar[];
  extraPodSpec?: Record<string, unknown> & { mainContainer?: Record<string, unknown> };
  /**
   * A planner owns the replica count. Normalized only: v1beta1 writes it as
   * `scalingAdapter: {}`; the 0.8/0.9 writer leaves it out, as it leaves out `replicas`.
   */
  scalingAdapter?: boolean;
  /** Grove packing of the component (1.x only; the v1beta1 component field of the same name). */
  topologyConstraint?: ComponentTopologyConstraint;
  /** A PVC-backed compilation cache (1.x only; v1beta1 `compilationCache{pvcName, mountPath}`). */
  compilationCache?: { pvcName: string; mountPath?: string };
  /** 1.x: the component's `runtimeVersionOverride` as a manifest wrote it (the library's writer derives its own from the image). */
  runtimeVersionOverride?: string;
}
