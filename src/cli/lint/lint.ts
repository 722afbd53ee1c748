import * as YAML from 'yaml';
import { checkGraphManifest, checkObjectManifest, checkRequestManifest, DynamoRelease, Finding, indexObjects, manifestModel, manifestPath, RuleId, Severity } from '../../core/internal';
import { CrdValidator } from './crd-schema';
import { LintSource, UnreadFile } from '../sources';
import { printableJson, printableLine } from '../text';

export { LintSource, UnreadFile } from '../sources';

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
  /** Paths given or met that were not read (`collectSources`): each is a `file-not-read` finding, reported first. */
  readonly unread?: readonly UnreadFile[];
}

/** The rules of the catalog, and the one lint adds for the files it does not read. */

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

/** Nesting deeper than this is refused: real manifests stay under 40 levels (the Dynamo CRDs reach 37). */
export const MAX_YAML_DEPTH = 256;
/** Aliases may expand a file to this many times its size, in nodes and characters... */
export const ALIAS_EXPANSION_FACTOR = 10;
/** ...and to at least this much, so that small files use anchors freely. */
export const ALIAS_EXPANSION_FLOOR = 1024 * 1024;

/** A document lint does not convert, located at the node that shows why. */
class Refused extends Error {
  constructor(
    message: string,
    readonly offset: number | undefined,
  ) {
    super(message);
  }
}

/**
 * YAML nodes to plain data, as `Document.toJS` does (merge keys, `__proto__` kept an own key),
 * in time linear in the nodes, with bounds `toJS` does not have. The YAML library resolves each
 * alias by scanning the document, counts the aliases nested in an anchor by scanning it again for
 * each, and checks each mapping key against every key before it, so that a crafted file of a few
 * hundred kilobytes takes minutes; here an alias reuses the value of its anchor, and keys are
 * checked against a set. The values aliases stand for are counted against a budget of the file (a
 * billion-laughs bomb is refused before anything walks it); an alias inside its own anchor (a
 * cycle) and nesting past MAX_YAML_DEPTH are refused.
 */
class Converter {
  /** Anchors in document order: an alias names the last node anchored so before it. */
  private readonly anchors = new Map<string, YAML.Node>();
  private readonly values = new Map<YAML.Node, { readonly value: unknown; readonly size: number }>();
  private readonly open = new Set<YAML.Node>();

  /**
   * @param limit what the whole file may expand to
   * @param budget what is left of it for this document
   */
  constructor(
    private readonly limit: number,
    private budget: number,
  ) {}

  get remaining(): number {
    return this.budget;
  }

  /** The value of `node` and its size in nodes and characters, aliases expanded. */
  convert(node: unknown, depth: number): { value: unknown; size: number } {
    if (depth > MAX_YAML_DEPTH) throw new Refused(`nests deeper than ${MAX_YAML_DEPTH} levels`, offsetOf(node));
    if (YAML.isAlias(node)) {
      const source = this.anchors.get(node.source);
      if (source === undefined) throw new Refused(`alias *${node.source} names no anchor before it`, offsetOf(node));
      if (this.open.has(source)) throw new Refused(`alias *${node.source} is inside the node it names: a recursive value no Kubernetes object can hold`, offsetOf(node));
      const done = this.values.get(source)!;
      this.charge(done.size, node);
      return done;
    }
    if (!YAML.isNode(node)) return { value: node ?? null, size: 1 };
    if (node.anchor) this.anchors.set(node.anchor, node);
    this.open.add(node);
    let result: { value: unknown; size: number };
    if (YAML.isMap(node)) result = this.map(node, depth);
    else if (YAML.isSeq(node)) {
      const items: unknown[] = [];
      let size = 1;
      this.charge(1, node);
      for (const item of node.items) {
        const c = this.convert(item, depth + 1);
        items.push(c.value);
        size += c.size;
      }
      result = { value: items, size };
    } else {
      const v = (node as YAML.Scalar).value;
      const value = typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.toJSON() : v;
      const size = 1 + (typeof value === 'string' ? value.length : 0);
      this.charge(size, node);
      result = { value, size };
    }
    this.open.delete(node);
    if (node.anchor) this.values.set(node, result);
    return result;
  }

