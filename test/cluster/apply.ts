/**
 * Applying objects to the test cluster and reading them back: what the server stored must
 * hold every field that was sent, with the value sent.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeClient } from '../../src/cli/kube-client';

type Obj = Record<string, any>;

/** The fields of `sent` the server did not keep as sent: dropped (pruned) or changed. */
export function lostFields(sent: unknown, stored: unknown, path = ''): string[] {
  if (Array.isArray(sent)) {
    if (!Array.isArray(stored)) return [`${path}: sent a list, stored ${JSON.stringify(stored)}`];
    if (stored.length !== sent.length) return [`${path}: sent ${sent.length} items, stored ${stored.length}`];
    return sent.flatMap((v, i) => lostFields(v, stored[i], `${path}[${i}]`));
  }
  if (typeof sent === 'object' && sent !== null) {
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return [`${path}: sent an object, stored ${JSON.stringify(stored)}`];
    return Object.entries(sent).flatMap(([k, v]) => (k in stored ? lostFields(v, (stored as Obj)[k], path ? `${path}.${k}` : k) : [`${path ? `${path}.` : ''}${k}: dropped`]));
  }
  return sent === stored ? [] : [`${path}: sent ${JSON.stringify(sent)}, stored ${JSON.stringify(stored)}`];
}

export const refOf = (o: Obj) => `${o.kind}/${o.metadata?.namespace ?? '-'}/${o.metadata?.name}`;

/** Runs `fn` over `items`, `width` at a time. */
export async function pool<T, R>(items: readonly T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

export interface Applied {
  readonly object: Obj;
  /** Why the server refused it, or what it lost; empty when stored as sent. */
  readonly problems: readonly string[];
  /** The object as the server returned it. */
  readonly stored?: Obj;
}

/**
 * Server-side applies each object with strict field validation (for real, or as a dry-run),
 * then compares what the server returned (and, for real applies, what a GET reads back)
 * with what was sent.
 */
export async function applyAll(client: KubeClient, objects: readonly Obj[], o: { dryRun: boolean }): Promise<Applied[]> {
  return pool(objects, 8, async (object) => {
    const r = await client.apply(object, { dryRun: o.dryRun, fieldManager: 'dynamo-constructs-test' });
    if (r.status < 200 || r.status >= 300) return { object, problems: [`refused (${r.status}): ${r.body?.message ?? JSON.stringify(r.body)}`] };
    let stored = r.body as Obj;
    if (!o.dryRun) {
      const g = await client.get(object);
      if (g.status !== 200) return { object, problems: [`not readable after apply (${g.status}): ${g.body?.message}`] };
      stored = g.body;
    }
    return { object, problems: lostFields(object, stored), stored };
  });
}

/** The documents of every YAML file in `dir`. */
export function yamlObjects(dir: string): Obj[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS({ maxAliasCount: -1 }) as Obj))
    .filter((o) => o !== null && typeof o === 'object');
}

/** Installs CRDs (server-side, for real) and waits until each is Established. */
export async function installCrds(client: KubeClient, crds: readonly Obj[]): Promise<void> {
  for (const crd of crds) {
    // the server keeps no last-applied annotation for server-side applies: the 1.x CRDs fit
    const r = await client.apply(crd, { dryRun: false, fieldManager: 'dynamo-constructs-test' });
    if (r.status < 200 || r.status >= 300) throw new Error(`installing CRD ${crd.metadata?.name} failed (${r.status}): ${r.body?.message}`);
  }
  for (const crd of crds) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const g = await client.get(crd);
      const established = (g.body?.status?.conditions ?? []).some((c: Obj) => c.type === 'Established' && c.status === 'True');
      if (established) break;
      if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata?.name} was not Established in 60 s`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }
  // Established comes before the server's discovery lists the kind (most visibly when the same CRD
  // was deleted a moment ago): wait until every served version is discoverable
  const deadline = Date.now() + 60_000;
  for (const crd of crds) {
    const group = crd.spec?.group as string;
    const kind = crd.spec?.names?.kind as string;
    for (const version of (crd.spec?.versions ?? []) as Obj[]) {
      if (version.served !== true) continue;
      for (;;) {
        client.rediscover();
        if (await client.resourceOf(`${group}/${version.name}`, kind)) break;
        if (Date.now() > deadline) throw new Error(`${kind} in ${group}/${version.name} was not discoverable in 60 s`);
        await new Promise((res) => setTimeout(res, 200));
      }
    }
  }
  client.rediscover();
}

/** Deletes CRDs (and with them every object of their kinds) and waits until they are gone. */
export async function removeCrds(client: KubeClient, crds: readonly Obj[]): Promise<void> {
  for (const crd of crds) await client.delete(crd);
  for (const crd of crds) {
    const deadline = Date.now() + 120_000;
    while ((await client.get(crd)).status !== 404) {
      if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata?.name} was not deleted in 120 s`);
      await new Promise((res) => setTimeout(res, 250));
    }
  }
  client.rediscover();
}
