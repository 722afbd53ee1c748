import { KubeObject } from '../base/k8s';
import { DgdService } from './dgd';

/**
 * The 0.8/0.9 (v1alpha1) DynamoGraphDeployment. Its layout is the normalized one, so reading is
 * taking it as it is, and writing leaves out only what the normalized graph carries for v1beta1:
 * the scaling-adapter marker (a 0.8/0.9 planner's ownership shows as no `replicas`).
 */
export function writeV1alpha1(graph: KubeObject): KubeObject {
  const services = Object.fromEntries(
    Object.entries(((graph.spec as { services?: Record<string, DgdService> }).services ?? {})).map(([name, s]) => {
      const { scalingAdapter: _owned, ...rest } = s;
      void _owned;
      return [name, rest];
    }),
  );
  return { ...graph, spec: { ...(graph.spec as object), ...(Object.keys(services).length > 0 ? { services } : {}) } };
}
