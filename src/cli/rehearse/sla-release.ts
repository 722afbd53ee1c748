import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { flagValue, ServiceModel } from '../../core/internal';
import { pythonOf, userCache } from './rehearse';
import { RehearsalError } from './plan';

/**
 * What an SLA rehearsal does differently per Dynamo release: one loop, this table. Each row says
 * how the release's planner is installed, started, configured and known to be running, what its
 * operator stores and reports (the graph's API version and shape, its scaling adapters and status),
 * and how its runtime's processes find each other. The rehearsal reads only this; nothing in the
 * loop asks which release it runs.
 */

export interface PlannerVenvRecipe {
  readonly python: string;
  readonly packages: readonly string[];
  /** Installed after the others, without their dependencies. */
  readonly noDeps: readonly string[];
}

/** The planner's settings as the rehearsal runs it: the SLA it scales for, its interval, the command line. */
export interface PlannerSettings {
  readonly ttftMs: number;
  readonly itlMs: number;
  readonly intervalSeconds: number;
  /** What the manifest sets that the rehearsal leaves out (names only), and why, in a phrase. */
  readonly dropped: readonly string[];
  readonly droppedWhy: string;
  /** What the rehearsal sets itself, whatever the manifest says. */
  readonly replaced: readonly string[];
  /** The planner's arguments after `python -I -m <module>`, given where it reads Prometheus and its profile. */
  argv(o: { prometheusUrl: string; profileDir: string; configFile: string }): { args: string[]; configText?: string };
}

export interface SlaLoopRelease {
  /** The graph's API version, as the release's operator stores it and its planner reads it. */
  readonly apiVersion: 'nvidia.com/v1beta1' | 'nvidia.com/v1alpha1';
  readonly planner: {
    readonly venv: PlannerVenvRecipe;
    /** The module `python -m` runs. */
    readonly module: string;
    /**
     * Where its settings come from: `config`, the PlannerConfig of the graph's ConfigMap
     * (`--config FILE`); `flags`, the Planner service's own command line (argparse flags).
     */
    readonly settings: 'config' | 'flags';
    /**
     * How the rehearsal knows its loop runs: `health`, its system server's `/health` turns 200;
     * `metrics`, its own Prometheus endpoint (`PLANNER_PROMETHEUS_PORT`) serves the planner's
     * gauges (0.9.0's `/health` stays 503: its endpoint is served only after its loop returns).
     */
    readonly readiness: 'health' | 'metrics';
    /** Seconds it sleeps before anything else (0.9.0: 30), added to the start-up budget. */
    readonly startDelaySeconds: number;
    /**
     * Whether it scales down when requests stop altogether. 0.9.0 skips an interval whose
     * averages are 0/0: the cool-down sends a trickle (this share of one replica's capacity).
     */
    readonly idleTrickle?: number;
    /**
     * Where it reads the model name its frontend series are filtered by: `status`, the operator's
     * projected `servedModelName` (1.6); `worker-args`, the prefill and decode services' arguments
     * (`--served-model-name`, `--model-name`, `--model`; 0.9).
     */
    readonly modelName: 'status' | 'worker-args';
    /** Its profile needs the throughput keys (`prefill_thpt_per_gpu`, `z_thpt_per_gpu`) besides the profiler's. */
    readonly profileThroughput: boolean;
    /** Its discovery and runtime environment, with the shared file store at `dir`. */
    readonly env: (dir: string, natsUrl: string | undefined) => Record<string, string>;
  };
  /**
   * How a worker's runtime serves its metrics (the system server) on its pod's address. 0.9.0 has
   * no `DYN_SYSTEM_HOST` and binds every address: each worker pod gets a port of its own
   * (`portPerPod`), which its Pod object declares under the port name its PodMonitor scrapes.
   */
  readonly workerSystem: { readonly portPerPod: boolean; readonly env: (addr: string, port: number) => Record<string, string> };
}

