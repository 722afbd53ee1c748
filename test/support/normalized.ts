import { readV1beta1 } from '../../src/core/model/dgd-v1beta1';

/** A graph's services in the normalized (v1alpha1) layout, whichever API version it is written in. */
export function normalized(graph: unknown): Record<string, any> {
  const g = graph as { apiVersion?: string; spec?: { services?: Record<string, any> } };
  const n = g.apiVersion === 'nvidia.com/v1beta1' ? (readV1beta1(g as Record<string, unknown>) as { spec?: { services?: Record<string, any> } }) : g;
  return n.spec?.services ?? {};
}
