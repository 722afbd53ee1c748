/**
 * Every rule the library and `dynamo-constructs lint` check, by id. A rule has
 * one severity: errors stop synthesis (and fail lint); warnings are reported
 * and become errors in strict mode.
 */

export type Severity = 'error' | 'warning';

export interface RuleInfo {
  readonly severity: Severity;
  /** What the rule catches, in a few words. */
  readonly catches: string;
  /** How to fix what it finds. */
  readonly fix: string;
}

export const RULES = {
  // Options and values
  'required': { severity: 'error', catches: 'a required option or field is missing', fix: 'set it; the message gives an example' },
  'unknown-option': { severity: 'error', catches: 'an option the library does not know (usually a typo)', fix: 'use one of the options the message lists' },
  'value-type': { severity: 'error', catches: 'a value of the wrong type', fix: 'give the type the message names' },
  'value-range': {
    severity: 'error',
    catches: 'a number out of range: replicas < 0, GPUs, TP or PP < 1, thresholds outside [0, 1], a negative temperature, a block size the engine refuses',
    fix: 'use a value in the range the message gives',
  },
  'value-format': { severity: 'error', catches: 'a string in the wrong format (URL, duration, resource name, empty argument)', fix: 'use the format the message gives' },
  'quantity-format': { severity: 'error', catches: 'a Kubernetes quantity that does not parse', fix: 'write it like "16Gi", "100Gi" or "500m"' },
  'option-conflict': { severity: 'error', catches: 'options that contradict each other, or an extra flag that repeats one the library renders', fix: 'keep one of them; set the option rather than the raw flag' },
  'name-format': { severity: 'error', catches: 'a name the API server or the operator refuses (graph, service, claim, namespace)', fix: 'lowercase DNS label for objects; a letter followed by letters, digits and "-" for services' },
  'name-length': { severity: 'error', catches: 'graph name + service name longer than the 45 characters Grove allows in pod names', fix: 'shorten the graph or the service name' },
  'duplicate-service': { severity: 'error', catches: 'two services with one name', fix: 'give each service its own serviceName' },
  'too-many-services': { severity: 'error', catches: 'more than 25 services in one graph (CRD limit)', fix: 'split the graph' },
  'graph-structure': {
    severity: 'error',
    catches: 'a graph without workers, aggregated workers mixed with prefill/decode ones, prefill without decode (or the reverse), two frontends or two planners, a planner in an aggregated graph',
    fix: 'one frontend, and either aggregated workers or a prefill and a decode pool',
  },
  'role-flags': {
    severity: 'error',
    catches: 'a worker whose role flags (--is-prefill-worker, --disaggregation-mode) contradict its subComponentType (v1beta1: its type)',
    fix: 'make the flag and the component type name the same role',
  },
  'block-size-mismatch': { severity: 'error', catches: 'workers with different KV block sizes, or a KV router announcing a block size the workers do not use', fix: 'use one block size for every worker and the router' },
  'kv-dtype-mismatch': { severity: 'error', catches: 'prefill and decode workers with different KV cache dtypes', fix: 'use one kvCacheDtype (--kv-cache-dtype) for both' },
  'parallelism-gpus': {
    severity: 'error',
    catches: 'tensor x pipeline (x data) parallel ranks different from the GPUs of an engine: more cannot start, fewer leave GPUs idle',
    fix: 'give the worker tensorParallelSize x pipelineParallelSize GPUs, or raise the parallelism to the GPUs it has',
  },
  'tensor-parallel-heads': {
    severity: 'error',
    catches: "a tensor parallel size that does not divide the model's attention heads (models whose config the library knows), which the engine refuses",
    fix: 'use a tensor parallel size that divides the heads; the message lists them',
  },
  'ambiguous-flag': {
    severity: 'error',
    catches: "a worker flag the engine's parser refuses as an abbreviation of several of its flags (SGLang's --pp); unambiguous abbreviations (--tp) are read as the flag they stand for",
    fix: 'write the flag in full',
  },
  'multinode-gpus': { severity: 'error', catches: 'a multinode worker whose node count does not fit its GPUs (uneven split, or an engine that fits on one node)', fix: 'make nodeCount divide the GPUs, or drop nodeCount' },
  'rdma-without-ipc-lock': { severity: 'error', catches: 'an RDMA or EFA device request without the IPC_LOCK capability (NIXL cannot register memory)', fix: 'add IPC_LOCK to the main container (Fabric.rdma() and Fabric.efa() do)' },
  'fabric-without-device': { severity: 'error', catches: 'IPC_LOCK, RDMA UCX transports or EFA libfabric settings on a pod without an RDMA/EFA device request', fix: 'request the device (Fabric.rdma(), Fabric.efa()), or remove the capability and the environment' },
  'fabric-mismatch': { severity: 'error', catches: 'prefill and decode workers on different fabrics (RDMA, EFA, TCP)', fix: 'give both the same fabric' },
  'duplicate-env': { severity: 'error', catches: 'one environment variable listed twice in the same list (the webhook refuses it)', fix: 'keep one entry' },
  'literal-secret': {
    severity: 'error',
    catches:
      "a credential written into a manifest or an option: a token shape (hf_, nvapi-, sk-, AKIA/ASIA, ghp_/github_pat_, xox?-, a JWT, a PEM private key), a URL with a password or a token in its query, or a literal value under a credential's name (*_PASSWORD, *_TOKEN, *_SECRET, *_API_KEY...), in env, args, engine and planner configs, labels, annotations, ConfigMap data, chart values, URLs or model names",
    fix: 'keep it in a Secret and reference it: hfTokenSecret / envFromSecret or EnvValue.fromSecret(name, key) (secretKeyRef), $(VAR) in arguments, a Secret volume; credentials out of URLs and labels',
  },
  'privileged-container': {
    severity: 'error',
    catches: 'a privileged container (securityContext.privileged, or the nvidia.com/enable-container-privileged annotation) in a pod without an RDMA/EFA fabric: every device and capability of the node',
    fix: 'remove privileged; nothing Dynamo runs needs it',
  },
  'host-namespace': {
    severity: 'error',
    catches: "a pod that shares the node's processes (hostPID), or its network or IPC namespace (hostNetwork, hostIPC) without an RDMA/EFA fabric",
    fix: "remove hostPID, hostNetwork and hostIPC; the operator's Services connect the pods",
  },
  'added-capability': {
    severity: 'error',
    catches: 'a capability added beyond IPC_LOCK and NET_BIND_SERVICE (SYS_ADMIN, SYS_PTRACE, NET_ADMIN, ALL...), or the nvidia.com/enable-container-ptrace annotation',
    fix: 'remove it; NIXL needs only IPC_LOCK, with an RDMA/EFA device',
  },
  'host-path-system': {
    severity: 'error',
    catches: "a hostPath volume of the node's root, system directories, kubelet or container runtime state, or a socket (/, /etc, /proc, /var/run/docker.sock...): control of the node",
    fix: 'remove the volume',
  },
  'planner-budget': { severity: 'error', catches: "a planner GPU budget below what the graph needs at the planner's minimum or starts with", fix: 'raise maxGpuBudget (--max-gpu-budget), or start with fewer replicas' },
  'pvc-reference': { severity: 'error', catches: 'a volume mount naming a claim the graph does not list in spec.pvcs (v1alpha1)', fix: 'add the claim to spec.pvcs, or fix the mount name' },
  'image-unavailable': { severity: 'error', catches: 'a default image that does not exist for this release and CUDA variant', fix: 'pick another CUDA variant or release, or pass image' },
  'aic-unsupported': { severity: 'error', catches: 'an AIConfigurator system, backend or version without support data', fix: 'use a combination the message lists, or profile without aiConfigurator' },
  'unknown-version': { severity: 'error', catches: 'a Dynamo release the library has no table for', fix: 'use a release the message lists (dynamoVersion)' },
  'unsupported-on-release': {
    severity: 'error',
    catches: 'an option, flag, variable or field the Dynamo release in use does not have: removed, renamed, no longer read, or not there yet',
    fix: 'use what the message names for that release, or another release',
  },
  'sla-drift': { severity: 'error', catches: "alerts with SLA targets different from the ones the deployment is planned for", fix: 'leave sla out so alerts follow the planned SLA' },
  'server-rejected': {
    severity: 'error',
    catches: 'an object the API server refuses on a dry-run server-side apply with strict field validation (lint --server)',
    fix: "fix what the server's message names",
  },
  'server-not-sent': {
    severity: 'error',
    catches: "a document lint --server does not send: its apiVersion, kind, namespace or name is outside Kubernetes' grammar and would change the request path",
    fix: 'write apiVersion as <group>/<version>, kind as a letter followed by letters and digits, the namespace as a DNS label and the name as a DNS subdomain',
  },
  'file-not-read': {
    severity: 'error',
    catches: 'a path lint was given or found that it does not read: not a regular file (FIFO, socket, device, directory), a dangling or looping link, a link out of the directory given, a file over the size limit, or a read error',
    fix: 'lint regular files inside the directory; raise --max-file-size; fix the permission',
  },
  'crd-schema': { severity: 'error', catches: 'a DynamoGraphDeployment or DynamoGraphDeploymentRequest the CRD schema refuses', fix: 'fix the field the message names' },
  'kubernetes-schema': { severity: 'error', catches: 'a core Kubernetes object that does not validate', fix: 'fix the field the message names' },
  'yaml-syntax': { severity: 'error', catches: 'a file that is not valid YAML, or a document that is not a Kubernetes object', fix: 'fix the YAML at the position given' },

  // Warnings: legal, probably wrong
  'deprecated': {
    severity: 'warning',
    catches: 'an option, flag or API version the Dynamo release in use deprecates, or accepts and ignores',
    fix: 'move to the replacement the message names',
  },
  'disaggregated-tcp': { severity: 'warning', catches: 'disaggregated serving without RDMA or EFA: KV cache over TCP, TTFT ~40x worse (guide 2)', fix: 'Fabric.rdma() or Fabric.efa()' },
  'efa-shm-transfer': {
    severity: 'warning',
    catches: "EFA with libfabric's shm transfer on: a prefill and a decode worker on one node copy KV cache through host memory, ~9x slower (guide 4)",
    fix: 'FI_EFA_ENABLE_SHM_TRANSFER=0 (Fabric.efa() default), or keep prefill and decode on different nodes',
  },
  'fabric-unused': { severity: 'warning', catches: 'an RDMA/EFA fabric on aggregated single-node workers, which transfer no KV cache', fix: 'Fabric.tcp(), or drop the device request' },
  'fabric-host-access': {
    severity: 'warning',
    catches: "an RDMA/EFA worker that is privileged or shares the node's network or IPC namespace, as older RoCE examples and AIConfigurator's EFA manifests do",
    fix: 'request the device with IPC_LOCK (Fabric.rdma(), Fabric.efa()) instead of privileged; for RoCE, attach the RDMA NIC as a secondary network (SR-IOV, macvlan) instead of hostNetwork',
  },
  'host-path': {
    severity: 'warning',
    catches: "a hostPath volume: the pod reads and writes the node's files, outside any claim",
    fix: 'use a PersistentVolumeClaim (ModelCache) or an emptyDir',
  },
  'privilege-escalation': {
    severity: 'warning',
    catches: "allowPrivilegeEscalation: true: setuid binaries and file capabilities can raise a process's privileges",
    fix: "set it to false, as the library does; Dynamo's images run as a non-root user and need no escalation",
  },
  'update-strategy-unset': {
    severity: 'warning',
    catches: "a graph for Dynamo 1.6 or later without the nvidia.com/grove-update-strategy annotation, checked for an upgrade or disaggregated: the release notes (Coherent for prefill and decode) and the API docs (RollingRecreate) disagree on the rollout it gets",
    fix: 'set the annotation to RollingRecreate, Coherent (Grove alpha.14 or later) or OnDelete; updateStrategy writes it',
  },
  'auto-apply-unset': {
    severity: 'warning',
    catches: 'a 1.x DynamoGraphDeploymentRequest without autoApply: the v1beta1 CRD defaults it to true, so the graph the profiler picks is deployed, GPUs and all, as soon as profiling ends',
    fix: 'write autoApply: false to review the choice in status first, or autoApply: true to deploy it unreviewed (the library always writes it)',
  },
  'small-model-disaggregated': { severity: 'warning', catches: 'a model under 10B parameters served disaggregated; guide 2 measures aggregated serving faster for it', fix: 'serve it with AggregatedDeployment' },
  'rwx-without-storage-class': { severity: 'warning', catches: 'a ReadWriteMany model cache claim without storageClassName, which stays Pending unless the default class supports RWX', fix: 'set storageClassName to an RWX class (NFS, CephFS, EFS...)' },
  'planner-replicas': { severity: 'warning', catches: 'replicas set on a worker pool the planner scales; every apply resets the planner', fix: 'leave replicas out' },
  'no-frontend': { severity: 'warning', catches: 'workers without a frontend: nothing serves the OpenAI API', fix: 'add a Frontend' },
  'kv-events-missing': {
    severity: 'warning',
    catches: 'a KV router that expects KV cache events from workers that publish none: it routes on load alone',
    fix: "publish events (vLLM and SGLang --kv-events-config; TensorRT-LLM --publish-kv-events, 0.x --publish-events-and-metrics), or Router.kv({ kvEvents: false })",
  },
  'router-replica-sync': { severity: 'warning', catches: 'several KV router replicas without replica sync: each sees only its own requests', fix: 'Router.kv({ replicaSync: true }), or one frontend replica' },
  'frontend-port': { severity: 'warning', catches: "a frontend port the operator's Service and probes do not use", fix: 'keep port 8000' },
  'webhook-disabled': { severity: 'warning', catches: "the operator's validating webhook turned off: invalid graphs fail at reconcile, not at apply", fix: 'leave the webhook on' },
  'prometheus-podmonitors': { severity: 'warning', catches: 'a Prometheus stack that selects only its own PodMonitors: Dynamo metrics are never scraped', fix: 'keep podMonitorSelectorNilUsesHelmValues false' },
  'planner-scrape-window': {
    severity: 'warning',
    catches: "a planner whose adjustment interval (the window of its increase(...[W]) queries) is under twice the scrape interval of a PodMonitor of its frontend: a window with fewer than two samples is often empty, and the planner skips its decision",
    fix: 'scrape the frontend at most every half adjustment interval (the library does), or raise the adjustment interval',
  },
  'planner-namespace-label': {
    severity: 'warning',
    catches: 'PodMonitors that scrape the frontend of a 1.x planned graph without adding a dynamo_namespace label: the planner keeps only series labelled with its DYN_NAMESPACE and sees no metrics',
    fix: "relabel __meta_kubernetes_pod_label_nvidia_com_dynamo_namespace to dynamo_namespace, with honorLabels: true, as Dynamo's platform chart does (the library does)",
  },
  'podmonitor-worker-types': {
    severity: 'warning',
    catches: "PodMonitors that scrape some of a graph's worker pools but not the others: a selector of component type worker misses the 1.x pods of type prefill and decode",
    fix: 'select the component types worker, prefill and decode (the library does on 1.x)',
  },
} as const satisfies Record<string, RuleInfo>;

export type RuleId = keyof typeof RULES;
export type ErrorRuleId = { [K in RuleId]: (typeof RULES)[K]['severity'] extends 'error' ? K : never }[RuleId];
export type WarningRuleId = { [K in RuleId]: (typeof RULES)[K]['severity'] extends 'warning' ? K : never }[RuleId];

export function severityOf(rule: string): Severity | undefined {
  return (RULES as Record<string, RuleInfo>)[rule]?.severity;
}
