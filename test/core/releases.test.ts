import {
  aggregatedGraphSpec,
  Backend,
  checkGraphManifest,
  checkRequestManifest,
  disaggregatedGraphSpec,
  DynamoRelease,
  Fabric,
  LoadPredictor,
  releaseOf,
  RELEASES,
  renderGraph,
  renderSlaPlanned,
  Router,
  UPGRADE_LEDGER,
} from '../../src/core/internal';
import { lintSources } from '../../src/cli/lint/lint';
import { crdErrors, lintCrds } from '../support/crd';
import { fixtureObjects } from '../support/guides';
import { holes } from '../support/manifests';

/**
 * Every release line the versions table supports, rendered for every backend and
 * role: what each writes (API version, layout, flags), checked against the CRD of
 * that release and by the rules for that release.
 */

const LINES = Object.keys(RELEASES);
/** The release of each line the conformance suite installs (test/conformance/releases.json). */
const CURRENT: Record<string, string> = { '0.8': '0.8.1', '0.9': '0.9.0', '1.4': '1.4.2', '1.5': '1.5.1', '1.6': '1.6.1' };
const versionOf = (line: string) => CURRENT[line];

test('the table covers every release line', () => {
  expect(Object.keys(CURRENT)).toEqual(LINES);
});
const BACKENDS = [['vllm', () => Backend.vllm()], ['sglang', () => Backend.sglang()], ['trtllm', () => Backend.trtllm()]] as const;

function planned(line: string, backend: Backend) {
  return renderGraph(
    disaggregatedGraphSpec('llm', 'serving', {
      dynamoVersion: versionOf(line),
      model: 'meta-llama/Llama-3.3-70B-Instruct',
      backend,
      fabric: Fabric.rdma(),
      frontend: { router: Router.kv() },
      prefill: { tensorParallelSize: 2 },
      decode: { tensorParallelSize: 4 },
      planner: { ttftMs: 300, itlMs: 30, maxGpuBudget: 16, loadPredictor: LoadPredictor.constant() },
    }),
  );
}

function aggregated(line: string, backend: Backend) {
  return renderGraph(
    aggregatedGraphSpec('agg', 'serving', { dynamoVersion: versionOf(line), model: 'Qwen/Qwen3-32B', backend, frontend: { router: Router.kv() }, workers: { replicas: 2 } }),
  );
}

const components = (g: any): any[] => g.spec.components;
const main = (c: any) => c.podTemplate.spec.containers.find((x: any) => x.name === 'main');