/** The 1.x planner's PlannerConfig keys a rehearsal passes: what it scales for and how, as plain values. */
const PLANNER_CONFIG_KEYS = new Set([
  'environment', 'backend', 'mode', 'optimization_target', 'namespace', 'model_name',
  'ttft_ms', 'itl_ms', 'ttft', 'itl',
  'throughput_adjustment_interval_seconds', 'throughput_adjustment_interval', 'load_adjustment_interval_seconds',
  'max_gpu_budget', 'min_gpu_budget', 'min_endpoint', 'prefill_min_endpoint', 'decode_min_endpoint', 'max_throughput_scaling_replicas',
  'decode_engine_num_gpu', 'prefill_engine_num_gpu',
  'load_predictor', 'prophet_window_size', 'kalman_q_level', 'kalman_q_trend', 'kalman_r', 'kalman_min_points',
  'enable_throughput_scaling', 'enable_load_scaling', 'max_num_fpm_samples', 'fpm_sample_bucket_size', 'load_scaling_down_sensitivity',
  'prefill_scale_up_queue_tokens', 'prefill_scale_down_queue_tokens', 'decode_scale_up_kv_rate', 'decode_scale_down_kv_rate',
  'load_min_observations', 'speculative_nextn', 'advisory', 'pre_deployment_sweeping_mode', 'profile_results_dir', 'metric_pulling_prometheus_endpoint',
]);
/** The rehearsal's own values of these: where it serves Prometheus and the engine's profile. */
const CONFIG_SET_BY_REHEARSAL = new Set(['profile_results_dir', 'metric_pulling_prometheus_endpoint']);

const plain = (v: unknown) => (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean' || (typeof v === 'string' && /^[A-Za-z0-9._/:-]{0,256}$/.test(v));

/** The PlannerConfig as the rehearsal runs it: allowed keys with plain values, and what was left out. */
export function plannerSettings(config: Readonly<Record<string, unknown>>): { kept: Record<string, string | number | boolean>; dropped: string[] } {
  const kept: Record<string, string | number | boolean> = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(config)) {
    if (CONFIG_SET_BY_REHEARSAL.has(k)) continue;
    if (PLANNER_CONFIG_KEYS.has(k) && plain(v)) kept[k] = v as string | number | boolean;
    else dropped.push(k);
  }
  return { kept, dropped };
}

/**
 * The 0.9 planner's (`planner_sla`) flags a rehearsal passes: what it scales for and how, each
 * with the kind of value its parser takes. Flags that name files, endpoints, ports, its Dynamo
 * namespace or its mode (`--log-dir`, `--load-predictor-warmup-trace`, `--namespace`,
 * `--no-operation`, ...) are left out and said.
 */
const PLANNER_FLAGS_0_9: Readonly<Record<string, 'number' | 'switch' | RegExp>> = {
  '--adjustment-interval': 'number',
  '--max-gpu-budget': 'number',
  '--min-endpoint': 'number',
  '--decode-engine-num-gpu': 'number',
  '--prefill-engine-num-gpu': 'number',
  '--ttft': 'number',
  '--itl': 'number',
  '--load-predictor': /^(constant|arima|kalman|prophet)$/,
  '--load-predictor-log1p': 'switch',
  '--prophet-window-size': 'number',
  '--kalman-q-level': 'number',
  '--kalman-q-trend': 'number',
  '--kalman-r': 'number',
  '--kalman-min-points': 'number',
  '--no-correction': 'switch',
};
/**
 * What the rehearsal sets itself: Kubernetes mode, the mocker's worker names (its workers are
 * mockers), its Prometheus and its profile.
 */
const FLAGS_SET_BY_REHEARSAL_0_9 = ['--environment', '--backend', '--metric-pulling-prometheus-endpoint', '--profile-results-dir'];

/** The Planner service's flags as the 0.9 rehearsal runs them: allowed flags with plain values, and what was left out. */
export function plannerFlags(flags: ReadonlyMap<string, string | true>): { kept: string[]; values: Record<string, string | true>; dropped: string[] } {
  const kept: string[] = [];
  const values: Record<string, string | true> = {};
  const dropped: string[] = [];
  for (const [flag, value] of flags) {
    if (FLAGS_SET_BY_REHEARSAL_0_9.includes(flag)) continue;
    const kind = PLANNER_FLAGS_0_9[flag];
    const ok = kind === 'switch'
      ? value === true
      : typeof value === 'string' && (kind === 'number' ? /^[0-9]{1,9}(\.[0-9]{1,9})?$/.test(value) : kind !== undefined && kind.test(value));
    if (!ok) {
      dropped.push(flag);
      continue;
    }
    values[flag] = value;
    kept.push(value === true ? flag : `${flag}=${value}`);
  }
  return { kept, values, dropped };
}