  private map(node: YAML.YAMLMap, depth: number): { value: unknown; size: number } {
    const map: Record<string, unknown> = {};
    const keys = new Set<string>();
    let size = 1;
    this.charge(1, node);
    for (const pair of node.items) {
      const key = pair.key;
      if (YAML.isScalar(key) && typeof key.value === 'symbol' && key.value.description === '<<') {
        // merge keys, as kubectl reads them: each source map adds the keys not set already
        const value = this.convert(pair.value, depth + 1);
        size += value.size;
        const sources = YAML.isSeq(resolved(pair.value, this.anchors)) ? (value.value as unknown[]) : [value.value];
        for (const s of sources) {
          if (typeof s !== 'object' || s === null || Array.isArray(s)) throw new Refused('a merge key (<<) takes a mapping or a list of mappings', offsetOf(pair.value));
          for (const [k, v] of Object.entries(s)) if (!Object.prototype.hasOwnProperty.call(map, k)) define(map, k, v);
        }
        continue;
      }
      const k = this.convert(key, depth + 1);
      if (typeof k.value === 'object' && k.value !== null) throw new Refused('a mapping key is a list or a mapping: Kubernetes objects have string keys', offsetOf(key));
      const v = this.convert(pair.value, depth + 1);
      size += k.size + v.size;
      const name = k.value === null ? '' : String(k.value);
      if (keys.has(name)) throw new Refused(`Map keys must be unique: ${JSON.stringify(name)} is set twice`, offsetOf(key));
      keys.add(name);
      if (name in map) define(map, name, v.value);
      else map[name] = v.value;
    }
    return { value: map, size };
  }

  private charge(size: number, node: unknown): void {
    this.budget -= size;
    if (this.budget < 0) {
      throw new Refused(
        `aliases expand the file past ${this.limit} nodes and characters (${ALIAS_EXPANSION_FACTOR} times its size, at least ${ALIAS_EXPANSION_FLOOR}): a YAML bomb is not expanded`,
        offsetOf(node),
      );
    }
  }
}

/** A key set as an own property: `__proto__` stays a key, not the object's prototype. */
function define(map: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
}

function resolved(node: unknown, anchors: ReadonlyMap<string, YAML.Node>): unknown {
  return YAML.isAlias(node) ? anchors.get(node.source) : node;
}

function offsetOf(node: unknown): number | undefined {
  return YAML.isNode(node) && node.range ? node.range[0] : undefined;
}

/**
 * Splits sources into documents: the Kubernetes objects they hold (a `List` gives its items), and
 * a `yaml-syntax` finding for each document that is not YAML, not a Kubernetes object, or past the
 * bounds (aliases that expand the file more than ALIAS_EXPANSION_FACTOR times, at least
 * ALIAS_EXPANSION_FLOOR; a recursive alias; nesting past MAX_YAML_DEPTH). Time and memory are
 * linear in the text; it never throws. The one YAML reader of the commands.
 */
