import { KubeObject } from '../base/k8s';
import { prune } from '../base/util';
import { SlaRequestModel } from './sla-request';

/** The `profilingConfig.config` object the profiler reads (camelCase keys, Dynamo 0.8.1 and later). */
function profilerConfig(m: SlaRequestModel): Record<string, unknown> {
  const aic = m.aiConfigurator;
  const planner = m.planner;
  return {
    sla: { isl: m.sla.isl, osl: m.sla.osl, ttft: m.sla.ttftMs, itl: m.sla.itlMs },
    hardware: m.hardware
      ? { minNumGpusPerEngine: m.hardware.minGpusPerEngine, maxNumGpusPerEngine: m.hardware.maxGpusPerEngine, numGpusPerNode: m.hardware.gpusPerNode }
      : undefined,
    deployment: m.modelCache ? { modelCache: { pvcName: m.modelCache.claimName, mountPath: m.modelCache.mountPath } } : undefined,
    sweep: aic ? { useAiConfigurator: true, aicSystem: aic.system, aicHfId: aic.hfId, aicBackendVersion: aic.backendVersion } : undefined,
    planner: planner.given
      ? {
        plannerMinEndpoint: planner.minEndpoint,
        plannerMaxGpuBudget: planner.maxGpuBudget,
        plannerAdjustmentInterval: planner.adjustmentIntervalSeconds,
        ...planner.predictorKeys,
      }
      : undefined,
  };
}

/** The Dynamo 0.8/0.9 request (`nvidia.com/v1alpha1`): everything the profiler reads in `profilingConfig`. */
export function writeRequestV1alpha1(m: SlaRequestModel): KubeObject {
  const g = m.generated;
  const p = m.profiling;
  return prune({
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeploymentRequest',
    metadata: { name: m.name, namespace: m.namespace, labels: m.labels, annotations: m.annotations },
    spec: {
      model: m.model,
      backend: m.backend,
      autoApply: m.autoApply,
      deployMocker: m.mocker,
      enableGpuDiscovery: p.enableGpuDiscovery,
      profilingConfig: {
        profilerImage: m.profilerImage ?? m.runtimeImage,
        config: profilerConfig(m),
        configMapRef: p.configMapRef ? { name: p.configMapRef.name, key: p.configMapRef.key } : undefined,
        outputPVC: p.outputPvc,
        resources: p.resources,
        tolerations: p.tolerations,
      },
      deploymentOverrides: {
        name: g.name,
        namespace: g.namespace,
        labels: g.labels,
        annotations: g.annotations,
        workersImage: g.workersImage ?? m.runtimeImage,
      },
    },
  });
}