/** The 1.x planner: its PlannerConfig file, with the rehearsal's Prometheus and profile. */
function configSettings(planner: ServiceModel): PlannerSettings {
  const config = planner.plannerConfig?.values;
  if (!config) throw new RehearsalError(`the planner ${planner.name} reads its PlannerConfig from a file whose ConfigMap is not in the files; include it`);
  const ttftMs = Number(config.ttft_ms ?? config.ttft);
  const itlMs = Number(config.itl_ms ?? config.itl);
  if (!(ttftMs > 0) || !(itlMs > 0)) throw new RehearsalError(`the planner's PlannerConfig sets no ttft_ms and itl_ms: an SLA rehearsal needs the targets it scales for`);
  const settings = plannerSettings(config);
  return {
    ttftMs,
    itlMs,
    intervalSeconds: Number(config.throughput_adjustment_interval_seconds ?? config.throughput_adjustment_interval ?? 180),
    dropped: settings.dropped,
    droppedWhy: 'PlannerConfig (files, endpoints, plugins or credentials a rehearsal does not give it)',
    replaced: [...CONFIG_SET_BY_REHEARSAL].filter((k) => k in config),
    argv: (o) => ({
      args: ['--config', o.configFile],
      configText: JSON.stringify({ ...settings.kept, metric_pulling_prometheus_endpoint: o.prometheusUrl, profile_results_dir: o.profileDir }, null, 2),
    }),
  };
}

/** The 0.9 planner: the Planner service's own flags, with Kubernetes mode, the mocker's names, the rehearsal's Prometheus and profile. */
function flagSettings(planner: ServiceModel): PlannerSettings {
  const flags = plannerFlags(planner.launch.flags);
  // the parser's defaults (planner/defaults.py of 0.9.0) where the manifest sets none
  const num = (flag: string, fallback: number) => (typeof flags.values[flag] === 'string' ? Number(flags.values[flag]) : fallback);
  const set = FLAGS_SET_BY_REHEARSAL_0_9.filter((f) => flagValue(planner.launch, f) !== undefined);
  return {
    ttftMs: num('--ttft', 500),
    itlMs: num('--itl', 50),
    intervalSeconds: num('--adjustment-interval', 180),
    dropped: flags.dropped,
    droppedWhy: 'flags (files, endpoints, ports, its namespace or modes a rehearsal does not give it, or values its parser would not take)',
    replaced: set,
    argv: (o) => ({
      args: ['--environment', 'kubernetes', '--backend', 'mocker', '--metric-pulling-prometheus-endpoint', o.prometheusUrl, '--profile-results-dir', o.profileDir, ...flags.kept],
    }),
  };
}

/** The planner's settings of a graph's Planner service, in its release's form. */
export function plannerSettingsOf(loop: SlaLoopRelease, planner: ServiceModel): PlannerSettings {
  return loop.planner.settings === 'config' ? configSettings(planner) : flagSettings(planner);
}

