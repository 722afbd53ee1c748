import { isPlainObject } from '../base/checks';
import { Findings } from './findings';
import { GraphModel, ServiceModel } from '../model/graph-model';

/**
 * Environment lists as the operator's webhook accepts them: no name twice in
 * one list. (Credentials in them are the secret rules' concern, `secrets.ts`.)
 */

function checkList(f: Findings, service: ServiceModel | undefined, list: unknown, field: string, option: (name: string) => string): void {
  if (!Array.isArray(list)) return;
  const seen = new Set<string>();
  for (const e of list) {
    if (!isPlainObject(e) || typeof e.name !== 'string') continue;
    if (seen.has(e.name)) {
      f.report('duplicate-env', service, { field: `${field}[${e.name}]`, option: option(e.name) }, `is listed twice; the operator's webhook refuses duplicate names in one list. Keep one entry`);
    }
    seen.add(e.name);
  }
}

export function envRules(g: GraphModel, f: Findings): void {
  checkList(f, undefined, g.spec.envs, 'spec.envs', (name) => `graph:env.${name}`);
  for (const s of g.services) {
    checkList(f, s, s.spec.envs, 'envs', (name) => `env.${name}`);
    checkList(f, s, s.container.env, 'extraPodSpec.mainContainer.env', (name) => `env.${name}`);
  }
}
