import {
  aggregatedGraphSpec,
  Backend,
  checkGraphManifest,
  disaggregatedGraphSpec,
  DynamoValidationError,
  Fabric,
  GraphSpec,
  KubeObject,
  manifestPath,
  renderGraph,
  RenderedGraph,
  Router,
} from '../../src/core/internal';
import { readV1beta1, writeV1beta1 } from '../../src/core/model/dgd-v1beta1';
import { lintSources } from '../../src/cli/lint/lint';
import { yaml } from '../../src/core/base/util';
import { crdErrors, lintCrds } from '../support/crd';

/**
 * Hardened pods by default: every container of every component runs without privilege
 * escalation, with every capability dropped (an RDMA/EFA worker keeps IPC_LOCK, nothing else
 * does) and under the runtime's default seccomp profile; `podSecurity` turns it off or up to
 * Pod Security "restricted". And the rules `lint` runs find the pod settings that hand a pod
 * the node (privileged, the node's namespaces and files, added capabilities, escalation) in
 * manifests of both API versions.
 */

const MODEL = 'meta-llama/Llama-3.3-70B-Instruct';
const VERSIONS = ['1.6.1', '0.9.0'] as const;
type Options = Record<string, unknown>;

/** The example shapes, by what sets them apart; each takes extra graph options. */
const SHAPES: Record<string, (version: string, extra?: Options) => GraphSpec> = {
  'aggregated, KV router': (dynamoVersion, extra = {}) =>
    aggregatedGraphSpec('agg', 'ns', { dynamoVersion, model: MODEL, backend: Backend.vllm(), frontend: { router: Router.kv() }, workers: { replicas: 2 }, ...extra }),
  'disaggregated over RDMA': (dynamoVersion, extra = {}) =>
    disaggregatedGraphSpec('rdma', 'ns', { dynamoVersion, model: MODEL, backend: Backend.vllm(), fabric: Fabric.rdma(), prefill: { tensorParallelSize: 2 }, decode: { tensorParallelSize: 4 }, ...extra }),
  'disaggregated over EFA': (dynamoVersion, extra = {}) =>
    disaggregatedGraphSpec('efa', 'ns', { dynamoVersion, model: MODEL, backend: Backend.sglang(), fabric: Fabric.efa(), prefill: {}, decode: { tensorParallelSize: 2 }, ...extra }),
  'disaggregated over TCP': (dynamoVersion, extra = {}) =>
    disaggregatedGraphSpec('tcp', 'ns', { dynamoVersion, model: MODEL, backend: Backend.trtllm(), fabric: Fabric.tcp(), prefill: {}, decode: {}, ...extra }),
  'planned, with a model cache': (dynamoVersion, extra = {}) =>
    disaggregatedGraphSpec('planned', 'ns', {
      dynamoVersion,
      model: MODEL,
      backend: Backend.vllm(),
      fabric: Fabric.rdma(),
      modelCache: { claimName: 'weights', mountPath: '/opt/models' },
      prefill: { tensorParallelSize: 2 },
      decode: { tensorParallelSize: 2 },
      planner: { ttftMs: 200, itlMs: 20, maxGpuBudget: 8 },
      ...extra,
    }),
  'rehearsal of a planned RDMA graph': (dynamoVersion, extra = {}) =>
    disaggregatedGraphSpec('rehearsal', 'ns', {
      dynamoVersion,
      model: MODEL,
      backend: Backend.vllm(),
      fabric: Fabric.rdma(),
      rehearsal: true,
      prefill: {},
      decode: {},
      planner: { ttftMs: 200, itlMs: 20 },
      ...extra,
    }),
};

/** The shapes whose workers need no IPC_LOCK: the ones `restricted` admits. */
const WITHOUT_IPC_LOCK = ['aggregated, KV router', 'disaggregated over TCP', 'rehearsal of a planned RDMA graph'];

const CASES = VERSIONS.flatMap((version) => Object.keys(SHAPES).map((shape) => [shape, version] as const));

const render = (shape: string, version: string, extra?: Options): RenderedGraph => renderGraph(SHAPES[shape](version, extra));

interface Pod {
  readonly component: string;
  /** The pod spec as written: v1beta1's pod template, or v1alpha1's `extraPodSpec` (which holds the main container). */
  readonly spec: Record<string, any>;
  readonly main: Record<string, any>;
}

/** Every component's pod, read from the manifest in its own API version. */
function podsOf(graph: any): Pod[] {
  if (graph.apiVersion === 'nvidia.com/v1beta1') {
    return graph.spec.components.map((c: any) => ({ component: c.name, spec: c.podTemplate.spec, main: c.podTemplate.spec.containers.find((x: any) => x.name === 'main') }));
  }
  return Object.entries(graph.spec.services).map(([component, s]: [string, any]) => ({ component, spec: s.extraPodSpec, main: s.extraPodSpec.mainContainer }));
}

