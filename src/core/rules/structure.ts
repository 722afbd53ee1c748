import { checkDnsLabel, checkServiceName } from '../base/checks';
import { show } from '../base/errors';
import { Findings } from './findings';
import { GraphModel, workers } from '../model/graph-model';
import { plannerSetting } from './planner';

/** The most services a DynamoGraphDeployment may have (CRD `maxProperties`). */
export const MAX_SERVICES = 25;

/**
 * Grove names pods after the graph and the service: the graph name plus the
 * lowercased service name (plus the service name again with `-ldr`/`-wkr` for
 * a multinode worker) must fit in 45 characters, or reconciliation fails
 * after the graph is applied (ai-dynamo/dynamo#4938).
 */
export const MAX_GROVE_NAME_LENGTH = 45;

const SERVICES = { field: 'spec.services', option: 'graph:services' };

/** Names the operator accepts, and the shape of a graph: one frontend, workers in a consistent layout. */
export function structureRules(g: GraphModel, f: Findings): void {
  f.check(undefined, { field: 'metadata.name', option: 'graph:name' }, (d, path) => checkDnsLabel(d, path, g.rawName));
  for (const s of g.services) {
    f.check(s, { field: '', option: 'serviceName' }, (d, path) => checkServiceName(d, path, s.name));
  }
  if (g.name !== '') {
    for (const s of g.services) {
      const service = s.name.toLowerCase();
      const multinode = s.spec.multinode !== undefined;
      const length = g.name.length + service.length + (multinode ? service.length + '-ldr'.length : 0);
      if (length <= MAX_GROVE_NAME_LENGTH) continue;
      const parts = multinode
        ? `graph name ${show(g.name)} (${g.name.length}) + service ${show(service)} (${service.length}) + ${show(`${service}-ldr`)} (${service.length + 4}) of this multinode worker`
        : `graph name ${show(g.name)} (${g.name.length}) + service ${show(service)} (${service.length})`;
      f.report(
        'name-length',
        s,
        { field: '', option: '' },
        `names pods with ${length} characters: ${parts}; Grove allows ${MAX_GROVE_NAME_LENGTH}. Shorten the graph name or the service name`,
      );
    }
  }
  const lowered = new Map<string, string>();
  for (const s of g.services) {
    const first = lowered.get(s.name.toLowerCase());
    if (first === undefined) lowered.set(s.name.toLowerCase(), s.name);
    else if (first !== s.name) {
      f.report(
        'duplicate-service',
        s,
        { field: '', option: 'serviceName' },
        `differs only in case from ${show(first)}; service names must be unique case-insensitively (pods are named after the lowercased name, and the 1.x API refuses it)`,
      );
    }
  }
  if (g.services.length > MAX_SERVICES) {
    f.report('too-many-services', undefined, SERVICES, `has ${g.services.length} services; a DynamoGraphDeployment holds at most ${MAX_SERVICES}`);
  }

  const frontends = g.services.filter((s) => s.kind === 'frontend');
  if (frontends.length > 1) {
    f.report('graph-structure', frontends[1], { field: '', option: '' }, `is a second frontend (${frontends.map((s) => s.name).join(', ')}); a graph has one frontend, scale it with replicas`);
  }
  const planners = g.services.filter((s) => s.kind === 'planner');
  if (planners.length > 1) {
    f.report('graph-structure', planners[1], { field: '', option: '' }, `is a second planner (${planners.map((s) => s.name).join(', ')}); a graph has at most one`);
  }
  const pool = workers(g);
  const roles = new Set(pool.map((w) => w.role));
  if (pool.length === 0) {
    f.report('graph-structure', undefined, SERVICES, 'has no workers; add a Worker, or a PrefillWorker and a DecodeWorker');
    return;
  }
  if (roles.has('aggregated') && (roles.has('prefill') || roles.has('decode'))) {
    const names = (role: string) => pool.filter((w) => w.role === role).map((w) => w.name).join(', ');
    f.report(
      'graph-structure',
      undefined,
      SERVICES,
      `mixes aggregated workers (${names('aggregated')}) with prefill/decode workers (${[names('prefill'), names('decode')].filter((n) => n).join(', ')}); a graph is either aggregated or disaggregated`,
    );
  } else if (roles.has('prefill') !== roles.has('decode')) {
    const [has, missing] = roles.has('prefill') ? ['prefill', 'decode'] : ['decode', 'prefill'];
    f.report('graph-structure', undefined, SERVICES, `has ${has} workers but no ${missing} worker; prefill and decode workers come in pairs`);
  }
  // a planner in agg mode (Dynamo 1.x) scales aggregated workers; the others scale prefill and decode
  const mode = planners.length > 0 ? plannerSetting(planners[0], 'mode')?.value : undefined;
  if (planners.length > 0 && (mode === undefined || mode === 'disagg') && !(roles.has('prefill') && roles.has('decode'))) {
    f.report('graph-structure', planners[0], { field: '', option: '' }, 'needs a disaggregated graph: the SLA planner scales prefill and decode workers separately');
  }
  if (frontends.length === 0) {
    f.report('no-frontend', undefined, SERVICES, 'has no frontend: nothing serves the OpenAI API for these workers');
  }
}
