/**
 * The Pulumi examples, run by the real Pulumi engine and Kubernetes provider against the test
 * cluster: up, preview (no changes), an update in place, destroy (nothing left).
 *
 * The program runs inline through Pulumi's Automation API: the CLI is given `--client` and talks
 * to a language server in this process, so no Node.js language host is needed (its Go module is
 * not on the proxy). The provider is the v4.25.0 code the proxy serves, registered as the plugin
 * version the npm SDK (4.34.x) asks for; the README records the skew.
 */
import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { EngineEvent, LocalWorkspace, PulumiCommand, Stack } from '@pulumi/pulumi/automation';
import { Chart, Testing } from 'cdk8s';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeClient } from '../../src/cli/kube-client';
import { Backend, DisaggregatedDeployment, Fabric } from '../../src/pulumi';
import * as cdk8s from '../../src/cdk8s';
import { EXAMPLES } from '../../examples';
import { TWINS } from '../../examples/pulumi/twins';
import { applyAll, lostFields, refOf } from './apply';
import { BIN, CACHE, Cluster } from './cluster';

type Obj = Record<string, any>;
const log = (line: string) => process.stderr.write(`cluster: pulumi: ${line}\n`);

/** The twins that run against the test cluster: every v1beta1 workload example. The cluster-infra
 * example installs Helm charts from remote repositories (unreachable offline); aggregated-kv-router
 * is pinned to 0.9.0 (v1alpha1), which the 1.x CRDs serve only through the operator's webhook. */
const WORKLOADS = ['disaggregated-rdma', 'sglang-disaggregated', 'trtllm-disaggregated', 'planned-disaggregated', 'sla-planned'] as const;
const NAMESPACE = 'pulumi-workloads';
/** Kinds the program creates, to look for leftovers after destroy. */
const KINDS: [string, string][] = [
  ['nvidia.com/v1beta1', 'DynamoGraphDeployment'],
  ['nvidia.com/v1beta1', 'DynamoGraphDeploymentRequest'],
  ['v1', 'ConfigMap'],
  ['v1', 'PersistentVolumeClaim'],
  ['monitoring.coreos.com/v1', 'PodMonitor'],
  ['monitoring.coreos.com/v1', 'PrometheusRule'],
];

/** The deployment the update step changes. */
const UPDATABLE = { model: 'Qwen/Qwen3-32B', prefill: {}, decode: {} };

/** What cdk8s synthesizes for the same examples in the same namespace, and for the updatable deployment. */
function cdk8sObjects(decodeReplicas: number): Obj[] {
  const app = Testing.app();
  const out: Obj[] = [];
  for (const name of WORKLOADS) out.push(...Testing.synth(new EXAMPLES[name](app, name, NAMESPACE)));
  const chart = new Chart(app, 'updatable', { namespace: NAMESPACE });
  new cdk8s.DisaggregatedDeployment(chart, 'updatable', { ...UPDATABLE, backend: cdk8s.Backend.vllm(), fabric: cdk8s.Fabric.rdma(), decode: { replicas: decodeReplicas } });
  return [...out, ...Testing.synth(chart)];
}

