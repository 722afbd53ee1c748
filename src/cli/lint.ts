import * as YAML from 'yaml';
import { checkGraphManifest, checkObjectManifest, checkRequestManifest, DynamoRelease, Finding, indexObjects, manifestModel, manifestPath, RuleId, Severity } from '../core';
import { CrdValidator } from './crd-schema';
import { LintSource } from './sources';

export { LintSource } from './sources';

/**
 * `dynamo-constructs lint`: the library's rules over manifests written by
 * hand or by other tools. DynamoGraphDeployments and
 * DynamoGraphDeploymentRequests are validated against their CRD schema and
 * checked by the same rules the constructs run; claims by the claim rules;
 * other Kubernetes objects are validated with `kubernetes-models` when it is
 * installed, or skipped with a note.
 */

export interface LintOptions {
  /** The CRDs Dynamo objects are validated against. */
  readonly crds: CrdValidator;
  /** Report warnings as errors. */
  readonly strict?: boolean;
  /**
   * Check every manifest as this Dynamo release will run it (an upgrade target).
   * @default - the release each manifest's images name
   */
  readonly release?: DynamoRelease;
  /**
   * Validates a core Kubernetes object: its problems, or undefined when the
   * kind is unknown. Defaults to `kubernetes-models` when installed.
   */
  readonly validateKubernetes?: (obj: Record<string, unknown>) => string[] | undefined;
}

/** One problem, located in a file. */
export interface LintFinding {
  readonly file: string;
  /** 1-based index of the YAML document in the file. */
  readonly document?: number;
  readonly kind?: string;
  readonly name?: string;
  /** Where in the object: `Service.field` for a graph's services, a field path otherwise. */
  readonly path: string;
  readonly severity: Severity;
  readonly rule: RuleId;
  readonly message: string;
}

/** Something lint did not check, and why. */
export interface LintNote {
  readonly file: string;
  readonly document?: number;
  readonly message: string;
}

export interface LintResult {
  readonly files: readonly string[];
  readonly findings: readonly LintFinding[];
  readonly notes: readonly LintNote[];
  readonly errors: number;
  readonly warnings: number;
}

export interface Doc {
  readonly file: string;
  readonly document: number;
  readonly object: Record<string, unknown>;
}

const DYNAMO_KINDS = new Set(['DynamoGraphDeployment', 'DynamoGraphDeploymentRequest']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nameOf(o: Record<string, unknown>): string | undefined {
  const n = isObject(o.metadata) ? o.metadata.name : undefined;
  return typeof n === 'string' ? n : undefined;
}

/** `/spec/services/Frontend/replicas` -> `Frontend.replicas`; `/spec/pvcs/0` -> `spec.pvcs[0]`. */
export function pointerToPath(pointer: string, kind: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (kind === 'DynamoGraphDeployment' && parts[0] === 'spec' && parts[1] === 'services' && parts.length > 2) parts.splice(0, 2);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}

/** Validation of core objects with `kubernetes-models`, when it is installed. */
function kubernetesModels(): ((obj: Record<string, unknown>) => string[] | undefined) | undefined {
  try {
    require.resolve('kubernetes-models/v1');
  } catch {
    return undefined;
  }
  return (obj) => {
    const apiVersion = String(obj.apiVersion);
    let models: Record<string, new (data: unknown) => { validate(): void }>;
    try {
      models = require(`kubernetes-models/${apiVersion}`);
    } catch {
      return undefined;
    }
    const Model = models[String(obj.kind)];
    if (typeof Model !== 'function') return undefined;
    try {
      new Model(obj).validate();
      return [];
    } catch (e) {
      return String((e as Error).message)
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '');
    }
  };
}

/** Splits sources into documents, reporting what is not YAML or not a Kubernetes object. */
export function parseDocuments(sources: readonly LintSource[], findings: LintFinding[]): Doc[] {
  const docs: Doc[] = [];
  for (const { file, text } of sources) {
    const lines = new YAML.LineCounter();
    // merge keys (`<<: *defaults`) as kubectl reads them
    YAML.parseAllDocuments(text, { lineCounter: lines, merge: true }).forEach((doc, i) => {
      const document = i + 1;
      if (doc.errors.length > 0) {
        for (const e of doc.errors) {
          const pos = lines.linePos(e.pos[0]);
          findings.push({ file, document, path: `line ${pos.line}:${pos.col}`, severity: 'error', rule: 'yaml-syntax', message: e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '') });
        }
        return;
      }
      let value: unknown;
      try {
        value = doc.toJS({ maxAliasCount: 1000 });
      } catch (e) {
        findings.push({ file, document, path: `document ${document}`, severity: 'error', rule: 'yaml-syntax', message: String((e as Error).message).split('\n')[0] });
        return;
      }
      if (value === null || value === undefined) return;
      if (!isObject(value) || typeof value.apiVersion !== 'string' || typeof value.kind !== 'string') {
        findings.push({ file, document, path: `document ${document}`, severity: 'error', rule: 'yaml-syntax', message: 'is not a Kubernetes object: it needs apiVersion and kind' });
        return;
      }
      if (value.kind === 'List' && Array.isArray(value.items)) {
        value.items.filter(isObject).forEach((item) => docs.push({ file, document, object: item }));
      } else {
        docs.push({ file, document, object: value });
      }
    });
  }
  return docs;
}

