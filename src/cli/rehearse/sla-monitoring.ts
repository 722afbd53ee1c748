import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import * as zlib from 'zlib';
import * as YAML from 'yaml';
import { RehearsalError } from './plan';
import { Sandbox } from './sandbox';
import { KubeClient } from '../kube-client';
import { printable } from '../text';

/**
 * The monitoring of an SLA rehearsal: the real prometheus-operator renders the scrape and rule
 * configuration of the manifests' PodMonitors and PrometheusRules for a Prometheus like the one
 * kube-prometheus-stack creates, and a real Prometheus runs it. Only what exists because
 * Prometheus runs outside a cluster changes (see `localPrometheusConfig`).
 */

/** Off the ports Dynamo's processes bind on every address (the planner's live dashboard takes 8080). */
export const OPERATOR_PORT = 8479;
export const PROMETHEUS_PORT = 9090;
export const PROMETHEUS_URL = `http://127.0.0.1:${PROMETHEUS_PORT}`;

/** The Prometheus a kube-prometheus-stack release creates, with guide 1's selector settings. */
export interface StackPrometheus {
  /** Helm release name of the stack: its rule selector's `release` label. */
  readonly release: string;
  readonly namespace: string;
}

/** The Prometheus object kube-prometheus-stack's chart renders for a release (guide 1's `--set` values applied). */
export function prometheusObject(p: StackPrometheus): Record<string, unknown> {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'Prometheus',
    metadata: { name: `${p.release}-kube-prometheus-prometheus`, namespace: p.namespace, labels: { release: p.release } },
    spec: {
      replicas: 1,
      // guide 1: podMonitorSelectorNilUsesHelmValues=false (and the same for service monitors): every monitor
      podMonitorSelector: {},
      podMonitorNamespaceSelector: {},
      serviceMonitorSelector: {},
      serviceMonitorNamespaceSelector: {},
      // the chart's default: rules labelled with the release
      ruleSelector: { matchLabels: { release: p.release } },
      ruleNamespaceSelector: {},
      enableAdminAPI: false,
      // the operator's defaults, written out: what the timeline and the alerts' windows rest on
      scrapeInterval: '30s',
      evaluationInterval: '30s',
    },
  };
}

/** The name of the config Secret the operator writes for a Prometheus object. */
const configSecretName = (p: StackPrometheus) => `prometheus-${p.release}-kube-prometheus-prometheus`;
const ruleConfigMapPrefix = (p: StackPrometheus) => `prometheus-${p.release}-kube-prometheus-prometheus-rulefiles-`;

/**
 * The operator's configuration, made runnable by a Prometheus outside the cluster, with the
 * edits the in-cluster config-reloader makes or that running outside needs, and no other:
 * `$(POD_NAME)` and `$(SHARD)` substituted (left as is, the shard's keep rule drops every
 * target), the rule files read from `rulesDir`, and each Kubernetes service discovery given the
 * rehearsal's kubeconfig (the generated config relies on in-cluster credentials).
 */
export function localPrometheusConfig(generated: string, o: { podName: string; rulesDir: string; kubeconfig: string }): string {
  const doc = YAML.parse(generated) as Record<string, any>;
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(/\$\(POD_NAME\)/g, o.podName).replace(/\$\(SHARD\)/g, '0');
    if (Array.isArray(v)) return v.map(visit);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        out[k] = k === 'kubernetes_sd_configs' && Array.isArray(x) ? x.map((sd) => ({ ...(visit(sd) as object), kubeconfig_file: o.kubeconfig })) : visit(x);
      }
      return out;
    }
    return v;
  };
  const edited = visit(doc) as Record<string, unknown>;
  if (Array.isArray(doc.rule_files)) edited.rule_files = [path.join(o.rulesDir, '*.yaml')];
  return YAML.stringify(edited);
}

/** A GET on the local Prometheus (through the rehearsal's forwarded socket). */
export function promGet(socketPath: string, urlPath: string, timeoutMs = 10_000): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: urlPath, method: 'GET', headers: { Host: `127.0.0.1:${PROMETHEUS_PORT}` }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // kept as text
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${urlPath}: no answer in ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}

