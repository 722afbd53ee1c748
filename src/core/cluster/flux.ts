import { checkBoolean, checkDnsLabel, checkDnsSubdomain, checkKnownKeys, checkObject, checkOneOf, checkString, join, optionKeys } from '../base/checks';
import { Diagnostics, show } from '../base/errors';
import { checkFluxDuration } from './helm';
import { KubeObject } from '../base/k8s';
import { prune } from '../base/util';

/** The API of Flux's Kustomization (kustomize-controller v1, Flux 2.x). */
export const FLUX_KUSTOMIZATION_API = 'kustomize.toolkit.fluxcd.io/v1';

/** The Flux source kinds a Kustomization reads manifests from. */
export type FluxSourceKind = 'GitRepository' | 'OCIRepository' | 'Bucket';
export const FLUX_SOURCE_KINDS: readonly FluxSourceKind[] = ['GitRepository', 'OCIRepository', 'Bucket'];

/** An existing Flux source holding the synthesized manifests. */
export interface FluxSourceRef {
  /** Kind of the source. */
  readonly kind: FluxSourceKind;
  /** Name of the source object. */
  readonly name: string;
  /**
   * Namespace of the source object.
   * @default - the Kustomization's
   */
  readonly namespace?: string;
}

/** One stage of a GitOps delivery: a folder of synthesized manifests that Flux applies as one Kustomization. */
export interface FluxKustomizationOptions {
  /** The source holding the manifests, e.g. the platform repository's GitRepository. */
  readonly sourceRef: FluxSourceRef;
  /**
   * Folder in the source, relative to its root, e.g. `./dist/cluster-infra` (a chart synthesized
   * with `YamlOutputType.FOLDER_PER_CHART_FILE_PER_RESOURCE`): Flux applies every manifest in it.
   */
  readonly path: string;
  /**
   * Namespace of the Kustomization object.
   * @default 'flux-system'
   */
  readonly namespace?: string;
  /**
   * How often Flux reconciles the folder with the cluster.
   * @default '10m'
   */
  readonly interval?: string;
  /**
   * How long Flux waits for the folder's objects to become ready before it reports a failure.
   * @default '15m' (Dynamo's operator and Prometheus stack take minutes to roll out)
   */
  readonly timeout?: string;
  /**
   * Wait for every object applied to be ready (HelmReleases installed, Deployments available)
   * before this stage counts as ready, so a stage that depends on it starts only after.
   * @default true
   */
  readonly wait?: boolean;
  /**
   * Delete from the cluster what is removed from the folder.
   * @default true
   */
  readonly prune?: boolean;
  /**
   * Stages applied and ready before this one (`spec.dependsOn`): the workloads after the
   * infrastructure, whose charts install the kinds they use.
   * @default - none
   */
  readonly dependsOn?: readonly FluxKustomizationRef[];
  /**
   * Namespace every namespaced object of the folder is put in.
   * @default - the namespaces the manifests name
   */
  readonly targetNamespace?: string;
}

/** A Kustomization another stage depends on: its name and namespace. */
export interface FluxKustomizationRef {
  readonly name: string;
  readonly namespace?: string;
}

const KUSTOMIZATION_KEYS = optionKeys<FluxKustomizationOptions>()('sourceRef', 'path', 'namespace', 'interval', 'timeout', 'wait', 'prune', 'dependsOn', 'targetNamespace');
const SOURCE_KEYS = optionKeys<FluxSourceRef>()('kind', 'name', 'namespace');