/** The SLA loop of each release a rehearsal runs, by version. */
export const SLA_LOOPS: Readonly<Record<string, SlaLoopRelease>> = {
  '1.6.1': {
    apiVersion: 'nvidia.com/v1beta1',
    planner: {
      // the 1.6 planner on Python 3.11: its `aisimulate` pin is a stub PyPI cannot install, the planner's own is the dev build PyPI serves
      venv: {
        python: '3.11',
        packages: [
          'ai-dynamo-runtime==1.6.1', 'aiohttp<4.0,>=3.14.3', 'certifi>=2026.10.19', 'kubernetes<33.0.0,>=32.0.1', 'msgspec>=0.19.0',
          'prometheus-client<1.0,>=0.23.1', 'pyzmq>=26.0.0', 'redis<9.0.0,>=6.2.0', 'tqdm>=4.0.0', 'transformers>=4.56.0',
          'typing-extensions>=4.10.0', 'zstandard<1.0,>=0.23.0', 'scikit-learn==1.9.1', 'prometheus-api-client==0.7.2',
          'aisimulate==0.13.0.dev202610270000000085',
          // the load predictors (ARIMA, Kalman, Prophet), which the planner's image installs beside the wheel
          'pmdarima==2.1.1', 'filterpy==2.0.0', 'prophet==1.5.0', 'pandas==3.1.1',
        ],
        noDeps: ['ai-dynamo==1.6.1'],
      },
      module: 'dynamo.planner',
      settings: 'config',
      readiness: 'health',
      startDelaySeconds: 0,
      modelName: 'status',
      profileThroughput: false,
      env: (dir) => ({ DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: dir }),
    },
    workerSystem: { portPerPod: false, env: (addr, port) => ({ DYN_SYSTEM_PORT: String(port), DYN_SYSTEM_HOST: addr }) },
  },
  '0.9.0': {
    apiVersion: 'nvidia.com/v1alpha1',
    planner: {
      // the planner's imports, which ai-dynamo 0.9.0 does not declare (its image installs them); scipy as Dynamo's container pins it
      venv: {
        python: '3.11',
        packages: [
          'ai-dynamo==0.9.0', 'prometheus-api-client==0.7.2', 'pmdarima==2.1.1', 'prophet==1.5.0', 'filterpy==2.0.0', 'pandas==3.1.1',
          'matplotlib==3.11.2', 'scikit-learn==1.9.1', 'scipy==1.13.1',
        ],
        noDeps: [],
      },
      module: 'dynamo.planner.planner_sla',
      settings: 'flags',
      readiness: 'metrics',
      startDelaySeconds: 30,
      idleTrickle: 0.2,
      modelName: 'worker-args',
      profileThroughput: true,
      // the runtime connects to NATS (JetStream) whatever its store; the store is the shared file store
      env: (dir, natsUrl) => ({ DYN_STORE_KV: 'file', DYN_FILE_KV: dir, ...(natsUrl ? { NATS_SERVER: natsUrl } : {}) }),
    },
    // 0.9.0's runtime serves it when DYN_SYSTEM_PORT is set (DYN_SYSTEM_ENABLED is deprecated)
    workerSystem: { portPerPod: true, env: (_addr, port) => ({ DYN_SYSTEM_PORT: String(port) }) },
  },
};

/** The SLA loop of a version, or an error naming the versions there are. */
export function slaLoopOf(version: string): SlaLoopRelease {
  const loop = SLA_LOOPS[version];
  if (!loop) throw new RehearsalError(`an SLA rehearsal runs the planner of Dynamo ${Object.keys(SLA_LOOPS).join(', ')}; the graph runs ${version} (pass --dynamo-version to rehearse it as one of those)`);
  return loop;
}

/** The planner's virtualenv of a release, created on first use next to the rehearsal's. */
export function plannerVenv(version: string, recipe: PlannerVenvRecipe, o: { cacheDir?: string; plannerPython?: string }, say: (line: string) => void): string {
  const root = o.cacheDir ?? path.join(userCache(), 'rehearse');
  const dir = path.join(root, `venv-planner-${version}`);
  const python = path.join(dir, 'bin', 'python');
  const stamp = path.join(dir, '.installed');
  const want = JSON.stringify(recipe);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want && fs.existsSync(python)) return python;
  const base = pythonOf(recipe.python, o.plannerPython);
  say(`installing the Dynamo ${version} planner into ${dir} (first run: a few minutes, 1 to 2.3 GB)`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const run = (args: string[], what: string) => {
    const r = spawnSync(args[0], args.slice(1), { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new RehearsalError(`${what} failed:\n${(r.stderr ?? '').split('\n').slice(-8).join('\n')}`);
  };
  run([base, '-m', 'venv', dir], `${base} -m venv`);
  const pip = [python, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check'];
  run([...pip, ...recipe.packages], 'pip install (the planner\'s dependencies)');
  if (recipe.noDeps.length > 0) run([...pip, '--no-deps', ...recipe.noDeps], `pip install --no-deps ${recipe.noDeps.join(' ')}`);
  fs.writeFileSync(stamp, want);
  return python;
}
