// Validates objects with the @kubernetes-models packages that ship as ES modules only
// (Flux, prometheus-operator). Reads a JSON array of objects on stdin; prints a JSON
// array with the errors of each object ([] when valid).
import { HelmRelease } from '@kubernetes-models/flux-cd/helm.toolkit.fluxcd.io/v2';
import { HelmRepository } from '@kubernetes-models/flux-cd/source.toolkit.fluxcd.io/v1';
import { Kustomization } from '@kubernetes-models/flux-cd/kustomize.toolkit.fluxcd.io/v1';
import { PodMonitor, PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';

const MODELS = {
  'helm.toolkit.fluxcd.io/v2/HelmRelease': HelmRelease,
  'source.toolkit.fluxcd.io/v1/HelmRepository': HelmRepository,
  'kustomize.toolkit.fluxcd.io/v1/Kustomization': Kustomization,
  'monitoring.coreos.com/v1/PodMonitor': PodMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const results = JSON.parse(input).map((obj) => {
    const Model = MODELS[`${obj.apiVersion}/${obj.kind}`];
    if (!Model) return [`no validator for ${obj.apiVersion} ${obj.kind}`];
    try {
      new Model(obj).validate();
      return [];
    } catch (e) {
      return [String(e.message)];
    }
  });
  process.stdout.write(JSON.stringify(results));
});