export async function pulumiStep(cluster: Cluster, client: KubeClient, fail: (line: string) => void): Promise<string[]> {
  const home = join(cluster.dir, 'pulumi-home');
  const state = join(cluster.dir, 'pulumi-state');
  mkdirSync(home, { recursive: true });
  mkdirSync(state, { recursive: true });
  mkdirSync(join(cluster.dir, 'pulumi-project'), { recursive: true });
  const sdk = JSON.parse(readFileSync(require.resolve('@pulumi/kubernetes/package.json'), 'utf8')).version as string;
  const env: Record<string, string> = {
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: 'dynamo-constructs-test',
    PULUMI_SKIP_UPDATE_CHECK: 'true',
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
    PULUMI_IGNORE_AMBIENT_PLUGINS: 'true',
    KUBECONFIG: cluster.kubeconfig,
  };
  const installed = spawnSync(join(BIN, 'pulumi'), ['plugin', 'install', 'resource', 'kubernetes', sdk, '-f', join(BIN, 'pulumi-resource-kubernetes')], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (installed.status !== 0) throw new Error(`pulumi plugin install failed: ${installed.stderr}`);
  await applyAll(client, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'monitoring' } }], { dryRun: false });

  let decodeReplicas = 2;
  const program = async () => {
    // nothing runs in the test cluster: no provisioner binds a claim, no operator reports a graph
    // ready, so the provider is told not to wait for readiness (objects are still created and checked)
    pulumi.runtime.registerResourceTransform((args) => {
      if (!args.type.startsWith('kubernetes:') || args.type.startsWith('kubernetes:helm')) return undefined;
      const props = args.props as { metadata?: { annotations?: Record<string, string> } };
      return { props: { ...props, metadata: { ...props.metadata, annotations: { ...props.metadata?.annotations, 'pulumi.com/skipAwait': 'true' } } }, opts: args.opts };
    });
    const ns = new k8s.core.v1.Namespace(NAMESPACE, { metadata: { name: NAMESPACE } });
    for (const name of WORKLOADS) TWINS[name](NAMESPACE, { dependsOn: [ns] });
    new DisaggregatedDeployment('updatable', { ...UPDATABLE, namespace: NAMESPACE, backend: Backend.vllm(), fabric: Fabric.rdma(), decode: { replicas: decodeReplicas } }, { dependsOn: [ns] });
  };
  const pulumiCommand = await PulumiCommand.get({ root: CACHE, skipVersionCheck: true });
  const stack: Stack = await LocalWorkspace.createOrSelectStack(
    { projectName: 'dynamo-constructs-cluster', stackName: 'test', program },
    { pulumiCommand, envVars: env, workDir: join(cluster.dir, 'pulumi-project'), projectSettings: { name: 'dynamo-constructs-cluster', runtime: 'nodejs', backend: { url: `file://${state}` } } },
  );
  const lines: string[] = [];
  const steps = (events: EngineEvent[]) => events.map((e) => e.resourcePreEvent?.metadata).filter((m): m is NonNullable<typeof m> => m !== undefined);
  const timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const t = Date.now();
    const r = await fn();
    log(`${what} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    return r;
  };

  // up
  const up = await timed('up', () => stack.up({ onOutput: () => undefined }));
  const created = up.summary.resourceChanges?.create ?? 0;
  if (up.summary.result !== 'succeeded') fail(`pulumi up: ${up.summary.result}`);
  // what Pulumi created is what cdk8s synthesizes for the same programs
  const expected = cdk8sObjects(decodeReplicas);
  let same = 0;
  for (const o of expected) {
    const g = await client.get(o);
    if (g.status !== 200) fail(`pulumi up: ${refOf(o)}, which cdk8s synthesizes, is not in the cluster (${g.status})`);
    else {
      const lost = lostFields(o, g.body);
      if (lost.length > 0) fail(`pulumi up: ${refOf(o)} differs from the cdk8s object: ${lost.slice(0, 5).join('; ')}`);
      else same++;
    }
  }
  const inCluster = (await Promise.all(KINDS.map(([v, k]) => client.list(v, k, NAMESPACE)))).flat().filter((o) => o.metadata.name !== 'kube-root-ca.crt');
  const expectedRefs = new Set(expected.filter((o) => o.metadata.namespace === NAMESPACE).map(refOf));
  const extra = inCluster.map(refOf).filter((r) => !expectedRefs.has(r));
  if (extra.length > 0) fail(`pulumi up: objects cdk8s does not synthesize: ${extra.join(', ')}`);
  lines.push(`pulumi up: ${created} resources created; ${same}/${expected.length} objects in the cluster equal the cdk8s objects of the same examples${extra.length === 0 ? ', and no others' : ''}`);

  // preview: nothing to do
  const events: EngineEvent[] = [];
  const preview = await timed('preview', () => stack.preview({ onEvent: (e) => events.push(e), onOutput: () => undefined }));
  const changes = Object.entries(preview.changeSummary).filter(([op, n]) => op !== 'same' && n > 0);
  if (changes.length > 0) fail(`pulumi preview after up: ${JSON.stringify(preview.changeSummary)}, expected no changes; ${steps(events).filter((s) => s.op !== 'same').map((s) => `${s.op} ${s.urn} ${JSON.stringify(s.diffs)}`).join('; ')}`);
  lines.push(`pulumi preview: ${preview.changeSummary.same ?? 0} unchanged, ${changes.length === 0 ? 'no changes' : JSON.stringify(preview.changeSummary)}`);

  // update in place: decode replicas 2 -> 3
  decodeReplicas = 3;
  const updateEvents: EngineEvent[] = [];
  const update = await timed('update', () => stack.up({ onEvent: (e) => updateEvents.push(e), onOutput: () => undefined }));
  const changed = steps(updateEvents).filter((s) => s.op !== 'same');
  // the provider names the changed paths in detailedDiff (`spec.components[2].replicas`)
  const paths = (s: (typeof changed)[number]) => [...(s.diffs ?? []), ...Object.keys(s.detailedDiff ?? {})];
  const described = changed.map((s) => `${s.op} ${s.type} ${s.urn.split('::').pop()} ${JSON.stringify(paths(s))}`);
  const ok = changed.length === 1 && changed[0].op === 'update' && changed[0].type.endsWith(':DynamoGraphDeployment') && paths(changed[0]).some((p) => p.startsWith('spec'));
  if (!ok || update.summary.result !== 'succeeded') fail(`pulumi up with decode replicas 3: expected one in-place update of the DGD's spec, got ${described.join('; ') || 'nothing'}`);
  const dgd = await client.get({ apiVersion: 'nvidia.com/v1beta1', kind: 'DynamoGraphDeployment', metadata: { name: 'updatable', namespace: NAMESPACE } });
  const replicas = dgd.body?.spec?.components?.find((c: Obj) => c.name === 'VllmDecodeWorker')?.replicas;
  if (replicas !== 3) fail(`pulumi update: the stored decode replicas are ${replicas}, expected 3`);
  lines.push(`pulumi up, decode replicas 2 -> 3: ${described.join('; ')}; stored replicas ${replicas}`);

  // destroy: nothing left
  const destroy = await timed('destroy', () => stack.destroy({ onOutput: () => undefined }));
  const left = (await Promise.all(KINDS.map(([v, k]) => client.list(v, k, NAMESPACE)))).flat().filter((o) => o.metadata.name !== 'kube-root-ca.crt');
  const nsLeft = (await client.get({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })).status;
  if (destroy.summary.result !== 'succeeded' || left.length > 0) fail(`pulumi destroy: ${destroy.summary.result}, left ${left.map(refOf).join(', ')}`);
  lines.push(`pulumi destroy: ${destroy.summary.resourceChanges?.delete ?? 0} resources deleted, ${left.length} objects left (namespace ${nsLeft === 404 ? 'gone' : 'terminating'})`);
  await stack.workspace.removeStack('test');
  return lines;
}
