import { isPlainObject } from '../base/checks';
import { fabricOf } from './fabric';
import { Findings } from './findings';
import { GraphModel, Place, ServiceModel } from '../model/graph-model';

/**
 * Pod settings that give a Dynamo pod more of the node than serving needs: privileged
 * containers, the node's namespaces, its files, added capabilities, privilege escalation.
 * Nothing Dynamo runs needs them, with one kind of exception, reported as a warning: RDMA/EFA
 * workers of older RoCE examples and AIConfigurator's EFA manifests, which reach their NIC as
 * privileged pods on the host's network or IPC namespace. IPC_LOCK is the fabric rules' to judge.
 */

type Obj = Record<string, unknown>;

/** What a worker's fabric or a server's port may add (Pod Security "restricted" admits NET_BIND_SERVICE). */
const ALLOWED_CAPABILITIES = new Set(['IPC_LOCK', 'NET_BIND_SERVICE']);

/** The operator's annotations that change a service's main container (read on v1alpha1 services). */
const PRIVILEGED_ANNOTATION = 'nvidia.com/enable-container-privileged';
const PTRACE_ANNOTATION = 'nvidia.com/enable-container-ptrace';
const ANNOTATION_FIELDS = ['annotations', 'extraPodMetadata.annotations'];

/** Node directories whose mount hands over the node, with what lies below them. */
const SYSTEM_TREES = ['/etc', '/proc', '/sys', '/boot', '/root', '/var/lib/kubelet', '/var/lib/docker', '/var/lib/containerd', '/run/containerd', '/var/run/containerd', '/run/crio', '/var/run/crio'];
/** Node directories that hold the trees above (or every device): mounted whole, they hand it over too. */
const SYSTEM_ROOTS = new Set(['/', '/dev', '/run', '/var/run', '/var', '/var/lib', '/usr', '/lib', '/home']);