/** One instant query: its vector (empty when there is none). */
export async function promQuery(socketPath: string, expr: string): Promise<{ metric: Record<string, string>; value: number }[]> {
  const r = await promGet(socketPath, `/api/v1/query?${new URLSearchParams({ query: expr })}`);
  if (r.status !== 200 || r.body?.status !== 'success') {
    throw new RehearsalError(`Prometheus refused the query ${printable(expr)}: ${printable(String(r.body?.error ?? r.status))}`);
  }
  const result = r.body.data?.result;
  if (r.body.data?.resultType === 'scalar') return [{ metric: {}, value: Number(result[1]) }];
  return Array.isArray(result) ? result.map((s: any) => ({ metric: s.metric ?? {}, value: Number(s.value?.[1]) })) : [];
}

export interface LocalMonitoring {
  readonly socketPath: string;
  /** The configuration Prometheus runs (after the edits), for the record. */
  readonly configFile: string;
}

/**
 * Applies the Prometheus object, starts the operator and waits for its config Secret and rule
 * ConfigMaps, writes them for a local Prometheus, starts it and waits for it to be ready.
 */
export async function startMonitoring(
  box: Sandbox,
  client: KubeClient,
  bins: { 'prometheus-operator': string; prometheus: string },
  o: { dir: string; kubeconfig: string; stack: StackPrometheus; timeoutMs: number },
  start: (name: string, argv: readonly string[], env?: Record<string, string>) => Promise<unknown>,
  check: () => void,
): Promise<LocalMonitoring> {
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const deadline = Date.now() + o.timeoutMs;
  const r = await client.apply(prometheusObject(o.stack) as any, { dryRun: false });
  if (r.status !== 200 && r.status !== 201) throw new RehearsalError(`the API server refused the Prometheus object: ${printable(String(r.body?.message ?? r.status))}`);
  await start('prometheus-operator', [bins['prometheus-operator'], `--web.listen-address=127.0.0.1:${OPERATOR_PORT}`, '--log-level=warn'], { KUBECONFIG: o.kubeconfig });
  // the operator renders the configuration into a Secret and the rules into ConfigMaps
  let generated: string | undefined;
  const secretPath = `/api/v1/namespaces/${o.stack.namespace}/secrets/${configSecretName(o.stack)}`;
  while (generated === undefined) {
    check();
    const s = await client.request('GET', secretPath).catch(() => undefined);
    const data = s?.status === 200 ? s.body?.data?.['prometheus.yaml.gz'] : undefined;
    if (typeof data === 'string' && data !== '') generated = zlib.gunzipSync(Buffer.from(data, 'base64')).toString('utf8');
    else if (Date.now() > deadline) throw new RehearsalError(`the prometheus-operator rendered no configuration (Secret ${configSecretName(o.stack)}) in ${o.timeoutMs / 1000} s`);
    else await pause(300);
  }
  const rulesDir = path.join(o.dir, 'rules');
  fs.mkdirSync(rulesDir, { recursive: true });
  const maps = await client.request('GET', `/api/v1/namespaces/${o.stack.namespace}/configmaps`);
  for (const cm of (maps.body?.items ?? []) as any[]) {
    if (typeof cm?.metadata?.name !== 'string' || !cm.metadata.name.startsWith(ruleConfigMapPrefix(o.stack))) continue;
    for (const [file, text] of Object.entries((cm.data ?? {}) as Record<string, string>)) {
      // the operator names rule files <namespace>-<rule>-<uid>.yaml; anything else is not written
      if (/^[A-Za-z0-9._-]+\.yaml$/.test(file)) fs.writeFileSync(path.join(rulesDir, `${cm.metadata.name}-${file}`), text);
    }
  }
  const configFile = path.join(o.dir, 'prometheus.yaml');
  fs.writeFileSync(configFile, localPrometheusConfig(generated, { podName: `prometheus-${o.stack.release}-kube-prometheus-prometheus-0`, rulesDir, kubeconfig: o.kubeconfig }));
  fs.writeFileSync(path.join(o.dir, 'prometheus.generated.yaml'), generated);
  await start('prometheus', [
    bins.prometheus,
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${path.join(o.dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${PROMETHEUS_PORT}`,
    '--web.enable-lifecycle',
    '--log.level=warn',
  ]);
  const socketPath = path.join(o.dir, 'prometheus.sock');
  await box.forward(socketPath, PROMETHEUS_PORT);
  for (;;) {
    check();
    const ready = await promGet(socketPath, '/-/ready', 2000).catch(() => undefined);
    if (ready?.status === 200) break;
    if (Date.now() > deadline) throw new RehearsalError(`Prometheus was not ready in ${o.timeoutMs / 1000} s`);
    await pause(300);
  }
  return { socketPath, configFile };
}