export function parseDocuments(sources: readonly LintSource[], findings: LintFinding[]): Doc[] {
  const docs: Doc[] = [];
  for (const { file, text } of sources) {
    const lines = new YAML.LineCounter();
    const at = (offset: number | undefined, document: number) => {
      if (offset === undefined) return `document ${document}`;
      const pos = lines.linePos(offset);
      return `line ${pos.line}:${pos.col}`;
    };
    const budget = Math.max(ALIAS_EXPANSION_FLOOR, ALIAS_EXPANSION_FACTOR * text.length);
    let remaining = budget;
    let document = 0;
    try {
      // merge keys (`<<: *defaults`) as kubectl reads them; one document held at a time; keys are
      // checked for duplicates by the Converter, in linear time
      const composer = new YAML.Composer({ merge: true, uniqueKeys: false });
      for (const doc of composer.compose(new YAML.Parser(lines.addNewLine).parse(text))) {
        document += 1;
        if (doc.errors.length > 0) {
          for (const e of doc.errors) {
            const message = /Maximum call stack size exceeded/.test(e.message) ? 'nests deeper than the YAML parser follows' : e.message.split('\n')[0];
            findings.push({ file, document, path: at(e.pos[0], document), severity: 'error', rule: 'yaml-syntax', message });
          }
          continue;
        }
        let value: unknown;
        const converter = new Converter(budget, remaining);
        try {
          value = converter.convert(doc.contents, 0).value;
          remaining = converter.remaining;
        } catch (e) {
          const refused = e instanceof Refused ? e : new Refused(`cannot be read: ${String((e as Error)?.message ?? e).split('\n')[0]}`, undefined);
          findings.push({ file, document, path: at(refused.offset, document), severity: 'error', rule: 'yaml-syntax', message: refused.message });
          continue;
        }
        if (value === null || value === undefined) continue;
        if (!isObject(value) || typeof value.apiVersion !== 'string' || typeof value.kind !== 'string') {
          findings.push({ file, document, path: `document ${document}`, severity: 'error', rule: 'yaml-syntax', message: 'is not a Kubernetes object: it needs apiVersion and kind' });
          continue;
        }
        if (value.kind === 'List' && Array.isArray(value.items)) {
          value.items.filter(isObject).forEach((item) => docs.push({ file, document, object: item }));
        } else {
          docs.push({ file, document, object: value });
        }
      }
    } catch (e) {
      // the parser's own limits, met while reading the next document: the rest of the file is not read
      findings.push({ file, document: document + 1, path: `document ${document + 1}`, severity: 'error', rule: 'yaml-syntax', message: `cannot be parsed: ${String((e as Error)?.message ?? e).split('\n')[0]}` });
    }
  }
  return docs;
}

/** Lints manifests. Every source is parsed first, so that references across files resolve. */
export function lintSources(sources: readonly LintSource[], options: LintOptions): LintResult {
  const unread = options.unread ?? [];
  const findings: LintFinding[] = unread.map((u) => ({ file: u.file, path: 'file', severity: 'error', rule: 'file-not-read', message: u.reason }));
  const notes: LintNote[] = [];
  const docs = parseDocuments(sources, findings);
  // indexed once for every graph: references resolve in constant time, so lint is linear in its input
  const index = indexObjects(docs.map((d) => d.object));
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
      const found = kind === 'DynamoGraphDeployment' ? checkGraphManifest(d.object, index, { release: options.release }) : checkRequestManifest(d.object, { release: options.release });
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
    files: [...unread.map((u) => u.file), ...sources.map((s) => s.file)],
    findings: final,
    notes,
    errors: final.filter((f) => f.severity === 'error').length,
    warnings: final.filter((f) => f.severity === 'warning').length,
  };
}

// C0 and C1 controls and DEL (ESC [ starts a terminal command; 0x9b is CSI on its own), line and
// paragraph separators, and the bidirectional overrides that make text read other than it is stored
/** One line per finding: `file: Service.field: message [rule]`, warnings marked; text from the input escaped. */
export function formatText(result: LintResult): string {
  return result.findings
    .map((f) => `${printableLine(f.file)}: ${printableLine(f.path)}: ${f.severity === 'warning' ? 'warning: ' : ''}${printableLine(f.message)} [${f.rule}]\n`)
    .join('');
}

/** The findings, notes and counts as JSON; every control character escaped (`\u001b`), the data unchanged. */
export function formatJson(result: LintResult): string {
  return `${printableJson(
    JSON.stringify(
      {
        findings: result.findings,
        notes: result.notes,
        summary: { files: result.files.length, errors: result.errors, warnings: result.warnings },
      },
      null,
      2,
    ),
  )}\n`;
}