/** The RDMA/EFA devices a container requests. */
function devices(c: Record<string, any>): string[] {
  return Object.keys({ ...c.resources?.limits, ...c.resources?.requests }).filter((r) => r.startsWith('rdma/') || r === 'vpc.amazonaws.com/efa');
}

/** The components a graph spec renders. */
const componentsOf = (spec: GraphSpec) => spec.components.map((c) => c.name).sort();

describe('hardened by default', () => {
  test.each(CASES)('%s on %s: every component, pod and main container', (shape, version) => {
    const spec = SHAPES[shape](version);
    const pods = podsOf(renderGraph(spec).graph);
    expect(pods.map((p) => p.component).sort()).toEqual(componentsOf(spec));
    for (const pod of pods) {
      expect({ component: pod.component, pod: pod.spec.securityContext }).toEqual({
        component: pod.component,
        // the operator's fsGroup kept: it adds its own only to pods without a security context
        pod: { fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      });
      const capabilities = devices(pod.main).length > 0 ? { add: ['IPC_LOCK'], drop: ['ALL'] } : { drop: ['ALL'] };
      expect({ component: pod.component, main: pod.main.securityContext }).toEqual({ component: pod.component, main: { allowPrivilegeEscalation: false, capabilities } });
    }
  });

  test.each(VERSIONS)('IPC_LOCK goes to the containers that request an RDMA or EFA device, and to no other (%s)', (version) => {
    const withDevice: string[] = [];
    const withLock: string[] = [];
    for (const shape of Object.keys(SHAPES)) {
      for (const pod of podsOf(render(shape, version).graph)) {
        if (devices(pod.main).length > 0) withDevice.push(`${shape}/${pod.component}`);
        if ((pod.main.securityContext?.capabilities?.add ?? []).includes('IPC_LOCK')) withLock.push(`${shape}/${pod.component}`);
      }
    }
    expect(withLock).toEqual(withDevice);
    // the RDMA and EFA prefill and decode workers, and the planned graph's: a rehearsal requests no device
    expect(withDevice).toHaveLength(6);
  });

  test.each(CASES)('%s on %s: valid against the CRD, and the rules find nothing about its pods', (shape, version) => {
    for (const podSecurity of ['hardened', 'none', ...(WITHOUT_IPC_LOCK.includes(shape) ? ['restricted'] : [])]) {
      const r = render(shape, version, { podSecurity });
      expect({ podSecurity, errors: crdErrors(r.graph) }).toEqual({ podSecurity, errors: [] });
      const pods = checkGraphManifest(r.graph, r.configMaps).filter((f) => POD_RULES.includes(f.rule));
      expect(pods).toEqual([]);
    }
  });
});

describe('podSecurity', () => {
  test.each(CASES)("%s on %s: 'none' writes no security context but the fabric's IPC_LOCK", (shape, version) => {
    for (const pod of podsOf(render(shape, version, { podSecurity: 'none' }).graph)) {
      expect(pod.spec.securityContext).toBeUndefined();
      expect({ component: pod.component, main: pod.main.securityContext }).toEqual({
        component: pod.component,
        main: devices(pod.main).length > 0 ? { capabilities: { add: ['IPC_LOCK'] } } : undefined,
      });
    }
  });

  test.each(VERSIONS)("'restricted' runs every pod as the images' non-root user, UID 1000 (%s)", (version) => {
    for (const shape of WITHOUT_IPC_LOCK) {
      for (const pod of podsOf(render(shape, version, { podSecurity: 'restricted' }).graph)) {
        expect(pod.spec.securityContext).toEqual({ fsGroup: 1000, runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
        expect(pod.main.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      }
    }
  });

  test("'restricted' with a fabric that needs IPC_LOCK is refused, at the option, with what to do", () => {
    for (const [fabric, name] of [[Fabric.rdma(), 'rdma'], [Fabric.efa(), 'efa']] as const) {
      expect(issues(() => render('disaggregated over RDMA', '1.6.1', { podSecurity: 'restricted', fabric }))).toContainEqual({
        path: 'podSecurity',
        rule: 'option-conflict',
        message: `is "restricted", but Fabric.${name}() adds IPC_LOCK to the workers (NIXL needs it to register memory with the NIC), which Pod Security "restricted" and "baseline" refuse; use "hardened" in a namespace that admits IPC_LOCK (Pod Security "privileged"), or Fabric.tcp()`,
      });
    }
  });

  test('an unknown level is refused, naming the value and the levels, together with the other problems', () => {
    expect(issues(() => render('aggregated, KV router', '1.6.1', { podSecurity: 'strict', imagePullPolicy: 'Sometimes' }))).toEqual([
      { path: 'imagePullPolicy', rule: 'value-range', message: 'must be one of "Always", "IfNotPresent", "Never", got "Sometimes"' },
      { path: 'podSecurity', rule: 'value-range', message: 'must be one of "hardened", "restricted", "none", got "strict"' },
    ]);
    expect(issues(() => render('aggregated, KV router', '0.9.0', { podSecurity: false }))).toEqual([
      { path: 'podSecurity', rule: 'value-range', message: 'must be one of "hardened", "restricted", "none", got false' },
    ]);
  });
});

function issues(fn: () => unknown): { path: string; rule: string; message: string }[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof DynamoValidationError) return e.issues.map(({ path, rule, message }) => ({ path, rule: rule as string, message }));
    throw e;
  }
  throw new Error('expected a DynamoValidationError');
}

/**
 * Pod Security Standards (kubernetes.io/docs/concepts/security/pod-security-standards), the
 * checks that concern these pods, restated: what `baseline` and `restricted` refuse in a pod.
 */
const BASELINE_CAPABILITIES = ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'];
const RESTRICTED_VOLUMES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

function podSecurityLevel(pod: Pod): 'restricted' | 'baseline' | 'privileged' {
  const spec = pod.spec;
  const containers = [pod.main, ...(spec.containers ?? []).filter((c: any) => c !== pod.main), ...(spec.initContainers ?? [])];
  const sc = (c: any) => c.securityContext ?? {};
  const seccomp = (o: any) => o?.seccompProfile?.type;
  const baseline =
    !spec.hostNetwork &&
    !spec.hostPID &&
    !spec.hostIPC &&
    !(spec.volumes ?? []).some((v: any) => v.hostPath) &&
    containers.every((c) => !sc(c).privileged && (sc(c).capabilities?.add ?? []).every((a: string) => BASELINE_CAPABILITIES.includes(a)) && seccomp(sc(c)) !== 'Unconfined') &&
    seccomp(spec.securityContext) !== 'Unconfined';
  if (!baseline) return 'privileged';
  const podSc = spec.securityContext ?? {};
  const restricted =
    (spec.volumes ?? []).every((v: any) => Object.keys(v).some((k) => RESTRICTED_VOLUMES.includes(k))) &&
    containers.every((c) => sc(c).allowPrivilegeEscalation === false) &&
    containers.every((c) => (sc(c).runAsNonRoot ?? podSc.runAsNonRoot) === true && (sc(c).runAsUser ?? podSc.runAsUser) !== 0) &&
    containers.every((c) => ['RuntimeDefault', 'Localhost'].includes(seccomp(sc(c)) ?? seccomp(podSc))) &&
    containers.every((c) => (sc(c).capabilities?.drop ?? []).includes('ALL') && (sc(c).capabilities?.add ?? []).every((a: string) => a === 'NET_BIND_SERVICE'));
  return restricted ? 'restricted' : 'baseline';
}

describe('the Pod Security level each fabric needs (what the README states)', () => {
  const levels = (shape: string, version: string, extra?: Options) => [...new Set(podsOf(render(shape, version, extra).graph).map(podSecurityLevel))].sort();

  test.each(VERSIONS)("TCP: 'restricted' pods pass restricted, 'hardened' ones baseline (they run as the image's user) (%s)", (version) => {
    for (const shape of ['aggregated, KV router', 'disaggregated over TCP']) {
      expect(levels(shape, version, { podSecurity: 'restricted' })).toEqual(['restricted']);
      expect(levels(shape, version)).toEqual(['baseline']);
    }
  });

  test.each(VERSIONS)('RDMA and EFA: the workers need privileged (IPC_LOCK is not in baseline), the frontend and planner pass baseline (%s)', (version) => {
    for (const shape of ['disaggregated over RDMA', 'disaggregated over EFA', 'planned, with a model cache']) {
      const pods = podsOf(render(shape, version).graph);
      expect(pods.filter((p) => devices(p.main).length > 0).map(podSecurityLevel)).toEqual(['privileged', 'privileged']);
      expect([...new Set(pods.filter((p) => devices(p.main).length === 0).map(podSecurityLevel))]).toEqual(['baseline']);
    }
  });

  test('a rehearsal of an RDMA graph runs no fabric: restricted', () => {
    expect(levels('rehearsal of a planned RDMA graph', '1.6.1', { podSecurity: 'restricted' })).toEqual(['restricted']);
  });
});

// ---------------------------------------------------------------------------
// lint: dangerous pod settings, in both API versions

const POD_RULES: string[] = ['privileged-container', 'host-namespace', 'added-capability', 'host-path-system', 'fabric-host-access', 'host-path', 'privilege-escalation'];

/** What the rules `lint` runs report about pods for a graph changed by `edit`, as `severity rule at path`. */
function lintPods(version: string, shape: string, edit: (pods: Record<string, Pod>) => void): string[] {
  const r = render(shape, version);
  const graph = JSON.parse(JSON.stringify(r.graph));
  // the pods read from the copy are its own objects: editing them edits the manifest
  edit(Object.fromEntries(podsOf(graph).map((p) => [p.component, p])));
  return checkGraphManifest(graph, r.configMaps)
    .filter((f) => POD_RULES.includes(f.rule))
    .map((f) => `${f.severity} ${f.rule} at ${manifestPath(f)}`);
}

const MAIN = { '1.6.1': 'podTemplate.spec.containers[main]', '0.9.0': 'extraPodSpec.mainContainer' } as const;
const POD = { '1.6.1': 'podTemplate.spec', '0.9.0': 'extraPodSpec' } as const;

describe.each(VERSIONS)('lint finds dangerous pod settings (%s)', (version) => {
  const main = MAIN[version];
  const pod = POD[version];

  test('privileged: an error off a fabric, a warning on an RDMA worker', () => {
    expect(
      lintPods(version, 'disaggregated over RDMA', (p) => {
        p.Frontend.main.securityContext.privileged = true;
        p.VllmPrefillWorker.main.securityContext.privileged = true;
      }),
    ).toEqual([`error privileged-container at Frontend.${main}.securityContext.privileged`, `warning fabric-host-access at VllmPrefillWorker.${main}.securityContext.privileged`]);
  });

  test('hostPID anywhere, hostNetwork and hostIPC off a fabric: errors; hostNetwork and hostIPC on an EFA worker: warnings', () => {
    expect(
      lintPods(version, 'disaggregated over EFA', (p) => {
        Object.assign(p.Frontend.spec, { hostNetwork: true, hostIPC: true });
        Object.assign(p.decode.spec, { hostPID: true, hostNetwork: true, hostIPC: true });
      }),
    ).toEqual([
      `error host-namespace at Frontend.${pod}.hostNetwork`,
      `error host-namespace at Frontend.${pod}.hostIPC`,
      `error host-namespace at decode.${pod}.hostPID`,
      `warning fabric-host-access at decode.${pod}.hostNetwork`,
      `warning fabric-host-access at decode.${pod}.hostIPC`,
    ]);
  });

  test('hostPath: the node\'s system paths and sockets are errors, other paths warnings', () => {
    const volume = (name: string, path: string) => ({ name, hostPath: { path } });
    expect(
      lintPods(version, 'aggregated, KV router', (p) => {
        p.Frontend.spec.volumes = [volume('root', '/'), volume('etc', '/etc/kubernetes/'), volume('docker', '/var/run/docker.sock'), volume('escape', '/mnt/../proc/1')];
        p.VllmWorker.spec.volumes = [volume('models', '/mnt/models'), volume('ib', '/dev/infiniband')];
      }),
    ).toEqual([
      `error host-path-system at Frontend.${pod}.volumes[root].hostPath`,
      `error host-path-system at Frontend.${pod}.volumes[etc].hostPath`,
      `error host-path-system at Frontend.${pod}.volumes[docker].hostPath`,
      `error host-path-system at Frontend.${pod}.volumes[escape].hostPath`,
      `warning host-path at VllmWorker.${pod}.volumes[models].hostPath`,
      `warning host-path at VllmWorker.${pod}.volumes[ib].hostPath`,
    ]);
  });

  test('capabilities beyond IPC_LOCK and NET_BIND_SERVICE, in any spelling and any container; escalation turned on', () => {
    expect(
      lintPods(version, 'disaggregated over RDMA', (p) => {
        p.VllmDecodeWorker.main.securityContext.capabilities.add.push('NET_BIND_SERVICE');
        p.VllmPrefillWorker.main.securityContext.capabilities.add.push('cap_sys_admin', 'NET_ADMIN');
        p.Frontend.main.securityContext.allowPrivilegeEscalation = true;
        p.Frontend.spec.initContainers = [{ name: 'setup', image: 'busybox', securityContext: { capabilities: { add: ['SYS_PTRACE'] } } }];
      }),
    ).toEqual([
      `warning privilege-escalation at Frontend.${main}.securityContext.allowPrivilegeEscalation`,
      `error added-capability at Frontend.${pod}.initContainers[setup].securityContext.capabilities.add`,
      `error added-capability at VllmPrefillWorker.${main}.securityContext.capabilities.add`,
    ]);
  });
});

test('dynamo-constructs lint, on YAML files of both API versions: the findings, and the errors that fail it', () => {
  const sources = VERSIONS.map((version) => {
    const r = render('disaggregated over RDMA', version);
    const graph = JSON.parse(JSON.stringify(r.graph));
    const pods = Object.fromEntries(podsOf(graph).map((p) => [p.component, p]));
    pods.Frontend.spec.hostPID = true;
    pods.VllmDecodeWorker.main.securityContext.privileged = true;
    return { file: `${version}.yaml`, text: [graph, ...r.configMaps].map((o) => yaml().stringify(o)).join('---\n') };
  });
  const result = lintSources(sources, { crds: lintCrds() });
  expect(result.findings.map((f) => `${f.file}: ${f.severity} ${f.rule} at ${f.path}`)).toEqual([
    '1.6.1.yaml: error host-namespace at Frontend.podTemplate.spec.hostPID',
    '1.6.1.yaml: warning fabric-host-access at VllmDecodeWorker.podTemplate.spec.containers[main].securityContext.privileged',
    '0.9.0.yaml: error host-namespace at Frontend.extraPodSpec.hostPID',
    '0.9.0.yaml: warning fabric-host-access at VllmDecodeWorker.extraPodSpec.mainContainer.securityContext.privileged',
  ]);
  expect(result.errors).toBe(2);
});

describe('lint reads what only one API version has', () => {
  test('v1alpha1: the operator annotations that make the main container privileged or add SYS_PTRACE', () => {
    const r = render('disaggregated over RDMA', '0.9.0');
    const g = JSON.parse(JSON.stringify(r.graph));
    g.spec.services.Frontend.annotations = { 'nvidia.com/enable-container-privileged': 'true' };
    g.spec.services.VllmPrefillWorker.extraPodMetadata = { annotations: { 'nvidia.com/enable-container-privileged': 'true', 'nvidia.com/enable-container-ptrace': 'true' } };
    g.spec.services.VllmDecodeWorker.annotations = { 'nvidia.com/enable-container-privileged': 'false' };
    const found = checkGraphManifest(g, r.configMaps).filter((f) => POD_RULES.includes(f.rule));
    expect(found.map((f) => `${f.severity} ${f.rule} at ${manifestPath(f)}`)).toEqual([
      'error privileged-container at Frontend.annotations[nvidia.com/enable-container-privileged]',
      'warning fabric-host-access at VllmPrefillWorker.extraPodMetadata.annotations[nvidia.com/enable-container-privileged]',
      'error added-capability at VllmPrefillWorker.extraPodMetadata.annotations[nvidia.com/enable-container-ptrace]',
    ]);
    expect(found[0].message).toBe(
      'is "true", so the operator runs the main container privileged: it gets every device and capability of the node, and root in it is root on the node. Nothing in a frontend needs it (an RDMA/EFA worker needs only its device request and IPC_LOCK); remove it',
    );
  });

  test('v1beta1: a container beside main is read (and written back), so a privileged sidecar cannot hide', () => {
    const r = render('aggregated, KV router', '1.6.1');
    const g = JSON.parse(JSON.stringify(r.graph));
    const spec = g.spec.components.find((c: any) => c.name === 'VllmWorker').podTemplate.spec;
    const sidecar = { name: 'debug', image: 'busybox', securityContext: { privileged: true, allowPrivilegeEscalation: true } };
    spec.containers.push(sidecar);
    expect(
      checkGraphManifest(g, r.configMaps)
        .filter((f) => POD_RULES.includes(f.rule))
        .map((f) => `${f.severity} ${f.rule} at ${manifestPath(f)}`),
    ).toEqual(['error privileged-container at VllmWorker.podTemplate.spec.containers[debug].securityContext.privileged', 'warning privilege-escalation at VllmWorker.podTemplate.spec.containers[debug].securityContext.allowPrivilegeEscalation']);
    const written = writeV1beta1(readV1beta1(g) as KubeObject);
    expect((written.spec as any).components.find((c: any) => c.name === 'VllmWorker').podTemplate.spec.containers.map((c: any) => c.name)).toEqual(['main', 'debug']);
    expect((written.spec as any).components.find((c: any) => c.name === 'VllmWorker').podTemplate.spec.containers[1]).toEqual(sidecar);
  });
});
