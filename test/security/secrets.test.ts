import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { EXAMPLES } from '../../examples';
import { lintSources } from '../../src/cli/lint/lint';
import { checkHelmValues, checkObjectManifest, Diagnostics } from '../../src/core/internal';
import {
  AggregatedDeployment,
  Backend,
  DisaggregatedDeployment,
  DynamoPlatform,
  DynamoValidationError,
  EnvValue,
  GrafanaDashboard,
  HelmInstall,
  PrometheusStack,
  SlaPlannedDeployment,
} from '../../src/cdk8s';
import { lintCrds } from '../support/crd';
import { readGuides } from '../support/guides';

/**
 * One secret detector for the constructs and `lint`: every credential shape,
 * in every place a string of a manifest can go, is a `literal-secret` error at
 * that place, whose message names the fix and never repeats the credential;
 * the library's examples and the upstream manifests give none.
 */

// ---------------------------------------------------------------------------
// The corpus. Fakes are assembled here, so that no credential-shaped literal
// sits in the repository.

const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

interface Credential {
  readonly id: string;
  /** The variable, flag or key it is set under; a neutral one when its shape gives it away. */
  readonly name: string;
  readonly value: string;
  /** The part of `value` no message may show. */
  readonly secret: string;
  /** What the finding says it is. */
  readonly what: RegExp;
}

const NEUTRAL = 'APP_SETTING';
/** A credential known by the name it is set under: the variable itself, or a flag or key inside a longer text. */
const BY_NAME = /^(is a credential written as a literal value|sets \S+ to a literal value, a credential in plain text); /;

function shape(id: string, value: string, what: RegExp, secret = value): Credential {
  return { id, name: NEUTRAL, value, secret, what };
}

const CREDENTIALS: readonly Credential[] = [
  shape('hugging face', `hf_${'FakeToken'.repeat(4)}`, /holds a Hugging Face token/),
  shape('nvidia', `nvapi-${'Fake-Key_0'.repeat(4)}`, /holds an NVIDIA API key/),
  shape('openai', `sk-${'FakeKey0'.repeat(6)}`, /holds an OpenAI-style API key/),
  shape('openai project', `sk-proj-${'Fake_Key-0'.repeat(8)}`, /holds an OpenAI-style API key/),
  shape('aws access key id', `AKIA${'FAKE0FAKE0FAKE00'}`, /holds an AWS access key id/),
  shape('github', `ghp_${'FakeGitHub0'.repeat(4)}`, /holds a GitHub token/),
  shape('github fine-grained', `github_pat_${'Fake_Pat0'.repeat(9)}`, /holds a GitHub token/),
  shape('slack', ['xoxb', '1234567890', '0987654321', 'FakeSlackToken'].join('-'), /holds a Slack token/),
  shape('jwt', `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: 'fake' })}.${'FakeSignature0'.repeat(3)}`, /holds a JSON Web Token/),
  shape('pem', `${['-----BEGIN', 'PRIVATE', 'KEY-----'].join(' ')}\nMIIFakeFakeFake\n-----END PRIVATE KEY-----`, /holds a PEM private key/, 'MIIFakeFakeFake'),
  shape('url userinfo', `postgres://app:${'Fake-pass-0'}@db.example:5432/app`, /holds a URL with a password \(postgres:\/\/…@db\.example:5432\)/, 'Fake-pass-0'),
  shape('https userinfo', `https://admin:${'Fake-pass-1'}@prometheus.example:9090`, /holds a URL with a password \(https:\/\/…@prometheus\.example:9090\)/, 'Fake-pass-1'),
  shape('url query', `https://metrics.example:9090/api?token=${'FakeQuery0'}`, /holds a URL with a credential in its query/, 'FakeQuery0'),
  { id: 'aws secret access key', name: 'AWS_SECRET_ACCESS_KEY', value: 'Fake/Fake+Fake0'.repeat(3).slice(0, 40), secret: 'Fake/Fake+Fake0'.repeat(3).slice(0, 40), what: /holds an AWS secret access key/ },
  { id: 'password by name', name: 'DB_PASSWORD', value: 'Fake-pass-0', secret: 'Fake-pass-0', what: BY_NAME },
  { id: 'api key by name', name: 'INFERENCE_API_KEY', value: 'FakeApiKey0', secret: 'FakeApiKey0', what: BY_NAME },
];

