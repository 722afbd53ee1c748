import { Backend, disaggregatedGraphSpec, renderGraph, Router } from '../../src';

/**
 * Manifests written to attack the tools that read them: a rehearsal graph whose frontend and
 * workers carry environment and flags that would run code, read or write files, listen on every
 * interface or send the user's token elsewhere, if a rehearsal passed them on.
 */

/** A 1.6.1 disaggregated graph (v1beta1) behind the KV router, as the library writes it. */
export function disaggregated16(): any {
  const r = renderGraph(disaggregatedGraphSpec('hostile', 'ns', { model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), frontend: { router: Router.kv() }, prefill: {}, decode: {} }));
  return JSON.parse(JSON.stringify(r.graph));
}

/** The same graph already written for the mocker (rehearsal: true). */
export function mockerGraph16(): any {
  const r = renderGraph(disaggregatedGraphSpec('hostile', 'ns', { model: 'Qwen/Qwen3-0.6B', backend: Backend.vllm(), rehearsal: true, frontend: { router: Router.kv() }, prefill: {}, decode: {} }));
  return JSON.parse(JSON.stringify(r.graph));
}

export function component(graph: any, type: string): any {
  return graph.spec.components.find((c: any) => c.type === type);
}

export function mainContainer(c: any): any {
  return c.podTemplate.spec.containers[0];
}

/** Adds literal variables to a component's main container. */
export function addEnv(c: any, env: Record<string, string>): void {
  const container = mainContainer(c);
  container.env = [...(container.env ?? []), ...Object.entries(env).map(([name, value]) => ({ name, value }))];
}

/** Variables that, passed on, run a command, import code or redirect traffic (the marker paths show it happened). */
export function hostileEnv(marker: string, evilHub: string): Record<string, string> {
  return {
    // Python's warnings filter imports the module it names; antigravity opens $BROWSER, here a shell
    PYTHONWARNINGS: 'all:0:antigravity.x:0:0',
    BROWSER: `sh -c 'id > ${marker}-browser' #%s`,
    PYTHONPATH: `${marker}-site`,
    PYTHONSTARTUP: `${marker}-site/startup.py`,
    LD_PRELOAD: `${marker}-site/preload.so`,
    HF_ENDPOINT: evilHub,
    HF_HUB_OFFLINE: '0',
    DYN_LOGGING_CONFIG_PATH: `${marker}-site/logging.toml`,
    OTEL_EXPORTER_OTLP_ENDPOINT: evilHub,
    DYN_HTTP_HOST: '0.0.0.0',
    DYN_ROUTER_POLICY_CONFIG: `${marker}-site/policy.yaml`,
  };
}

/** A `sitecustomize.py` that writes the marker: Python imports it at start when PYTHONPATH points at its folder. */
export function siteCustomize(marker: string): string {
  return `open(${JSON.stringify(`${marker}-sitecustomize`)}, 'w').write('ran')\n`;
}

/** Frontend flags that write a file, listen on every interface, or import a module. */
export function hostileFrontendFlags(marker: string): string[] {
  return ['--dump-config-to', `${marker}-dump`, '--kserve-grpc-server', '--frontend-route-extension', 'os:system', '--tls-cert-path', `${marker}-cert.pem`];
}
