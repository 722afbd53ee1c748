import { checkBoolean, checkInteger, checkKnownKeys, checkNumber, join, optionKeys } from './checks';
import { Diagnostics } from './errors';

export type LoadPredictorKind = 'constant' | 'arima' | 'kalman' | 'prophet';

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
 * Rendered as DGDR planner config keys and as planner flags in a DGD.
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

  /** @internal */
  public _validate(d: Diagnostics, path: string): void {
    const o = this.options ?? {};
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

  /** Keys of the DGDR `profilingConfig.config.planner` section. @internal */
  public _configKeys(): Record<string, string | number | boolean> {
    const o = this.options;
    const keys: Record<string, string | number | boolean> = { loadPredictor: this.kind };
    if (o.log1p) keys.loadPredictorLog1p = true;
    if (this.kind === 'kalman') {
      keys.kalmanQLevel = o.qLevel!;
      keys.kalmanQTrend = o.qTrend!;
      keys.kalmanR = o.r!;
      if (o.minPoints !== undefined) keys.kalmanMinPoints = o.minPoints;
    }
    if (this.kind === 'prophet') keys.prophetWindowSize = o.windowSize!;
    return keys;
  }

  /** Planner command-line flags. @internal */
  public _flags(): string[] {
    const o = this.options;
    const flags = [`--load-predictor=${this.kind}`];
    if (o.log1p) flags.push('--load-predictor-log1p');
    if (this.kind === 'kalman') {
      flags.push(`--kalman-q-level=${o.qLevel}`, `--kalman-q-trend=${o.qTrend}`, `--kalman-r=${o.r}`);
      if (o.minPoints !== undefined) flags.push(`--kalman-min-points=${o.minPoints}`);
    }
    if (this.kind === 'prophet') flags.push(`--prophet-window-size=${o.windowSize}`);
    return flags;
  }
}
