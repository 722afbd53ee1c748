import { isPlainObject } from '../base/checks';
import { Findings } from './findings';
import { at, containerField, GraphModel, isDisaggregated, Place, ServiceModel, workers } from '../model/graph-model';

/**
 * The network KV cache travels over: a device request, IPC_LOCK and the
 * transport environment go together (NIXL registers GPU memory with the NIC),
 * prefill and decode share one fabric, and disaggregation without one is slow.
 */

export type FabricKind = 'rdma' | 'efa' | 'tcp';

const FABRIC: Place = { field: containerField('resources'), option: 'graph:fabric' };
const CAPABILITIES: Place = { field: containerField('securityContext.capabilities.add'), option: 'graph:fabric' };

/** UCX transports that need an RDMA (or EFA SRD) device. */
const RDMA_TRANSPORTS = /(^|,)\s*(rc|rc_x|rc_v|rc_verbs|rc_mlx5|dc|dc_x|dc_mlx5|ud|ud_x|ud_v|ud_verbs|ud_mlx5|ib|srd)\s*(,|$)/;

/** RDMA device plugins: `rdma/...` (shared device plugin), SR-IOV and host-device resources of the NVIDIA network operator. */
function isRdmaResource(name: string): boolean {
  const resource = name.slice(name.indexOf('/') + 1);
  return name.startsWith('rdma/') || /(^|[-_.])(rdma|hca|ib|roce|infiniband|hostdev|sriov)([-_.\d]|$)/i.test(resource);
}

const EFA_RESOURCE = 'vpc.amazonaws.com/efa';

type Device = { name: string; kind: 'rdma' | 'efa' };
const DEVICES = new WeakMap<ServiceModel, Device[]>();

/** Device requests of the main container (and the service's custom resources). */
function devices(s: ServiceModel): Device[] {
  const known = DEVICES.get(s);
  if (known) return known;
  const found = findDevices(s);
  DEVICES.set(s, found);
  return found;
}

function findDevices(s: ServiceModel): Device[] {
  const names = new Set<string>();
  for (const source of [at(s.container, 'resources.limits'), at(s.container, 'resources.requests'), at(s.spec, 'resources.limits.custom'), at(s.spec, 'resources.requests.custom')]) {
    if (isPlainObject(source)) for (const k of Object.keys(source)) names.add(k);
  }
  return [...names].flatMap((name): Device[] =>
    name === EFA_RESOURCE ? [{ name, kind: 'efa' }] : isRdmaResource(name) ? [{ name, kind: 'rdma' }] : [],
  );
}

export function fabricOf(s: ServiceModel): FabricKind {
  const found = devices(s);
  if (found.some((d) => d.kind === 'efa')) return 'efa';
  if (found.some((d) => d.kind === 'rdma')) return 'rdma';
  // a privileged pod sees the host's devices: its transport environment says which
  if (privileged(s)) {
    const env = fabricEnv(s).map((e) => e.name);
    if (env.some((n) => n.startsWith('FI_'))) return 'efa';
    if (env.length > 0) return 'rdma';
  }
  return 'tcp';
}

function hasIpcLock(s: ServiceModel): boolean {
  const add = at(s.container, 'securityContext.capabilities.add');
  const caps = Array.isArray(add) ? add.map(String) : [];
  return caps.includes('IPC_LOCK') || caps.includes('CAP_IPC_LOCK') || privileged(s);
}

function privileged(s: ServiceModel): boolean {
  const annotations = [at(s.spec, 'annotations'), at(s.spec, 'extraPodMetadata.annotations')];
  return at(s.container, 'securityContext.privileged') === true || annotations.some((a) => isPlainObject(a) && a['nvidia.com/enable-container-privileged'] === 'true');
}

/** Environment that only makes sense with an RDMA or EFA device. */
function fabricEnv(s: ServiceModel): { name: string; place: Place }[] {
  const found: { name: string; place: Place }[] = [];
  for (const [name, e] of s.env) {
    const value = typeof e.env.value === 'string' ? e.env.value : '';
    const needsDevice =
      (name === 'UCX_TLS' && RDMA_TRANSPORTS.test(value)) ||
      name.startsWith('UCX_IB_') ||
      (name === 'FI_PROVIDER' && value === 'efa') ||
      (name.startsWith('FI_EFA_') && name !== 'FI_EFA_ENABLE_SHM_TRANSFER');
    if (needsDevice) found.push({ name, place: e.place });
  }
  return found;
}

function shmTransferOff(s: ServiceModel): boolean {
  const v = s.env.get('FI_EFA_ENABLE_SHM_TRANSFER')?.env.value;
  return v === '0' || v === 'false';
}