/** Lints manifests. Every source is parsed first, so that references across files resolve. */
export function lintSources(sources: readonly LintSource[], options: LintOptions): LintResult {
  const findings: LintFinding[] = [];
  const notes: LintNote[] = [];
  const docs = parseDocuments(sources, findings);
  const objects = docs.map((d) => d.object);
  const index = indexObjects(objects);
  const validateKubernetes = options.validateKubernetes ?? kubernetesModels();
  const dynamoPerFile = new Map<string, number>();
  for (const d of docs) if (DYNAMO_KINDS.has(String(d.object.kind))) dynamoPerFile.set(d.file, (dynamoPerFile.get(d.file) ?? 0) + 1);
  let missingModelsNoted = false;

  for (const d of docs) {
    const kind = String(d.object.kind);
    const name = nameOf(d.object);
    const ref = `${kind}/${name ?? '(unnamed)'}`;
    const dynamo = DYNAMO_KINDS.has(kind);
    // a graph's findings read `Service.field`; when a file holds several objects, name the object too
    const named = !dynamo || (dynamoPerFile.get(d.file) ?? 0) > 1;
    const add = (path: string, rule: RuleId, severity: Severity, message: string) =>
      findings.push({ file: d.file, document: d.document, kind, name, path: named || path === '' ? (path === '' ? ref : `${ref}.${path}`) : path, severity, rule, message });
    const addFindings = (found: readonly Finding[]) => found.forEach((f) => add(manifestPath(f), f.rule, f.severity, f.message));

    if (dynamo) {
      if (!options.crds.knows(kind)) {
        notes.push({ file: d.file, document: d.document, message: `${ref}: skipped: no CRD for ${kind} was given` });
        continue;
      }
      const schemaErrors = options.crds.errors(d.object);
      if (!schemaErrors) {
        notes.push({
          file: d.file,
          document: d.document,
          message: `${ref}: skipped: ${String(d.object.apiVersion)} is not a version of the CRD (${options.crds.apiVersions(kind).join(', ')}); pass the cluster's CRDs with --crds`,
        });
        continue;
      }
      const found = kind === 'DynamoGraphDeployment' ? checkGraphManifest(d.object, objects, { release: options.release }) : checkRequestManifest(d.object, { release: options.release });
      // where a rule finds a field wrong, its message says more than the schema's
      const ruled = new Set(found.filter((f) => f.severity === 'error').map(manifestPath));
      for (const e of schemaErrors) {
        const path = pointerToPath(e.pointer, kind);
        if (!ruled.has(path)) add(path, 'crd-schema', 'error', e.message);
      }
      addFindings(found);
      if (kind === 'DynamoGraphDeployment') {
        for (const s of manifestModel(d.object, index, { release: options.release }).services) {
          if (s.engine === 'trtllm' && s.launch.flags.has('--extra-engine-args') && !s.engineConfig) {
            notes.push({
              file: d.file,
              document: d.document,
              message: `${ref}: ${s.name}: its engine config (--extra-engine-args) is not in a ConfigMap among the files, so its KV block size, dtype and parallelism are not checked`,
            });
          }
        }
      }
      continue;
    }

    if (!validateKubernetes) {
      if (!missingModelsNoted) notes.push({ file: d.file, message: 'core Kubernetes objects are not validated: install kubernetes-models to validate them' });
      missingModelsNoted = true;
    } else {
      const errors = validateKubernetes(d.object);
      if (errors === undefined) notes.push({ file: d.file, document: d.document, message: `${ref}: skipped: ${String(d.object.apiVersion)} ${kind} is not a kind lint validates` });
      else {
        for (const e of errors) {
          // kubernetes-models says `data/spec/ports/0/port must be integer`
          const m = /^data(\/\S*)? (.*)$/.exec(e);
          if (m) add(pointerToPath(m[1] ?? '', kind), 'kubernetes-schema', 'error', m[2]);
          else add('', 'kubernetes-schema', 'error', e);
        }
      }
    }
    addFindings(checkObjectManifest(d.object));
  }

  const final = options.strict ? findings.map((f) => ({ ...f, severity: 'error' as const })) : findings;
  return {
    files: sources.map((s) => s.file),
    findings: final,
    notes,
    errors: final.filter((f) => f.severity === 'error').length,
    warnings: final.filter((f) => f.severity === 'warning').length,
  };
}

/** One line per finding: `file: Service.field: message [rule]`, warnings marked. */
export function formatText(result: LintResult): string {
  return result.findings
    .map((f) => `${f.file}: ${f.path}: ${f.severity === 'warning' ? 'warning: ' : ''}${f.message} [${f.rule}]\n`)
    .join('');
}

export function formatJson(result: LintResult): string {
  return `${JSON.stringify(
    {
      findings: result.findings,
      notes: result.notes,
      summary: { files: result.files.length, errors: result.errors, warnings: result.warnings },
    },
    null,
    2,
  )}\n`;
}
