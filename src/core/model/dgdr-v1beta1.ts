import { KubeObject } from '../base/k8s';
import { deepMerge, prune } from '../base/util';
import { runtimeVersionOf } from '../releases/versions';
import { SlaRequestModel } from './sla-request';

/** The profiling Job's pod: the profiler container's resources and secrets and the pod's tolerations, over the user's fragment. */
function profilingJob(m: SlaRequestModel): Record<string, unknown> | undefined {
  const p = m.profiling;
  const hasResources = Object.keys(p.resources.requests).length + Object.keys(p.resources.limits).length > 0;
  const envFrom = p.hfTokenSecret !== undefined ? [{ secretRef: { name: p.hfTokenSecret } }] : undefined;
  const pod = prune({
    imagePullSecrets: p.imagePullSecrets?.map((name) => ({ name })),
    tolerations: p.tolerations,
  }) as Record<string, unknown> | undefined;
  const container = prune({ resources: hasResources ? prune(p.resources) : undefined, envFrom }) as Record<string, unknown> | undefined;
  // a pod template the CRD accepts lists its containers: the operator's is named `profiler`, and
  // what is set here merges into it by that name
  const ours = pod || container ? { template: { spec: { containers: [{ name: 'profiler', ...container }], ...pod } } } : undefined;
  if (!ours && !p.job) return undefined;
  return deepMerge({ ...(p.job ?? {}) }, ours);
}

/**
 * The Dynamo 1.x request (`nvidia.com/v1beta1`, `dgdr_v1beta1_types.py`): the model, the profiler
 * image, the hardware, the workload and the SLA at the top, the planner as a PlannerConfig under
 * `features`.
 */
export function writeRequestV1beta1(m: SlaRequestModel): KubeObject {
  const image = m.profilerImage ?? `${m.release.registry}/${m.release.planner.image}:${m.version}`;
  const hw = m.hardware;
  const g = m.generated;
  const dgd = g.name !== undefined || g.labels !== undefined || g.annotations !== undefined || g.spec !== undefined
    ? prune({
      apiVersion: 'nvidia.com/v1beta1',
      kind: 'DynamoGraphDeployment',
      metadata: { name: g.name, labels: g.labels, annotations: g.annotations },
      spec: g.spec,
    })
    : undefined;
  return prune({
    apiVersion: 'nvidia.com/v1beta1',
    kind: 'DynamoGraphDeploymentRequest',
    metadata: { name: m.name, namespace: m.namespace, labels: m.labels, annotations: m.annotations },
    spec: {
      model: m.model,
      backend: m.backend,
      image,
      runtimeVersionOverride: /:\d+\.\d+\.\d+$/.test(image) ? undefined : runtimeVersionOf(m.version),
      modelCache: m.modelCache ? { pvcName: m.modelCache.claimName, pvcMountPath: m.modelCache.mountPath } : undefined,
      hardware: hw
        ? { gpuSku: hw.gpuSku, vramMb: hw.vramMb, totalGpus: hw.totalGpus, numGpusPerNode: hw.gpusPerNode, interconnect: hw.interconnect, rdma: hw.rdma }
        : undefined,
      workload: { isl: m.sla.isl, osl: m.sla.osl, concurrency: m.workload?.concurrency, requestRate: m.workload?.requestRate },
      sla: { ttft: m.sla.ttftMs, itl: m.sla.itlMs },
      overrides: { profilingJob: profilingJob(m), trustRemoteCode: m.trustRemoteCode, dgd },
      features: {
        // its presence enables the planner; the profiler copies the targets from sla, and leaves the
        // backend at the planner's default (vllm) unless it is named here
        planner: m.planner.config,
        kvRouter: m.kvRouter !== undefined ? { enabled: m.kvRouter } : undefined,
        mocker: m.mocker !== undefined ? { enabled: m.mocker } : undefined,
      },
      searchStrategy: m.profiling.searchStrategy,
      // always written: the 1.x CRD's default (true) would deploy GPUs as soon as profiling ends
      autoApply: m.autoApply,
    },
  });
}
