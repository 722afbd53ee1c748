import * as fs from 'fs';
import * as path from 'path';

/**
 * The engine an SLA rehearsal simulates, as a profile in the format Dynamo's profiler writes
 * (`prefill_raw_data.json`, `decode_raw_data.json`). The same profile sets the mocker's timing
 * (`--planner-profile-data`) and the planner's model of the engine (`profile_results_dir`), so
 * the planner sizes the graph for the engine that actually serves. It is made small on purpose:
 * one replica saturates at a request rate this machine can send, and the SLA is met up to it.
 */

export interface RehearsalProfile {
  readonly dir: string;
  /** Requests per second one prefill + decode replica pair serves within the SLA (the decode side's bound, by construction). */
  readonly replicaCapacity: number;
  readonly describe: string;
}

/** Requests per second one decode replica serves at the ITL target. */
const DECODE_REPLICA_RPS = 1;
/** The KV usage at which ITL reaches its target: ITL = target x (BASE + SLOPE x usage). */
const ITL_BASE = 0.3;
const ITL_SLOPE = 0.9;
/**
 * Prefill of `isl` tokens takes this share of the TTFT target: room for queueing, routing and the
 * alert's p95, which a histogram interpolates within a bucket.
 */
const PREFILL_SHARE = 0.25;

/**
 * Writes the profile. `throughput` adds what 0.9's planner reads besides the profiler's keys:
 * prefill tokens per second per GPU at each prompt length (`isl / ttft`), and decode tokens per
 * second per GPU at each point (concurrency x tokens per second of one stream).
 */
export function writeRehearsalProfile(dir: string, o: { ttftMs: number; itlMs: number; isl: number; osl: number; throughput?: boolean }): RehearsalProfile {
  fs.mkdirSync(dir, { recursive: true });
  // prefill: linear in prompt length, PREFILL_SHARE of the TTFT target at the rehearsal's prompt length
  const islPoints = [0.125, 0.25, 0.5, 1, 1.5, 2, 4].map((f) => Math.max(1, Math.round(o.isl * f)));
  const perToken = (PREFILL_SHARE * o.ttftMs) / o.isl;
  const prefillTtft = islPoints.map((x) => Math.round(perToken * x * 100) / 100);
  const prefillThroughput = o.throughput ? { prefill_thpt_per_gpu: islPoints.map((x, i) => Math.round((x / prefillTtft[i]) * 1000 * 100) / 100) } : {};
  fs.writeFileSync(path.join(dir, 'prefill_raw_data.json'), JSON.stringify({ prefill_isl: islPoints, prefill_ttft: prefillTtft, ...prefillThroughput }));
  // decode: ITL rises with KV usage and meets its target where `concurrency` requests are decoding
  const usageAtTarget = (1 - ITL_BASE) / ITL_SLOPE;
  const concurrency = (DECODE_REPLICA_RPS * o.itlMs * o.osl) / 1000;
  const context = o.isl + o.osl / 2;
  const maxKvTokens = Math.max(1024, Math.round((concurrency * context) / usageAtTarget));
  const usage: number[] = [];
  const ctx: number[] = [];
  const itl: number[] = [];
  for (const u of [0.02, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]) {
    for (const c of [0.5, 1, 1.5, 2].map((f) => Math.round(context * f))) {
      usage.push(u);
      ctx.push(c);
      itl.push(Math.round(o.itlMs * (ITL_BASE + ITL_SLOPE * u) * 100) / 100);
    }
  }
  // requests decoding at once (the KV tokens in use over one request's context), each at 1000 / ITL tokens per second
  const decodeThroughput = o.throughput ? { z_thpt_per_gpu: usage.map((u, i) => Math.round(((u * maxKvTokens) / ctx[i]) * (1000 / itl[i]) * 100) / 100) } : {};
  fs.writeFileSync(path.join(dir, 'decode_raw_data.json'), JSON.stringify({ x_kv_usage: usage, y_context_length: ctx, z_itl: itl, max_kv_tokens: maxKvTokens, ...decodeThroughput }));
  const prefillRps = 1000 / (perToken * o.isl);
  return {
    dir,
    replicaCapacity: Math.min(DECODE_REPLICA_RPS, prefillRps),
    describe: `prefill of ${o.isl} tokens in ${Math.round(perToken * o.isl)} ms, ITL ${Math.round(o.itlMs * ITL_BASE)} ms rising to ${o.itlMs} ms at ${Math.round(usageAtTarget * 100)}% of ${maxKvTokens} KV tokens`,
  };
}
