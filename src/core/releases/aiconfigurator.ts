import { BackendName } from './versions';
import { Diagnostics, show } from '../base/errors';

/**
 * Which GPU systems, backends and backend versions AIConfigurator has
 * performance data for, keyed by the Dynamo release whose profiler runs it.
 * An unsupported combination only fails inside the profiling job ("no
 * profiling data is available"), so the library checks it at synth.
 *
 * 0.9: guide 1, section 7 ("Select AI Configurator System and Backend Version").
 * 0.8 has no entry, so `aiConfigurator` is refused there. The 1.x request (1.6.1 included) has
 * no AIConfigurator options: its profiler runs the AISimulate model inside `searchStrategy: 'rapid'`.
 */
export const AICONFIGURATOR_SUPPORT: Readonly<Record<string, Readonly<Record<string, Partial<Record<BackendName, readonly string[]>>>>>> = {
  '0.9': {
    a100_sxm: { trtllm: ['1.0.0'] },
    b200_sxm: { sglang: ['0.5.6.post2'], trtllm: ['1.0.0rc6', '1.2.0rc5'] },
    gb200_sxm: { trtllm: ['1.0.0rc6', '1.2.0rc5'] },
    h100_sxm: { vllm: ['0.12.0'], sglang: ['0.5.6.post2'], trtllm: ['1.0.0rc3', '1.2.0rc5'] },
    h200_sxm: { vllm: ['0.12.0'], sglang: ['0.5.6.post2'], trtllm: ['1.0.0rc3', '1.2.0rc5'] },
    l40s: { sglang: ['0.5.5.post3'], trtllm: ['1.0.0'] },
  },
};

/**
 * Checks an AIConfigurator system / backend / version combination for a
 * Dynamo release line (a 0.8/0.9 request's `aiConfigurator`); the message names the supported choices.
 */
export function checkAiConfiguratorSupport(
  d: Diagnostics,
  path: string,
  line: string,
  backend: BackendName,
  system: unknown,
  backendVersion: unknown,
): void {
  const table = AICONFIGURATOR_SUPPORT[line];
  if (!table) {
    const lines = Object.keys(AICONFIGURATOR_SUPPORT).map((l) => `${l}.x`).join(', ');
    d.error(path, `AIConfigurator support data is known for Dynamo ${lines}, not ${line}.x; set dynamoVersion to a release in that list, or profile without aiConfigurator`, 'aic-unsupported');
    return;
  }
  const systems = Object.keys(table);
  if (system === undefined) {
    d.error(`${path}.system`, `is required: an AIConfigurator GPU system (${systems.join(', ')})`, 'required');
    return;
  }
  if (typeof system !== 'string' || !table[system]) {
    d.error(`${path}.system`, `must be an AIConfigurator GPU system (${systems.join(', ')}), got ${show(system)}`, 'aic-unsupported');
    return;
  }
  const versions = table[system][backend];
  if (!versions) {
    const others = Object.keys(table[system]).join(', ');
    const where = systems.filter((s) => table[s][backend]).join(', ');
    d.error(
      `${path}.system`,
      `${system} has AIConfigurator data for ${others} only, not ${backend}; ${backend} is supported on ${where}`,
      'aic-unsupported',
    );
    return;
  }
  if (backendVersion === undefined) {
    d.error(`${path}.backendVersion`, `is required: the ${backend} version to simulate, one of ${versions.map((v) => `"${v}"`).join(', ')}`, 'required');
  } else if (typeof backendVersion !== 'string' || !versions.includes(backendVersion)) {
    d.error(
      `${path}.backendVersion`,
      `${backend} on ${system} supports ${versions.map((v) => `"${v}"`).join(', ')} (Dynamo ${line}.x), got ${show(backendVersion)}`,
      'aic-unsupported',
    );
  }
}