/** A harmless value in the same places: nothing is reported. */
const CLEAN: Credential = { id: 'clean', name: NEUTRAL, value: 'plain-setting-1', secret: 'plain-setting-1', what: /$^/ };

/** `APP_SETTING` as a flag: `--app-setting`. */
const flagOf = (name: string) => `--${name.toLowerCase().replace(/_/g, '-')}`;

/** No 8-character stretch of the credential shows in a message. */
function leaks(message: string, secret: string): boolean {
  for (let i = 0; i + 8 <= secret.length; i++) if (message.includes(secret.slice(i, i + 8))) return true;
  return false;
}

// ---------------------------------------------------------------------------
// lint: every place of every kind of object

type Obj = Record<string, any>;

const IMAGE = 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0';

function container(extra: Obj = {}): Obj {
  return { image: IMAGE, command: ['python3', '-m', 'dynamo.vllm'], args: ['--model', 'Qwen/Qwen3-0.6B'], ...extra };
}

/** Aggregated vLLM, the v1alpha1 layout; `edit` changes the worker or the graph. */
function graph(edit: (g: Obj, worker: Obj) => void): Obj {
  const g: Obj = {
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeployment',
    metadata: { name: 'agg' },
    spec: {
      backendFramework: 'vllm',
      services: {
        Frontend: { componentType: 'frontend', replicas: 1, extraPodSpec: { mainContainer: { image: IMAGE, command: ['python3', '-m', 'dynamo.frontend'] } } },
        VllmWorker: { componentType: 'worker', envFromSecret: 'hf-token-secret', replicas: 1, resources: { limits: { gpu: '1' } }, extraPodSpec: { mainContainer: container() } },
      },
    },
  };
  edit(g, g.spec.services.VllmWorker);
  return g;
}