/** Checks a stage's options; `name` is the Kustomization's name. */
export function checkFluxKustomization(d: Diagnostics, path: string, name: unknown, o: FluxKustomizationOptions): void {
  checkDnsSubdomain(d, join(path, 'name'), name);
  if (!checkObject(d, path, o, 'an object { sourceRef, path, ... }')) return;
  checkKnownKeys(d, path, o, KUSTOMIZATION_KEYS);
  if (o.sourceRef === undefined) d.error(join(path, 'sourceRef'), 'is required: the Flux source (GitRepository, OCIRepository or Bucket) holding the manifests', 'required');
  else if (checkObject(d, join(path, 'sourceRef'), o.sourceRef, 'an object { kind, name, namespace? }')) {
    checkKnownKeys(d, join(path, 'sourceRef'), o.sourceRef, SOURCE_KEYS);
    if (o.sourceRef.kind === undefined) d.error(join(path, 'sourceRef.kind'), `is required: one of ${FLUX_SOURCE_KINDS.join(', ')}`, 'required');
    checkOneOf(d, join(path, 'sourceRef.kind'), o.sourceRef.kind, FLUX_SOURCE_KINDS);
    if (o.sourceRef.name === undefined) d.error(join(path, 'sourceRef.name'), 'is required: the source object\'s name', 'required');
    checkDnsSubdomain(d, join(path, 'sourceRef.name'), o.sourceRef.name);
    checkDnsLabel(d, join(path, 'sourceRef.namespace'), o.sourceRef.namespace);
  }
  if (checkString(d, join(path, 'path'), o.path, true)) checkSourcePath(d, join(path, 'path'), o.path);
  checkDnsLabel(d, join(path, 'namespace'), o.namespace);
  checkFluxDuration(d, join(path, 'interval'), o.interval);
  checkFluxDuration(d, join(path, 'timeout'), o.timeout);
  checkBoolean(d, join(path, 'wait'), o.wait);
  checkBoolean(d, join(path, 'prune'), o.prune);
  checkDnsLabel(d, join(path, 'targetNamespace'), o.targetNamespace);
  if (o.dependsOn !== undefined) {
    if (!Array.isArray(o.dependsOn)) d.error(join(path, 'dependsOn'), `must be a list of Kustomizations, got ${show(o.dependsOn)}`, 'value-type');
    else {
      o.dependsOn.forEach((dep, i) => {
        const at = join(join(path, 'dependsOn'), i);
        // a FluxKustomization construct, or a plain { name, namespace? }
        if (typeof dep !== 'object' || dep === null || typeof dep.name !== 'string') {
          d.error(at, `must be a FluxKustomization or { name, namespace? }, got ${show(dep)}`, 'value-type');
          return;
        }
        checkDnsSubdomain(d, join(at, 'name'), dep.name);
        checkDnsLabel(d, join(at, 'namespace'), dep.namespace);
        if (dep.name === name && (dep.namespace ?? 'flux-system') === (o.namespace ?? 'flux-system')) {
          d.error(at, `is this Kustomization itself (${show(name)}); a stage cannot wait for itself`, 'option-conflict');
        }
      });
    }
  }
}

/** A folder inside the source: relative, without `..`, so a stage cannot read beyond its repository. */
function checkSourcePath(d: Diagnostics, path: string, value: string): void {
  const parts = value.split('/');
  if (value.startsWith('/') || parts.includes('..') || value.length === 0 || /[\u0000-\u001f\u007f]/.test(value)) {
    d.error(path, `must be a folder inside the source, relative to its root without '..', such as "./dist/cluster-infra", got ${show(value)}`, 'value-format');
  }
}

/** The Kustomization object of a stage. */
export function renderFluxKustomization(name: string, o: FluxKustomizationOptions): KubeObject {
  const namespace = o.namespace ?? 'flux-system';
  return prune({
    apiVersion: FLUX_KUSTOMIZATION_API,
    kind: 'Kustomization',
    metadata: { name, namespace },
    spec: {
      interval: o.interval ?? '10m',
      timeout: o.timeout ?? '15m',
      sourceRef: { kind: o.sourceRef.kind, name: o.sourceRef.name, namespace: o.sourceRef.namespace },
      path: o.path,
      prune: o.prune ?? true,
      wait: o.wait ?? true,
      targetNamespace: o.targetNamespace,
      dependsOn: o.dependsOn?.map((dep) => ({ name: dep.name, namespace: dep.namespace !== undefined && dep.namespace !== namespace ? dep.namespace : undefined })),
    },
  }) as KubeObject;
}
