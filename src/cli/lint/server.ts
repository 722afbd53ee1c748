import type { RuleId } from '../../core/internal';
import { LintFinding, LintNote, LintResult, parseDocuments } from './lint';
import { KubeClient, referenceProblems } from '../kube-client';
import { LintSource } from '../sources';

/** `lint --server`: the API server's dry-run verdict on every document. */

/**
 * A document whose apiVersion, kind, namespace or name breaks Kubernetes' grammar is not a
 * Kubernetes object the server could be asked about: it is reported as such, and never sent.
 */
const NOT_SENT: RuleId = 'server-not-sent';

function nameOf(o: Record<string, unknown>): string | undefined {
  const n = typeof o.metadata === 'object' && o.metadata !== null ? (o.metadata as { name?: unknown }).name : undefined;
  return typeof n === 'string' ? n : undefined;
}

/**
 * The API server's verdict on every document (`lint --server`): each is sent as a server-side
 * apply with dry-run and strict field validation; a refusal is a `server-rejected` finding at
 * the fields the server names. Objects the server cannot judge yet (a namespace, or a kind, that
 * the same files create) are notes. A document whose apiVersion, kind, namespace or name would
 * not name a request path by Kubernetes' grammar is a finding for each such field, and is not
 * sent. `client` is expected to be a dry-run client (KubeClient's default), which sends
 * nothing but discovery GETs and `dryRun=All` requests.
 */
export async function serverFindings(sources: readonly LintSource[], client: KubeClient): Promise<{ findings: LintFinding[]; notes: LintNote[] }> {
  const findings: LintFinding[] = [];
  const notes: LintNote[] = [];
  const docs = parseDocuments(sources, []);
  const created = new Set(docs.map((d) => `${String(d.object.kind)}/${nameOf(d.object) ?? ''}`));
  const crdKinds = new Set(
    docs.filter((d) => d.object.kind === 'CustomResourceDefinition').map((d) => String((d.object.spec as { names?: { kind?: unknown } } | undefined)?.names?.kind)),
  );
  for (const d of docs) {
    const kind = String(d.object.kind);
    const name = nameOf(d.object);
    const problems = referenceProblems(d.object);
    if (problems.length > 0) {
      // only fields that passed the grammar are repeated in the finding: the others are in its message, quoted
      const kindOk = !problems.some((p) => p.field === 'kind');
      const nameOk = !problems.some((p) => p.field === 'metadata.name');
      const at = kindOk && nameOk ? `${kind}/${name}` : `document ${d.document}`;
      for (const p of problems) {
        findings.push({
          file: d.file,
          document: d.document,
          kind: kindOk ? kind : undefined,
          name: nameOk ? name : undefined,
          path: `${at}.${p.field}`,
          severity: 'error',
          rule: NOT_SENT,
          message: `${p.message}; not sent to the server`,
        });
      }
      continue;
    }
    const ref = `${kind}/${name ?? '(unnamed)'}`;
    const r = await client.apply(d.object, { dryRun: true, fieldManager: 'dynamo-constructs-lint' });
    if (r.status >= 200 && r.status < 300) continue;
    const message = statusMessage(r);
    const namespace = (d.object.metadata as { namespace?: unknown } | undefined)?.namespace;
    if ((r.status === 404 && created.has(`Namespace/${String(namespace)}`)) || (r.status === 0 && crdKinds.has(kind))) {
      notes.push({ file: d.file, document: d.document, message: `${ref}: not checked by the server: ${message} (the same files create it)` });
      continue;
    }
    // the server's answer is read as untrusted too: causes that are not a list of {field, message} are ignored
    const listed: unknown = r.body?.details?.causes;
    const causes = (Array.isArray(listed) ? listed : []).filter((c): c is { field?: unknown; message: string } => typeof c === 'object' && c !== null && typeof c.message === 'string');
    const at = (field: unknown) => (typeof field === 'string' && field !== '' ? `${ref}.${field}` : ref);
    if (causes.length === 0) findings.push({ file: d.file, document: d.document, kind, name, path: ref, severity: 'error', rule: 'server-rejected', message });
    for (const c of causes) findings.push({ file: d.file, document: d.document, kind, name, path: at(c.field), severity: 'error', rule: 'server-rejected', message: c.message });
  }
  return { findings, notes };
}

function statusMessage(r: { status: number; body: any }): string {
  const b = r.body;
  if (b && typeof b === 'object' && typeof b.message === 'string') return b.message;
  return typeof b === 'string' && b !== '' ? b.trim() : `HTTP ${r.status}`;
}

/** Adds the server's findings to a lint result. */
export function withServerFindings(result: LintResult, server: { findings: LintFinding[]; notes: LintNote[] }, strict?: boolean): LintResult {
  const added = strict ? server.findings.map((f) => ({ ...f, severity: 'error' as const })) : server.findings;
  const findings = [...result.findings, ...added];
  return {
    ...result,
    findings,
    notes: [...result.notes, ...server.notes],
    errors: findings.filter((f) => f.severity === 'error').length,
    warnings: findings.filter((f) => f.severity === 'warning').length,
  };
}