function obj(value: unknown): Obj {
  return isPlainObject(value) ? value : {};
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/** `a//b/./c/../d/` as `/a/b/d`. */
function normalizePath(p: string): string {
  const parts: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

function isSystemPath(raw: string): boolean {
  const p = normalizePath(raw);
  return SYSTEM_ROOTS.has(p) || SYSTEM_TREES.some((t) => p === t || p.startsWith(`${t}/`)) || p.endsWith('.sock');
}

/** A capability as Kubernetes spells it (`CAP_SYS_ADMIN` and `sys_admin` are `SYS_ADMIN`). */
function capabilityName(c: unknown): string {
  return String(c).toUpperCase().replace(/^CAP_/, '');
}

/** Every container of a service's pod, with where it sits: main, the others, the init containers. */
function containersOf(s: ServiceModel): { container: Obj; field: string }[] {
  const pod = obj(s.spec.extraPodSpec);
  const named = (kind: string, c: Obj, i: number) => `extraPodSpec.${kind}[${typeof c.name === 'string' ? c.name : i}]`;
  return [
    ...(isPlainObject(pod.mainContainer) ? [{ container: pod.mainContainer, field: 'extraPodSpec.mainContainer' }] : []),
    ...list(pod.containers).map((c, i) => ({ container: c, field: named('containers', c, i) })),
    ...list(pod.initContainers).map((c, i) => ({ container: c, field: named('initContainers', c, i) })),
  ];
}

/** An operator annotation set to "true" on the service, and where. */
function annotation(s: ServiceModel, key: string): Place | undefined {
  for (const field of ANNOTATION_FIELDS) {
    const annotations = field.split('.').reduce<unknown>((at, k) => obj(at)[k], s.spec);
    if (obj(annotations)[key] === 'true') return { field: `${field}[${key}]` };
  }
  return undefined;
}

/** A worker whose KV cache travels over RDMA or EFA (by its devices, or a privileged pod's transport environment). */
function onFabric(s: ServiceModel): boolean {
  return s.kind === 'worker' && s.engine !== 'mocker' && fabricOf(s) !== 'tcp';
}

const WHAT = { frontend: 'a frontend', planner: 'a planner', worker: 'a worker', other: 'this service' } as const;

function privileged(f: Findings, s: ServiceModel, fabric: boolean, place: Place, how: string): void {
  const what = `${how}: it gets every device and capability of the node, and root in it is root on the node`;
  if (fabric) {
    f.report('fabric-host-access', s, place, `${what}. An RDMA/EFA worker needs only its device request and IPC_LOCK (Fabric.rdma(), Fabric.efa()); drop privileged`);
  } else {
    f.report('privileged-container', s, place, `${what}. Nothing in ${WHAT[s.kind]} needs it (an RDMA/EFA worker needs only its device request and IPC_LOCK); remove it`);
  }
}

function hostNamespaces(f: Findings, s: ServiceModel, fabric: boolean): void {
  const pod = obj(s.spec.extraPodSpec);
  if (pod.hostPID === true) {
    f.report('host-namespace', s, { field: 'extraPodSpec.hostPID' }, "is true: the pod sees every process of the node and can signal or trace those of its user. Nothing Dynamo runs needs the node's processes; remove it");
  }
  const shared: [key: string, what: string, onFabric: string][] = [
    [
      'hostNetwork',
      "the pod runs in the node's network namespace: it listens on the node's addresses, reaches what is bound to the node's loopback and bypasses network policies",
      'for RoCE, attach the RDMA NIC as a secondary network (SR-IOV, macvlan) instead',
    ],
    [
      'hostIPC',
      "the pod shares the node's IPC namespace: the shared memory and message queues of the node's processes",
      "KV cache moves through the device (with FI_EFA_ENABLE_SHM_TRANSFER=0, Fabric.efa()'s default, also between workers on one node); remove it",
    ],
  ];
  for (const [key, what, fix] of shared) {
    if (pod[key] !== true) continue;
    const place = { field: `extraPodSpec.${key}` };
    if (fabric) f.report('fabric-host-access', s, place, `is true: ${what}. An RDMA/EFA worker reaches its NIC through its device request (Fabric.rdma(), Fabric.efa()); ${fix}`);
    else f.report('host-namespace', s, place, `is true: ${what}. Nothing in ${WHAT[s.kind]} needs it (the operator's Services connect the pods); remove it`);
  }
}

function hostPaths(f: Findings, s: ServiceModel): void {
  list(obj(s.spec.extraPodSpec).volumes).forEach((v, i) => {
    const hostPath = obj(v.hostPath);
    if (typeof hostPath.path !== 'string') return;
    const place = { field: `extraPodSpec.volumes[${typeof v.name === 'string' ? v.name : i}].hostPath` };
    const path = JSON.stringify(hostPath.path);
    if (isSystemPath(hostPath.path)) {
      f.report('host-path-system', s, place, `mounts the node's ${path}: a process in the pod that writes there, or talks to a runtime socket, controls the node. Remove the volume`);
    } else {
      f.report('host-path', s, place, `mounts the node's ${path}: the pod reads and writes the node's files, outside any claim, and depends on the node it lands on. Use a PersistentVolumeClaim (ModelCache) or an emptyDir`);
    }
  });
}

function containerSettings(f: Findings, s: ServiceModel, fabric: boolean): void {
  for (const { container, field } of containersOf(s)) {
    const sc = obj(container.securityContext);
    if (sc.privileged === true) privileged(f, s, fabric, { field: `${field}.securityContext.privileged` }, 'is true, so the container is privileged');
    const added = Array.isArray(obj(sc.capabilities).add) ? (obj(sc.capabilities).add as unknown[]).map(capabilityName) : [];
    const extra = [...new Set(added.filter((c) => !ALLOWED_CAPABILITIES.has(c)))];
    if (extra.length > 0) {
      f.report(
        'added-capability',
        s,
        { field: `${field}.securityContext.capabilities.add` },
        `adds ${extra.join(', ')}: ${extra.includes('ALL') || extra.includes('SYS_ADMIN') ? 'as good as root on the node' : 'more of the kernel than serving uses'}. NIXL needs only IPC_LOCK, with an RDMA/EFA device; remove ${extra.length === 1 ? 'it' : 'them'}`,
      );
    }
    if (sc.allowPrivilegeEscalation === true) {
      f.report(
        'privilege-escalation',
        s,
        { field: `${field}.securityContext.allowPrivilegeEscalation` },
        "is true: setuid binaries and file capabilities can raise a process's privileges. Dynamo's images run as a non-root user and need no escalation; set it to false (the library does)",
      );
    }
  }
}

/** Pod settings that give a Dynamo pod more of the node than serving needs. */
export function podSecurityRules(g: GraphModel, f: Findings): void {
  for (const s of g.services) {
    const fabric = onFabric(s);
    const privilegedBy = annotation(s, PRIVILEGED_ANNOTATION);
    if (privilegedBy) privileged(f, s, fabric, privilegedBy, 'is "true", so the operator runs the main container privileged');
    const ptrace = annotation(s, PTRACE_ANNOTATION);
    if (ptrace) {
      f.report('added-capability', s, ptrace, 'is "true", so the operator adds SYS_PTRACE to the main container: it can read and change the memory of other processes. A debugging setting; remove it');
    }
    hostNamespaces(f, s, fabric);
    hostPaths(f, s);
    containerSettings(f, s, fabric);
  }
}