describe.each(LINES.flatMap((line) => BACKENDS.map(([name, backend]) => [line, name, backend] as const)))('Dynamo %s, %s', (line, _name, backend) => {
  const release: DynamoRelease = RELEASES[line];
  const graphs = { planned: planned(line, backend()), aggregated: aggregated(line, backend()) };

  test.each(Object.keys(graphs) as (keyof typeof graphs)[])('the %s graph is written in the release\'s API version and valid against its CRD', (which) => {
    const r = graphs[which];
    expect(r.graph.apiVersion).toBe(release.apiVersion);
    expect(crdErrors(r.graph)).toEqual([]);
    expect(holes([r.graph, ...r.configMaps])).toEqual([]);
    expect(r.warnings.filter((w) => w.rule === 'deprecated' || w.rule === 'unsupported-on-release')).toEqual([]);
  });

  test.each(Object.keys(graphs) as (keyof typeof graphs)[])('the rules of the release find nothing in its own %s graph, read back from the manifest', (which) => {
    const r = graphs[which];
    const found = checkGraphManifest(r.graph, r.configMaps, { release });
    expect(found.filter((f) => f.severity === 'error')).toEqual([]);
    expect(found.filter((f) => f.rule === 'deprecated' || f.rule === 'kv-events-missing')).toEqual([]);
  });

  if (release.apiVersion === 'nvidia.com/v1beta1') {
    test('v1beta1: components with a main container on the release image; the planner owns prefill and decode through scaling adapters', () => {
      const g = graphs.planned.graph;
      expect(components(g).map((c) => c.type)).toEqual(['frontend', 'prefill', 'decode', 'planner']);
      for (const c of components(g)) expect(main(c).image).toMatch(new RegExp(`:${versionOf(line).replace(/\./g, '\\.')}$`));
      expect(components(g).map((c) => c.scalingAdapter)).toEqual([undefined, {}, {}, undefined]);
      expect(components(g).map((c) => c.replicas)).toEqual([1, undefined, undefined, 1]);
      expect(components(graphs.aggregated.graph).map((c) => c.scalingAdapter)).toEqual([undefined, undefined]);
      // Grove's update strategy is explicit where the release reads it
      expect(g.metadata.annotations?.['nvidia.com/grove-update-strategy']).toBe(release.updateStrategyAnnotation ? 'RollingRecreate' : undefined);
    });

    test('v1beta1: the planner runs dynamo.planner from its own image with its PlannerConfig mounted from a ConfigMap', () => {
      const r = graphs.planned;
      const planner = main(components(r.graph).find((c) => c.type === 'planner'));
      expect(planner.image).toBe(`nvcr.io/nvidia/ai-dynamo/dynamo-planner:${versionOf(line)}`);
      expect([...planner.command, ...planner.args]).toEqual(['python3', '-m', 'dynamo.planner', '--config', '/workspace/planner_config/planner_config.json']);
      const configMap = r.configMaps.find((c) => c.metadata.name === 'llm-planner-config')!;
      const config = JSON.parse((configMap as any).data['planner_config.json']);
      expect(config).toMatchObject({ environment: 'kubernetes', mode: 'disagg', optimization_target: 'sla', ttft_ms: 300, itl_ms: 30, max_gpu_budget: 16, load_predictor: 'constant' });
      expect(config.backend).toBe(_name);
    });
  } else {
    test('v1alpha1: services keyed by name; the planner runs planner_sla from the runtime image with flags', () => {
      const g = graphs.planned.graph as any;
      expect(Object.keys(g.spec.services)).toEqual(['Frontend', expect.any(String), expect.any(String), 'Planner']);
      const planner = g.spec.services.Planner.extraPodSpec.mainContainer;
      expect(planner.command).toEqual(['python3', '-m', 'planner_sla']);
      expect(planner.args).toContain('--max-gpu-budget=16');
      expect(graphs.planned.configMaps.filter((c) => c.metadata.name.endsWith('-planner-config'))).toEqual([]);
      expect(g.metadata.annotations).toBeUndefined();
    });
  }
});

describe('vLLM on 1.x', () => {
  const r = planned('1.6', Backend.vllm());
  const args = (type: string) => main(components(r.graph).find((c) => c.type === type)).args as string[];

  test('roles by --disaggregation-mode, KV transfer by --kv-transfer-config in the roles of Dynamo\'s own profiler', () => {
    expect(args('prefill')).toEqual(expect.arrayContaining(['--disaggregation-mode', 'prefill', '--kv-transfer-config', '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}']));
    expect(args('decode')).toEqual(expect.arrayContaining(['--disaggregation-mode', 'decode', '--kv-transfer-config', '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}']));
    expect([...args('prefill'), ...args('decode')].filter((a) => a.startsWith('--is-'))).toEqual([]);
  });

  test('KV events are opt-in: only the prefill workers the KV router routes to publish them', () => {
    const events = (type: string) => args(type)[args(type).indexOf('--kv-events-config') + 1];
    expect(JSON.parse(events('prefill'))).toEqual({ publisher: 'zmq', topic: 'kv-events', endpoint: 'tcp://*:5557', enable_kv_cache_events: true });
    expect(args('decode')).not.toContain('--kv-events-config');
  });

  test('the rules know 1.x publishes nothing without the config', () => {
    const g = JSON.parse(JSON.stringify(r.graph));
    const prefill = main(components(g).find((c: any) => c.type === 'prefill'));
    prefill.args.splice(prefill.args.indexOf('--kv-events-config'), 2);
    const found = checkGraphManifest(g, r.configMaps);
    expect(found.filter((f) => f.rule === 'kv-events-missing').map((f) => f.message)).toEqual([
      expect.stringContaining(`Dynamo 1.6.x publishes vLLM's events only when asked: add --kv-events-config '{"publisher":"zmq"`),
    ]);
    expect(found.find((f) => f.rule === 'kv-events-missing')!.message).toContain('--no-router-kv-events');
  });

  test('a prefill worker without --kv-transfer-config is an error: 1.x refuses to start it', () => {
    const g = JSON.parse(JSON.stringify(r.graph));
    const prefill = main(components(g).find((c: any) => c.type === 'prefill'));
    prefill.args.splice(prefill.args.indexOf('--kv-transfer-config'), 2);
    expect(checkGraphManifest(g, r.configMaps).filter((f) => f.rule === 'required').map((f) => `${f.service}.${f.field}`)).toEqual([
      'VllmPrefillWorker.podTemplate.spec.containers[main].args[--kv-transfer-config]',
    ]);
  });
});