/** The same graph in the 1.x layout. */
function graphV1beta1(edit: (g: Obj, worker: Obj) => void): Obj {
  const worker: Obj = {
    name: 'VllmWorker',
    type: 'worker',
    replicas: 1,
    podTemplate: { spec: { containers: [{ name: 'main', ...container({ image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.1' }), resources: { limits: { 'nvidia.com/gpu': '1' } } }] } },
  };
  const g: Obj = {
    apiVersion: 'nvidia.com/v1beta1',
    kind: 'DynamoGraphDeployment',
    metadata: { name: 'agg' },
    spec: { backendFramework: 'vllm', components: [{ name: 'Frontend', type: 'frontend', podTemplate: { spec: { containers: [{ name: 'main', image: IMAGE, command: ['python3', '-m', 'dynamo.frontend'] }] } } }, worker] },
  };
  edit(g, worker);
  return g;
}

/** Aggregated TensorRT-LLM reading its engine config from a ConfigMap. */
function trtllmWithEngineConfig(engineYaml: string): Obj[] {
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'engine' }, data: { 'engine.yaml': engineYaml } };
  const g = graph((gr, w) => {
    gr.spec.backendFramework = 'trtllm';
    delete gr.spec.services.VllmWorker;
    gr.spec.services.TrtllmWorker = {
      ...w,
      extraPodSpec: {
        volumes: [{ name: 'engine', configMap: { name: 'engine' } }],
        mainContainer: {
          image: 'nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.9.0',
          command: ['python3', '-m', 'dynamo.trtllm'],
          args: ['--model-path', 'Qwen/Qwen3-0.6B', '--extra-engine-args', '/config/engine.yaml'],
          volumeMounts: [{ name: 'engine', mountPath: '/config' }],
        },
      },
    };
  });
  return [configMap, g];
}

function request(edit: (r: Obj) => void, apiVersion = 'nvidia.com/v1beta1'): Obj {
  const r: Obj = {
    apiVersion,
    kind: 'DynamoGraphDeploymentRequest',
    metadata: { name: 'req' },
    spec: apiVersion === 'nvidia.com/v1beta1' ? { model: 'Qwen/Qwen3-0.6B', backend: 'vllm', sla: { ttft: 200, itl: 20 } } : { model: 'Qwen/Qwen3-0.6B', backend: 'vllm', profilingConfig: { config: {} } },
  };
  edit(r);
  return r;
}

const env = (c: Credential) => [{ name: c.name, value: c.value }];

interface LintPlace {
  readonly id: string;
  readonly objects: (c: Credential) => Obj[];
  /** Where lint reports it. */
  readonly at: (c: Credential) => readonly string[];
  /** Only for credentials known by their shape: a value alone, with no name to go by. */
  readonly shapesOnly?: boolean;
}

const LINT_PLACES: readonly LintPlace[] = [
  { id: 'graph env', objects: (c) => [graph((g) => (g.spec.envs = env(c)))], at: (c) => [`spec.envs[${c.name}]`] },
  { id: 'service envs', objects: (c) => [graph((_g, w) => (w.envs = env(c)))], at: (c) => [`VllmWorker.envs[${c.name}]`] },
  { id: 'main container env', objects: (c) => [graph((_g, w) => (w.extraPodSpec.mainContainer.env = env(c)))], at: (c) => [`VllmWorker.extraPodSpec.mainContainer.env[${c.name}]`] },
  {
    id: 'sidecar container env',
    objects: (c) => [graph((_g, w) => (w.extraPodSpec.containers = [{ name: 'sidecar', image: 'busybox', env: env(c) }]))],
    at: (c) => [`VllmWorker.extraPodSpec.containers[sidecar].env[${c.name}]`],
  },
  {
    id: 'init container env',
    objects: (c) => [graph((_g, w) => (w.extraPodSpec.initContainers = [{ name: 'setup', image: 'busybox', env: env(c) }]))],
    at: (c) => [`VllmWorker.extraPodSpec.initContainers[setup].env[${c.name}]`],
  },
  {
    id: 'argument after its flag',
    objects: (c) => [graph((_g, w) => w.extraPodSpec.mainContainer.args.push(flagOf(c.name), c.value))],
    at: () => ['VllmWorker.extraPodSpec.mainContainer.args[3]'],
  },
  {
    id: '--flag=value argument',
    objects: (c) => [graph((_g, w) => w.extraPodSpec.mainContainer.args.push(`${flagOf(c.name)}=${c.value}`))],
    at: () => ['VllmWorker.extraPodSpec.mainContainer.args[2]'],
  },
  {
    id: 'model argument',
    objects: (c) => [graph((_g, w) => (w.extraPodSpec.mainContainer.args = ['--model', c.value]))],
    at: () => ['VllmWorker.extraPodSpec.mainContainer.args[1]'],
    shapesOnly: true,
  },
  {
    id: 'sh -c line',
    objects: (c) => [
      graph((_g, w) => {
        w.extraPodSpec.mainContainer.command = ['sh', '-c', `export ${c.name}='${c.value}' && python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B`];
        delete w.extraPodSpec.mainContainer.args;
      }),
    ],
    at: () => ['VllmWorker.extraPodSpec.mainContainer.command[2]'],
  },
  { id: 'graph label', objects: (c) => [graph((g) => (g.metadata.labels = { [c.name]: c.value }))], at: (c) => [`metadata.labels.${c.name}`] },
  { id: 'graph annotation', objects: (c) => [graph((g) => (g.metadata.annotations = { [`example.com/${c.name}`]: c.value }))], at: (c) => [`metadata.annotations[example.com/${c.name}]`] },
  {
    id: 'pod template annotation',
    objects: (c) => [graph((_g, w) => (w.extraPodMetadata = { annotations: { [c.name]: c.value } }))],
    at: (c) => [`VllmWorker.extraPodMetadata.annotations.${c.name}`],
  },
  {
    id: 'TensorRT-LLM engine config the graph mounts',
    objects: (c) => trtllmWithEngineConfig(`backend: pytorch\n${c.name}: ${JSON.stringify(c.value)}\n`),
    at: (c) => [`TrtllmWorker.engineConfig.${c.name}`, 'ConfigMap/engine.data[engine.yaml]'],
  },
  {
    id: 'ConfigMap data (env keys)',
    objects: (c) => [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-env' }, data: { [c.name]: c.value } }],
    at: (c) => [`ConfigMap/app-env.data.${c.name}`],
  },
  {
    id: 'ConfigMap data (a file)',
    objects: (c) => [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data: { 'settings.env': `LOG_LEVEL=info\n${c.name}=${JSON.stringify(c.value)}\n` } }],
    at: () => ['ConfigMap/app.data[settings.env]'],
  },
  {
    id: 'ConfigMap label',
    objects: (c) => [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', labels: { [c.name]: c.value } }, data: {} }],
    at: (c) => [`ConfigMap/app.metadata.labels.${c.name}`],
  },
  {
    id: 'Deployment pod template env',
    objects: (c) => [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'app' },
        spec: { selector: { matchLabels: { app: 'app' } }, template: { metadata: { labels: { app: 'app' } }, spec: { containers: [{ name: 'app', image: 'busybox', env: env(c) }] } } },
      },
    ],
    at: (c) => [`Deployment/app.spec.template.spec.containers[app].env[${c.name}]`],
  },
  {
    id: 'Flux HelmRelease values',
    objects: (c) => [{ apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', metadata: { name: 'app' }, spec: { values: { auth: { [c.name]: c.value } } } }],
    at: (c) => [`HelmRelease/app.spec.values.auth.${c.name}`],
  },
  { id: 'request label', objects: (c) => [request((r) => (r.metadata.labels = { [c.name]: c.value }), 'nvidia.com/v1alpha1')], at: (c) => [`metadata.labels.${c.name}`] },
  {
    id: 'request deploymentOverrides annotation',
    objects: (c) => [request((r) => (r.spec.deploymentOverrides = { annotations: { [c.name]: c.value } }), 'nvidia.com/v1alpha1')],
    at: (c) => [`spec.deploymentOverrides.annotations.${c.name}`],
  },
  {
    id: 'request profiling Job env',
    objects: (c) => [request((r) => (r.spec.overrides = { profilingJob: { template: { spec: { containers: [{ name: 'profiler', env: env(c) }] } } } }))],
    at: (c) => [`spec.overrides.profilingJob.template.spec.containers[profiler].env[${c.name}]`],
  },
  {
    id: 'request model',
    objects: (c) => [request((r) => (r.spec.model = c.value))],
    at: () => ['spec.model'],
    shapesOnly: true,
  },
  {
    id: 'v1beta1 main container env',
    objects: (c) => [graphV1beta1((_g, w) => (w.podTemplate.spec.containers[0].env = env(c)))],
    at: (c) => [`VllmWorker.podTemplate.spec.containers[main].env[${c.name}]`],
  },
  {
    id: 'v1beta1 sidecar container env',
    objects: (c) => [graphV1beta1((_g, w) => w.podTemplate.spec.containers.push({ name: 'sidecar', image: 'busybox', env: env(c) }))],
    at: (c) => [`VllmWorker.podTemplate.spec.containers[sidecar].env[${c.name}]`],
  },
  {
    id: 'v1beta1 pod template annotation',
    objects: (c) => [graphV1beta1((_g, w) => (w.podTemplate.metadata = { annotations: { [c.name]: c.value } }))],
    at: (c) => [`VllmWorker.podTemplate.metadata.annotations.${c.name}`],
  },
  {
    id: 'v1beta1 component named __proto__',
    objects: (c) => [graphV1beta1((_g, w) => ((w.name = '__proto__'), (w.podTemplate.spec.containers[0].env = env(c))))],
    at: (c) => [`__proto__.podTemplate.spec.containers[main].env[${c.name}]`],
  },
];

const LINT_OPTIONS = { crds: lintCrds(), validateKubernetes: () => [] };

function lintObjects(objects: readonly Obj[]) {
  const text = objects.map((o) => YAML.stringify(o)).join('---\n');
  return lintSources([{ file: 'm.yaml', text }], LINT_OPTIONS).findings;
}

describe('lint: each credential in each place', () => {
  describe.each(LINT_PLACES.map((p) => [p.id, p] as const))('%s', (_id, place) => {
    test.each(CREDENTIALS.filter((c) => !place.shapesOnly || c.name === NEUTRAL).map((c) => [c.id, c] as const))('%s', (_c, c) => {
      const found = lintObjects(place.objects(c)).filter((f) => f.rule === 'literal-secret');
      expect(found.map((f) => f.path).sort()).toEqual([...place.at(c)].sort());
      for (const f of found) {
        expect(f.message).toMatch(c.what);
        expect(f.severity).toBe('error');
        expect(leaks(f.message, c.secret)).toBe(false);
      }
    });

    test('a harmless value there is no finding', () => {
      expect(lintObjects(place.objects(CLEAN)).filter((f) => f.rule === 'literal-secret')).toEqual([]);
    });
  });

  test('findings name the fix for the place', () => {
    const hf = CREDENTIALS[0];
    const fix = (p: string) => lintObjects(LINT_PLACES.find((x) => x.id === p)!.objects(hf)).find((f) => f.rule === 'literal-secret')!.message;
    expect(fix('service envs')).toBe(
      'holds a Hugging Face token in plain text: anyone who can read the manifest (or its Git history) has it. Revoke it, and reference a Secret instead: hfTokenSecret / envFromSecret for HF_TOKEN, or EnvValue.fromSecret(name, key) (secretKeyRef)',
    );
    expect(fix('argument after its flag')).toMatch(/pass it through the environment instead: a variable set from a Secret .*\$\(VAR\) in the argument$/);
    expect(fix('graph label')).toMatch(/keep it out of labels and annotations/);
    expect(fix('model argument')).toMatch(/keep it out of the model name: the engines read the Hugging Face token from HF_TOKEN, set from a Secret/);
    expect(fix('ConfigMap data (env keys)')).toMatch(/keep it in a Secret instead \(a Secret volume, or a variable set from a Secret/);
    const url = lintObjects(LINT_PLACES.find((x) => x.id === 'argument after its flag')!.objects(CREDENTIALS.find((c) => c.id === 'url userinfo')!))[0];
    expect(url.message).toMatch(/keep the credentials in a Secret, not in the URL/);
  });

  test("a Secret's data is where credentials belong; its labels are checked like any object's", () => {
    const token = CREDENTIALS[0].value;
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hf-token-secret' }, type: 'Opaque', stringData: { HF_TOKEN: token }, data: { HF_TOKEN: Buffer.from(token).toString('base64') } };
    expect(lintObjects([secret]).filter((f) => f.rule === 'literal-secret')).toEqual([]);
    const labelled = { ...secret, metadata: { name: 'hf-token-secret', annotations: { note: token } } };
    expect(lintObjects([labelled]).filter((f) => f.rule === 'literal-secret').map((f) => f.path)).toEqual(['Secret/hf-token-secret.metadata.annotations.note']);
  });

  test('near misses are no credentials: references, counts and settings about tokens, paths, special tokens', () => {
    const nearMisses = [
      { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf-token-secret', key: 'HF_TOKEN' } } },
      { name: 'NGC_API_KEY', value: '$(NGC_KEY_FROM_SECRET)' },
      { name: 'OPENAI_API_KEY', value: 'EMPTY' },
      { name: 'HF_HUB_ENABLE_HF_TRANSFER', value: '1' },
      { name: 'TOKENIZERS_PARALLELISM', value: 'false' },
      { name: 'MAX_TOKENS', value: '512' },
      { name: 'DYN_ROUTER_MAX_TOKEN_LIMIT', value: '8192' },
      { name: 'TOKENIZER', value: 'Qwen/Qwen3-0.6B' },
      { name: 'DYN_KV_CACHE_BLOCK_SIZE', value: '16' },
      { name: 'NCCL_IB_HCA', value: 'mlx5_0,mlx5_1' },
      { name: 'NCCL_SOCKET_IFNAME', value: 'eth0' },
      { name: 'UCX_TLS', value: 'rc_x,rc,dc_x,dc,cuda_copy,cuda_ipc' },
      { name: 'GOOGLE_APPLICATION_CREDENTIALS', value: '/var/run/secrets/google/key.json' },
      { name: 'HF_TOKEN_PATH', value: '/var/run/secrets/hf/token' },
      { name: 'HF_TOKEN', value: 'YOUR_HF_TOKEN' },
      { name: 'PROMETHEUS_ENDPOINT', value: 'http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9090' },
      { name: 'DATABASE_URL', value: 'postgres://app:$(DB_PASSWORD)@db.example:5432/app' },
    ];
    const args = [
      '--model', 'Qwen/Qwen3-0.6B', '--max-tokens', '512', '--use-server-token-count', '--max-num-batched-tokens', '8192',
      '--hf-token', '$(HF_TOKEN)', '--tokenizer', 'Qwen/Qwen3-0.6B', '--api-key=${API_KEY}',
      "--kv-events-config={\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:5557\"}",
    ];
    const tokenizerConfig = JSON.stringify({ bos_token: '<s>', eos_token: '<|im_end|>', pad_token: '[PAD]', unk_token: null, model_max_length: 131072, chat_template: '{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}' });
    const engine = 'backend: pytorch\nmax_num_tokens: 8192\nkv_cache_config:\n  tokens_per_block: 32\n  free_gpu_memory_fraction: 0.85\n';
    const objects = [
      graph((g, w) => {
        g.metadata.labels = { 'app.kubernetes.io/name': 'agg', team: 'inference' };
        g.metadata.annotations = { 'nvidia.com/grove-update-strategy': 'RollingRecreate' };
        w.envs = nearMisses;
        w.extraPodSpec.mainContainer.args = args;
      }),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tokenizer' }, data: { 'tokenizer_config.json': tokenizerConfig, 'engine.yaml': engine } },
    ];
    expect(lintObjects(objects).filter((f) => f.rule === 'literal-secret')).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// the constructs: each option a string goes through

/** The errors the constructs report when the app synthesizes. */
function errorsOf(build: (scope: Chart) => unknown): { path: string; message: string; rule?: string }[] {
  try {
    const chart = new Chart(Testing.app(), 'c');
    build(chart);
    Testing.synth(chart);
  } catch (e) {
    if (!(e instanceof DynamoValidationError)) throw e;
    return [...e.issues];
  }
  return [];
}

/** The literal-secret errors among them. */
const thrown = (build: (scope: Chart) => unknown) => errorsOf(build).filter((i) => i.rule === 'literal-secret');

const MODEL = 'Qwen/Qwen3-0.6B';
const PLANNER = { ttftMs: 200, itlMs: 20 };
const disagg = (scope: Chart, o: Obj = {}) => new DisaggregatedDeployment(scope, 'd', { model: MODEL, backend: Backend.vllm(), prefill: {}, decode: {}, ...o });
const planned = (scope: Chart, o: Obj = {}) => disagg(scope, { prefill: { replicas: 1 }, decode: { replicas: 1 }, ...o, planner: { ...PLANNER, ...o.planner } });
const sla = (scope: Chart, o: Obj = {}) =>
  new SlaPlannedDeployment(scope, 's', { model: MODEL, backend: Backend.vllm(), sla: { isl: 3000, osl: 150, ttftMs: 200, itlMs: 20 }, ...o });

interface ConstructPlace {
  readonly id: string;
  readonly build: (scope: Chart, c: Credential) => unknown;
  /** The option the error points at. */
  readonly at: (c: Credential) => string;
  /** Only for values that option accepts (a URL, a name without whitespace). */
  readonly accepts?: (c: Credential) => boolean;
  /** A harmless value the option accepts. */
  readonly clean?: string;
}

const isUrl = (c: Credential) => /^[a-z]+:\/\//.test(c.value);
const isHttpUrl = (c: Credential) => /^https?:\/\//.test(c.value);
const nameLike = (c: Credential) => !/\s/.test(c.value) && !isUrl(c);

const CONSTRUCT_PLACES: readonly ConstructPlace[] = [
  { id: 'graph env', build: (s, c) => disagg(s, { env: { [c.name]: c.value } }), at: (c) => `env.${c.name}` },
  { id: 'frontend env', build: (s, c) => disagg(s, { frontend: { env: { [c.name]: c.value } } }), at: (c) => `frontend.env.${c.name}` },
  { id: 'worker env', build: (s, c) => disagg(s, { prefill: { env: { [c.name]: c.value } } }), at: (c) => `prefill.env.${c.name}` },
  { id: 'planner env', build: (s, c) => planned(s, { planner: { env: { [c.name]: c.value } } }), at: (c) => `planner.env.${c.name}` },
  {
    id: 'aggregated worker env',
    build: (s, c) => new AggregatedDeployment(s, 'a', { model: MODEL, backend: Backend.vllm(), workers: { env: { [c.name]: c.value } } }),
    at: (c) => `workers.env.${c.name}`,
  },
  { id: 'extraArgs, flag and value', build: (s, c) => disagg(s, { decode: { extraArgs: [flagOf(c.name), c.value] } }), at: () => 'decode.extraArgs' },
  { id: 'extraArgs, --flag=value', build: (s, c) => disagg(s, { decode: { extraArgs: [`${flagOf(c.name)}=${c.value}`] } }), at: () => 'decode.extraArgs' },
  { id: 'graph labels', build: (s, c) => disagg(s, { labels: { [c.name]: c.value } }), at: (c) => `labels.${c.name}` },
  { id: 'graph annotations', build: (s, c) => disagg(s, { annotations: { [`example.com/${c.name}`]: c.value } }), at: (c) => `annotations[example.com/${c.name}]` },
  {
    id: 'TensorRT-LLM engineConfig',
    build: (s, c) => disagg(s, { backend: Backend.trtllm(), prefill: { engineConfig: { speculative_config: { [c.name]: c.value } } } }),
    at: (c) => `prefill.engineConfig.speculative_config.${c.name}`,
  },
  { id: 'model', build: (s, c) => disagg(s, { model: c.value }), at: () => 'model', accepts: (c) => c.id === 'hugging face', clean: MODEL },
  { id: 'served model name', build: (s, c) => disagg(s, { servedModelName: c.value }), at: () => 'servedModelName', accepts: (c) => nameLike(c) && c.name === NEUTRAL },
  {
    id: 'planner prometheusEndpoint (1.x: the PlannerConfig ConfigMap)',
    build: (s, c) => planned(s, { planner: { prometheusEndpoint: c.value } }),
    at: () => 'planner.prometheusEndpoint',
    accepts: isHttpUrl,
    clean: 'https://metrics.example:9090',
  },
  {
    id: 'planner prometheusEndpoint (0.9: a planner flag)',
    build: (s, c) => planned(s, { dynamoVersion: '0.9.0', planner: { prometheusEndpoint: c.value } }),
    at: () => 'planner.prometheusEndpoint',
    accepts: isHttpUrl,
    clean: 'https://metrics.example:9090',
  },
  { id: 'SLA-planned labels', build: (s, c) => sla(s, { labels: { [c.name]: c.value } }), at: (c) => `labels.${c.name}` },
  { id: 'SLA-planned annotations', build: (s, c) => sla(s, { annotations: { [c.name]: c.value } }), at: (c) => `annotations.${c.name}` },
  { id: 'SLA-planned deploymentOverrides labels', build: (s, c) => sla(s, { deploymentOverrides: { labels: { [c.name]: c.value } } }), at: (c) => `deploymentOverrides.labels.${c.name}` },
  {
    id: 'SLA-planned deploymentOverrides annotations (0.9)',
    build: (s, c) => sla(s, { dynamoVersion: '0.9.0', deploymentOverrides: { annotations: { [c.name]: c.value } } }),
    at: (c) => `deploymentOverrides.annotations.${c.name}`,
  },
  {
    id: 'SLA-planned profilingJob env',
    build: (s, c) => sla(s, { profilingJob: { template: { spec: { containers: [{ name: 'profiler', env: [{ name: c.name, value: c.value }] }] } } } }),
    at: (c) => `profilingJob.template.spec.containers[profiler].env[${c.name}]`,
  },
  {
    id: 'PrometheusStack values',
    build: (s, c) => new PrometheusStack(s, 'p', { install: HelmInstall.none(), values: { grafana: { [c.name]: c.value } } }),
    at: (c) => `values.grafana.${c.name}`,
  },
  {
    id: 'DynamoPlatform prometheus',
    build: (s, c) => new DynamoPlatform(s, 'p', { install: HelmInstall.none(), prometheus: c.value }),
    at: () => 'prometheus',
    accepts: isHttpUrl,
    clean: 'https://metrics.example:9090',
  },
  {
    id: 'DynamoPlatform external etcd',
    build: (s, c) => new DynamoPlatform(s, 'p', { install: HelmInstall.none(), etcd: { address: c.value } }),
    at: () => 'etcd.address',
    accepts: isHttpUrl,
    clean: 'https://etcd.example:2379',
  },
  {
    id: 'GrafanaDashboard dashboard',
    build: (s, c) => new GrafanaDashboard(s, 'g', { dashboard: { title: 'Serving', links: [{ title: 'runbook', url: 'https://runbook.example/', [c.name]: c.value }] } as any }),
    at: (c) => `dashboard.links[0].${c.name}`,
  },
  {
    id: 'DynamoPlatform values',
    build: (s, c) => new DynamoPlatform(s, 'p', { install: HelmInstall.none(), values: { 'dynamo-operator': { env: [{ name: c.name, value: c.value }] } } }),
    at: (c) => `values.dynamo-operator.env[${c.name}]`,
  },
];

describe('constructs: each credential through each option', () => {
  describe.each(CONSTRUCT_PLACES.map((p) => [p.id, p] as const))('%s', (_id, place) => {
    const credentials = CREDENTIALS.filter((c) => place.accepts?.(c) ?? true);
    test.each(credentials.map((c) => [c.id, c] as const))('%s', (_c, c) => {
      const errors = thrown((scope) => place.build(scope, c));
      expect(errors.map((e) => e.path)).toEqual([place.at(c)]);
      expect(errors[0].message).toMatch(c.what);
      expect(leaks(errors[0].message, c.secret)).toBe(false);
    });

    test('a harmless value there is accepted', () => {
      const clean = { ...CLEAN, value: place.clean ?? CLEAN.value };
      expect(errorsOf((scope) => place.build(scope, clean))).toEqual([]);
    });
  });

  test('an external NATS address with a password is refused too', () => {
    const errors = thrown((s) => new DynamoPlatform(s, 'p', { install: HelmInstall.none(), nats: { address: `nats://dynamo:${'Fake-pass-2'}@nats.example:4222` } }));
    expect(errors.map((e) => e.path)).toEqual(['nats.address']);
    expect(errors[0].message).toMatch(/^holds a URL with a password \(nats:\/\/…@nats\.example:4222\) in plain text/);
    expect(leaks(errors[0].message, 'Fake-pass-2')).toBe(false);
  });

  test('a Secret reference is the fix: EnvValue.fromSecret and hfTokenSecret are accepted', () => {
    expect(errorsOf((s) => disagg(s, { hfTokenSecret: 'hf-token-secret', env: { INFERENCE_API_KEY: EnvValue.fromSecret('api', 'key') } }))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// the clean corpus: the library's examples and the upstream manifests

const REPO = path.resolve(__dirname, '../..');
const SHARED = path.resolve(REPO, '../shared');

function yamlFilesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return yamlFilesUnder(p);
    return /\.ya?ml$/.test(e.name) ? [p] : [];
  });
}

/** A text as a ConfigMap's data, the way lint reads any other object. */
const textFindings = (text: string) => checkObjectManifest({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'corpus' }, data: { text } });

describe('the clean corpus gives no finding', () => {
  test.each(Object.keys(EXAMPLES))('example %s, synthesized and linted', (name) => {
    const objects = Testing.synth(new (EXAMPLES as Record<string, new (scope: any, id: string) => Chart>)[name](Testing.app(), name));
    expect(objects.length).toBeGreaterThan(0);
    expect(lintObjects(objects).filter((f) => f.rule === 'literal-secret')).toEqual([]);
  });

  test("the upstream manifests: the guides' transcriptions and the lint fixtures (but the two that break literal-secret)", () => {
    const files = yamlFilesUnder(path.join(REPO, 'test/fixtures')).filter((f) => !/literal-secret/.test(path.basename(f)));
    expect(files.length).toBeGreaterThan(40);
    const found = files.flatMap((file) =>
      lintSources([{ file, text: fs.readFileSync(file, 'utf8') }], LINT_OPTIONS).findings.filter((f) => f.rule === 'literal-secret'),
    );
    expect(found).toEqual([]);
  });

  test('the guides, whole (every command, heredoc and manifest in them), and the command-line fixtures', () => {
    expect(textFindings(readGuides())).toEqual([]);
    const cliFixtures = path.join(REPO, 'test/cli/fixtures');
    for (const f of fs.readdirSync(cliFixtures)) expect(textFindings(fs.readFileSync(path.join(cliFixtures, f), 'utf8'))).toEqual([]);
  });

  test("the Dynamo platform chart's values, as chart values and as text", () => {
    const text = fs.readFileSync(path.join(SHARED, 'dynamo/platform-values.yaml'), 'utf8');
    const d = new Diagnostics();
    checkHelmValues(d, 'values', YAML.parse(text));
    expect(d.errors).toEqual([]);
    expect(textFindings(text)).toEqual([]);
  });
});

test('scanning is linear: a megabyte of adversarial text takes seconds at most, not the hours a quadratic pattern would', () => {
  const texts = [
    `--a${' '.repeat(200_000)}x`,
    `${'a'.repeat(200_000)}:`,
    `eyJ${'a'.repeat(200_000)}`,
    'x=y '.repeat(50_000),
    `https://${'a'.repeat(100_000)}@${'b'.repeat(100_000)}`,
    // a credential per line, fifty thousand times
    `API_KEY=${'FakeApiKey0'}\n`.repeat(50_000),
  ];
  const start = Date.now();
  for (const text of texts) textFindings(text);
  expect(Date.now() - start).toBeLessThan(5000);
});