function separatedByAntiAffinity(s: ServiceModel): boolean {
  return isPlainObject(at(s.spec, 'extraPodSpec.affinity.podAntiAffinity'));
}

export function fabricRules(g: GraphModel, f: Findings): void {
  for (const s of g.services) {
    const found = devices(s);
    const ipcLock = hasIpcLock(s);
    // a privileged pod reaches the host's devices without requesting them
    if (privileged(s)) continue;
    if (found.length > 0 && !ipcLock) {
      f.report(
        'rdma-without-ipc-lock',
        s,
        CAPABILITIES,
        `has no IPC_LOCK, but the pod requests ${found.map((x) => x.name).join(', ')}: NIXL cannot pin memory for RDMA and KV transfer fails. Add IPC_LOCK to securityContext.capabilities.add (Fabric.rdma() and Fabric.efa() do)`,
      );
    }
    if (found.length === 0) {
      const explicitLock = ipcLock && !privileged(s);
      const env = s.kind === 'worker' ? fabricEnv(s) : [];
      if (explicitLock) {
        f.report('fabric-without-device', s, CAPABILITIES, 'adds IPC_LOCK, but the pod requests no RDMA or EFA device: the capability grants nothing NIXL can use. Request the device (Fabric.rdma(), Fabric.efa()) or drop IPC_LOCK');
      }
      for (const e of env) {
        // a variable of the whole graph is reported once, at the graph
        const at = e.place.field.startsWith('spec.') ? undefined : s;
        f.report('fabric-without-device', at, e.place, `configures an RDMA/EFA transport, but the pod requests no RDMA or EFA device: NIXL finds no device and fails. Request the device (Fabric.rdma(), Fabric.efa()) or remove ${e.name}`);
      }
    }
  }

  // mocker workers simulate engines and move no KV cache
  const pool = workers(g).filter((w) => w.engine !== 'mocker');
  if (isDisaggregated(g) && pool.some((w) => w.role === 'prefill') && pool.some((w) => w.role === 'decode')) {
    const prefill = pool.filter((w) => w.role === 'prefill');
    const decode = pool.filter((w) => w.role === 'decode');
    const reference = prefill[0];
    const fabric = fabricOf(reference);
    for (const w of [...prefill.slice(1), ...decode]) {
      if (fabricOf(w) !== fabric) {
        f.report('fabric-mismatch', w, FABRIC, `runs over ${fabricOf(w).toUpperCase()}, but ${reference.name} over ${fabric.toUpperCase()}; KV cache moves between them, so both need the same fabric`);
      }
    }
    const kinds = new Set([...prefill, ...decode].map(fabricOf));
    if (kinds.size === 1 && kinds.has('tcp')) {
      f.report(
        'disaggregated-tcp',
        undefined,
        { field: 'spec.services', option: 'graph:fabric' },
        'has no RDMA or EFA on a disaggregated graph: KV cache transfer falls back to TCP, TTFT ~40x worse (guide 2: ~400 ms -> 10+ s). Use Fabric.rdma() or Fabric.efa() (an RDMA/EFA device request, IPC_LOCK and the transport environment on prefill and decode)',
      );
    }
    if (kinds.size === 1 && kinds.has('efa')) {
      for (const w of [...prefill, ...decode]) {
        if (shmTransferOff(w) || separatedByAntiAffinity(w)) continue;
        f.report(
          'efa-shm-transfer',
          w,
          { field: 'envs[FI_EFA_ENABLE_SHM_TRANSFER]', option: 'graph:fabric.shmTransfer' },
          "is not 0: a prefill and a decode worker on the same node hand KV cache to libfabric's shm provider, which falls back to copies through host memory, ~9x slower (guide 4). Set FI_EFA_ENABLE_SHM_TRANSFER=0 (Fabric.efa() does unless shmTransfer), keep prefill and decode on different nodes, or use NIXL 1.4.0 or later",
        );
      }
    }
  } else {
    const aggregated = pool.filter((w) => w.role === 'aggregated');
    if (aggregated.length > 0 && aggregated.every((w) => w.spec.multinode === undefined)) {
      for (const w of aggregated.filter((x) => fabricOf(x) !== 'tcp')) {
        f.report(
          'fabric-unused',
          w,
          FABRIC,
          `requests ${devices(w).map((x) => x.name).join(', ')}, but an aggregated single-node worker transfers no KV cache: the device request and IPC_LOCK only reserve capacity. Use Fabric.tcp() (no device)`,
        );
      }
    }
  }
}