describe('the planner\'s budget in a 1.x manifest is read from its mounted PlannerConfig', () => {
  const r = planned('1.6', Backend.vllm());
  const withBudget = (budget: number) => {
    const [config, ...rest] = JSON.parse(JSON.stringify(r.configMaps.filter((c) => c.metadata.name === 'llm-planner-config')));
    const doc = JSON.parse(config.data['planner_config.json']);
    config.data['planner_config.json'] = JSON.stringify({ ...doc, max_gpu_budget: budget });
    return checkGraphManifest(r.graph, [config, ...rest]);
  };

  test('a budget below the starting GPUs is found, pointed at the key in the ConfigMap', () => {
    expect(withBudget(16).filter((f) => f.rule === 'planner-budget')).toEqual([]);
    const found = withBudget(4).filter((f) => f.rule === 'planner-budget');
    expect(found.map((f) => f.field)).toEqual(['extraPodSpec.mainContainer.args[--config](ConfigMap llm-planner-config: planner_config.json).max_gpu_budget'.replace('extraPodSpec.mainContainer', 'podTemplate.spec.containers[main]')]);
  });

  test('without the ConfigMap among the objects, the budget is not judged', () => {
    expect(checkGraphManifest(r.graph, []).filter((f) => f.rule === 'planner-budget')).toEqual([]);
  });

  test('the library reports the same at the options', () => {
    expect(() =>
      renderGraph(
        disaggregatedGraphSpec('llm', 'serving', {
          model: 'm',
          backend: Backend.vllm(),
          fabric: Fabric.rdma(),
          prefill: { tensorParallelSize: 2 },
          decode: { tensorParallelSize: 4 },
          planner: { ttftMs: 300, itlMs: 30, maxGpuBudget: 4 },
        }),
      ),
    ).toThrow(/planner\.maxGpuBudget: .*\[planner-budget\]/);
  });
});

