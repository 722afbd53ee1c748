import { checkBoolean, checkInteger, checkKnownKeys, checkNumber, join, optionKeys } from '../base/checks';
import { Diagnostics } from '../base/errors';
import { DynamoRelease, LoadPredictorKind } from '../releases/versions';

export { LoadPredictorKind } from '../releases/versions';

export interface ArimaOptions {
  /**
   * Fit on log(1 + load), which tames spiky traffic.
   * @default false
   */
  readonly log1p?: boolean;
}

export interface KalmanOptions {
  /** Process noise of the level; higher follows level changes faster (guide 1: 0.1). */
  readonly qLevel: number;
  /** Process noise of the trend (guide 1: 0.01). */
  readonly qTrend: number;
  /** Measurement noise; higher smooths more (guide 1: 1.0). */
  readonly r: number;
  /**
   * Observations before the filter predicts.
   * @default - the planner's default (5)
   */
  readonly minPoints?: number;
}

export interface ProphetOptions {
  /** Observations in the fitting window (guide 1: 1000). */
  readonly windowSize: number;
  /**
   * Fit on log(1 + load).
   * @default false
   */
  readonly log1p?: boolean;
}

const ARIMA_KEYS = optionKeys<ArimaOptions>()('log1p');
const KALMAN_KEYS = optionKeys<KalmanOptions>()('qLevel', 'qTrend', 'r', 'minPoints');
const PROPHET_KEYS = optionKeys<ProphetOptions>()('windowSize', 'log1p');

/**
 * How the SLA planner forecasts the next interval's load (guide 1 section 13).
 * 1.x (1.6.1 included): PlannerConfig keys (`load_predictor`, `prophet_window_size`...) in a
 * graph's planner ConfigMap and in a request's `features.planner`. 0.8/0.9: planner flags
 * (`--load-predictor`...) in a graph, camelCase keys of the request's planner config.
 */
export class LoadPredictor {
  /** Next interval's load equals the current one: stable traffic, long intervals. */
  public static constant(): LoadPredictor {
    return new LoadPredictor('constant', {});
  }

  /** Auto-ARIMA: trends and seasonality. */
  public static arima(options: ArimaOptions = {}): LoadPredictor {
    return new LoadPredictor('arima', options ?? {});
  }

  /** Local linear trend Kalman filter: fast online forecasting with smooth adaptation. */
  public static kalman(options: KalmanOptions): LoadPredictor {
    return new LoadPredictor('kalman', options ?? ({} as KalmanOptions));
  }

  /** Facebook Prophet: complex seasonal patterns and trend changes. */
  public static prophet(options: ProphetOptions): LoadPredictor {
    return new LoadPredictor('prophet', options ?? ({} as ProphetOptions));
  }

  private constructor(
    /** The predictor. */
    public readonly kind: LoadPredictorKind,
    /** Its parameters. */
    public readonly options: Partial<ArimaOptions & KalmanOptions & ProphetOptions>,
  ) {}

  /** Checks the options, and that the planner of `release` has this predictor. @internal */
  public _validate(d: Diagnostics, path: string, release?: DynamoRelease): void {
    const o = this.options ?? {};
    const supported = release?.planner.loadPredictors;
    if (supported && !supported.kinds.includes(this.kind)) {
      d.error(
        path,
        `is the ${this.kind} predictor, which the Dynamo ${release!.line}.x planner does not have (it has ${supported.kinds.join(', ')}); use another predictor or a later release`,
        'unsupported-on-release',
      );
    }
    if (supported && !supported.log1p && o.log1p) {
      d.error(join(path, 'log1p'), `is set, but the Dynamo ${release!.line}.x planner has no --load-predictor-log1p; leave it out or use a later release`, 'unsupported-on-release');
    }
    if (this.kind === 'arima') {
      checkKnownKeys(d, path, o, ARIMA_KEYS);
      checkBoolean(d, join(path, 'log1p'), o.log1p);
    } else if (this.kind === 'kalman') {
      checkKnownKeys(d, path, o, KALMAN_KEYS);
      for (const key of ['qLevel', 'qTrend', 'r'] as const) {
        if (o[key] === undefined) d.error(join(path, key), `is required by the Kalman predictor (guide 1: qLevel 0.1, qTrend 0.01, r 1.0)`, 'required');
        else checkNumber(d, join(path, key), o[key], { min: 0, exclusiveMin: true });
      }
      checkInteger(d, join(path, 'minPoints'), o.minPoints, 1);
    } else if (this.kind === 'prophet') {
      checkKnownKeys(d, path, o, PROPHET_KEYS);
      if (o.windowSize === undefined) d.error(join(path, 'windowSize'), 'is required by the Prophet predictor (guide 1: 1000)', 'required');
      else checkInteger(d, join(path, 'windowSize'), o.windowSize, 1);
      checkBoolean(d, join(path, 'log1p'), o.log1p);
    }
  }

  /** The planner flags of this predictor, as `[flag, value]` (`true` for a flag without a value). */
  private settings(release: DynamoRelease): [string, string | number | true][] {
    const o = this.options;
    const out: [string, string | number | true][] = [['--load-predictor', this.kind]];
    if (o.log1p) out.push(['--load-predictor-log1p', true]);
    if (this.kind === 'kalman') {
      out.push(['--kalman-q-level', o.qLevel!], ['--kalman-q-trend', o.qTrend!], ['--kalman-r', o.r!]);
      if (o.minPoints !== undefined) out.push(['--kalman-min-points', o.minPoints]);
    }
    if (this.kind === 'prophet') out.push([release.planner.loadPredictors.windowSizeFlag, o.windowSize!]);
    return out;
  }

  /**
   * The same settings as config keys: camelCase for a v1alpha1 request's `planner`
   * section (guide 1 section 13 writes them without the `planner` prefix, which the
   * profiler accepts), snake_case for a 1.x PlannerConfig. @internal
   */
  public _configKeys(release: DynamoRelease, style: 'camelCase' | 'snake_case' = 'camelCase'): Record<string, string | number | boolean> {
    return Object.fromEntries(
      this.settings(release).map(([flag, value]) => {
        const snake = flag.replace(/^--/, '').replace(/-/g, '_');
        return [style === 'snake_case' ? snake : snake.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), value];
      }),
    );
  }

  /** Planner command-line flags. @internal */
  public _flags(release: DynamoRelease): string[] {
    return this.settings(release).map(([flag, value]) => (value === true ? flag : `${flag}=${value}`));
  }
}