describe('the upgrade rules: a 0.9 manifest checked for the release it will run', () => {
  const guide2 = fixtureObjects('guide2-disaggregated.yaml', { $LLM_NAMESPACE: 'serving' });
  const graph = guide2.find((o) => o.kind === 'DynamoGraphDeployment');
  const at = (version: string) => checkGraphManifest(graph, guide2, { release: releaseOf(version) });
  const breaking = (version: string) => at(version).filter((f) => f.rule === 'unsupported-on-release' || f.rule === 'deprecated' || f.rule === 'required');

  test('on its own release (0.9) nothing breaks', () => {
    expect(breaking('0.9.0')).toEqual([]);
    expect(at('0.9.0').filter((f) => f.severity === 'error')).toEqual([]);
  });

  test('on 1.6 each flag and field that breaks is named, with its replacement', () => {
    const found = breaking('1.6.1').map((f) => `${f.rule} ${f.service ?? ''}.${f.field}: ${f.message}`);
    expect(found).toHaveLength(4);
    expect(found).toEqual(
      expect.arrayContaining([
        'required VLLMPrefillWorker.extraPodSpec.mainContainer.args[--kv-transfer-config]: is required for a prefill worker on Dynamo 1.6.x, e.g. --kv-transfer-config \'{"kv_connector":"NixlConnector","kv_role":"kv_producer"}\'',
        'unsupported-on-release VLLMPrefillWorker.extraPodSpec.mainContainer.args[--is-prefill-worker]: --is-prefill-worker is gone in Dynamo 1.6.x (since 1.4); use --disaggregation-mode prefill',
        'unsupported-on-release VLLMDecodeWorker.extraPodSpec.mainContainer.args[--is-decode-worker]: --is-decode-worker is gone in Dynamo 1.6.x (since 1.4); use --disaggregation-mode decode',
        expect.stringMatching(/^deprecated \.apiVersion: is nvidia.com\/v1alpha1, deprecated in Dynamo 1.6.x/),
      ]),
    );
  });

  test('lint --dynamo-version reports the same, and without it the manifest is judged by its images (0.9)', () => {
    const text = require('fs').readFileSync(require('path').resolve(__dirname, '../fixtures/guide2-disaggregated.yaml'), 'utf8').split('$LLM_NAMESPACE').join('serving');
    const lint = (release?: DynamoRelease) => lintSources([{ file: 'guide2.yaml', text }], { crds: lintCrds(), release }).findings.map((f) => f.rule);
    expect(lint().filter((r) => r === 'unsupported-on-release' || r === 'deprecated')).toEqual([]);
    expect(lint(releaseOf('1.6.1')).filter((r) => r === 'unsupported-on-release')).toHaveLength(2);
    expect(lint(releaseOf('1.6.1'))).toContain('deprecated');
  });

  test('removed router flags, variables and the 0.x planner module are each reported on 1.x', () => {
    const g = JSON.parse(JSON.stringify(graph));
    const frontend = g.spec.services.Frontend;
    frontend.extraPodSpec = { mainContainer: { command: ['python3', '-m', 'dynamo.frontend'], args: ['--router-mode', 'kv', '--router-ttl', '60', '--router-max-tree-size', '1024', '--kv-overlap-score-weight', '1.5'] } };
    frontend.envs = [{ name: 'DYN_KV_EVENTS', value: 'false' }];
    g.spec.services.Planner = { componentType: 'planner', extraPodSpec: { mainContainer: { command: ['python3', '-m', 'planner_sla'], args: ['--ttft=300'] } } };
    const found = checkGraphManifest(g, guide2, { release: releaseOf('1.6.1') }).filter((f) => f.rule === 'unsupported-on-release' || f.rule === 'deprecated');
    expect(found.map((f) => `${f.rule} ${f.service}.${f.field}`)).toEqual(
      expect.arrayContaining([
        'unsupported-on-release Frontend.extraPodSpec.mainContainer.args[--router-ttl]',
        'unsupported-on-release Frontend.extraPodSpec.mainContainer.args[--router-max-tree-size]',
        'deprecated Frontend.extraPodSpec.mainContainer.args[--kv-overlap-score-weight]',
        'unsupported-on-release Frontend.envs[DYN_KV_EVENTS]',
        'unsupported-on-release Planner.extraPodSpec.mainContainer.command',
      ]),
    );
    expect(found.find((f) => f.field.endsWith('[--kv-overlap-score-weight]'))!.message).toBe(
      '--kv-overlap-score-weight is deprecated in Dynamo 1.6.x (since 1.0); use --router-prefill-load-scale (itself deprecated: prefill_load_scale in the default policy parameters of --router-policy-config)',
    );
  });

  test('every ledger entry names modules, a change and a replacement; flags have a sample the conformance suite runs', () => {
    for (const e of UPGRADE_LEDGER) {
      expect(e.modules.length).toBeGreaterThan(0);
      expect([e.flag, e.env, e.module].filter((x) => x !== undefined)).toHaveLength(1);
      if (e.flag !== undefined) expect(e.sample?.[0]?.startsWith(e.flag)).toBe(true);
    }
  });
});

describe('the 1.x request (DGDR v1beta1)', () => {
  const request = (planner = {}) =>
    renderSlaPlanned('req', 'ns', { model: 'm', backend: Backend.sglang(), sla: { isl: 2000, osl: 100, ttftMs: 300, itlMs: 30 }, searchStrategy: 'rapid', planner }).object as any;

  test('valid against the 1.x CRD; the planner section is a PlannerConfig', () => {
    const r = request({ maxGpuBudget: 8, minEndpoint: 2 });
    expect(r.apiVersion).toBe('nvidia.com/v1beta1');
    expect(crdErrors(r)).toEqual([]);
    expect(r.spec.features.planner).toEqual({ backend: 'sglang', optimization_target: 'sla', max_gpu_budget: 8, min_endpoint: 2 });
    expect(checkRequestManifest(r)).toEqual([]);
  });

  test('its rules read the top-level fields', () => {
    const r = request({ maxGpuBudget: 8 });
    r.spec.workload.isl = 0;
    r.spec.features.planner.max_gpu_budget = 1;
    expect(checkRequestManifest(r).map((f) => `${f.rule} ${f.field}`)).toEqual(['value-range spec.workload.isl', 'planner-budget spec.features.planner.max_gpu_budget']);
  });

  test('a v1alpha1 request checked for 1.x is deprecated, naming what moves', () => {
    const old = fixtureObjects('guide1-dgdr.yaml')[0];
    expect(checkRequestManifest(old, { release: releaseOf('0.9.0') })).toEqual([]);
    expect(checkRequestManifest(old, { release: releaseOf('1.6.1') }).map((f) => f.rule)).toEqual(['deprecated']);
  });
});
