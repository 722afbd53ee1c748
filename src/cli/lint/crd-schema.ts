import * as fs from 'fs';
import * as path from 'path';
import type { ValidateFunction } from 'ajv';
import * as YAML from 'yaml';
import { FileNotRead, readRegularFile } from '../sources';

/**
 * Validates custom resources against their CRD's `openAPIV3Schema` the way the
 * API server does: unknown fields refused (structural schemas), int-or-string
 * honoured, list-map keys unique, and the CEL rules of Dynamo's CRDs checked.
 */

type Schema = Record<string, any>;

/** The schemas of one CRD, by version. */
export interface CrdSchemas {
  readonly group: string;
  readonly kind: string;
  readonly versions: Readonly<Record<string, Schema>>;
}

function isCrd(doc: any): boolean {
  return doc?.kind === 'CustomResourceDefinition' && typeof doc?.spec?.group === 'string' && Array.isArray(doc?.spec?.versions);
}

/** The schemas of a CustomResourceDefinition document. */
export function crdSchemas(doc: any): CrdSchemas {
  const versions: Record<string, Schema> = {};
  for (const v of doc.spec.versions) {
    if (v?.schema?.openAPIV3Schema) versions[v.name] = v.schema.openAPIV3Schema;
  }
  return { group: doc.spec.group, kind: doc.spec.names.kind, versions };
}

/** A CRD file that does not parse. */
export class CrdFileError extends Error {}

/** CRD files are read like manifests: regular files only, at most this many bytes each. */
const MAX_CRD_FILE = 64 * 1024 * 1024;

/**
 * Reads every CRD in `file` (YAML or JSON, one or many documents), or in the regular files of a
 * directory. A CRD uses no YAML aliases: a handful is allowed, an alias bomb is an error.
 */
export function loadCrds(file: string): CrdSchemas[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    throw new CrdFileError(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (stat.isDirectory()) {
    return fs
      .readdirSync(file, { withFileTypes: true })
      .filter((f) => /\.(ya?ml|json)$/.test(f.name) && (f.isFile() || f.isSymbolicLink()))
      .map((f) => f.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap((f) => loadCrds(path.join(file, f)));
  }
  let text: string;
  try {
    text = readRegularFile(fs.realpathSync(file), MAX_CRD_FILE).toString('utf8');
  } catch (e) {
    if (e instanceof FileNotRead) throw new CrdFileError(`${file}: ${e.message}`);
    throw e;
  }
  let docs: unknown[];
  try {
    docs = file.endsWith('.json') ? [JSON.parse(text)].flat() : YAML.parseAllDocuments(text).map((d) => d.toJS({ maxAliasCount: 100 }));
  } catch (e) {
    throw new CrdFileError(`${file}: not a CRD file: ${String((e as Error).message).split('\n')[0]}`);
  }
  return docs.flatMap((d: any) => (isCrd(d) ? [crdSchemas(d)] : d?.kind === 'List' && Array.isArray(d.items) ? d.items.filter(isCrd).map(crdSchemas) : []));
}

/** Turns a Kubernetes structural schema into a JSON schema ajv enforces. */
export function structural(schema: Schema): Schema {
  if (Array.isArray(schema)) return schema.map(structural) as any;
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k.startsWith('x-kubernetes-')) continue;
    if (k === 'properties') {
      out.properties = Object.fromEntries(Object.entries(v as Schema).map(([pk, pv]) => [pk, structural(pv)]));
    } else if (k === 'items' || k === 'additionalProperties' || k === 'not') {
      out[k] = typeof v === 'object' ? structural(v) : v;
    } else if (k === 'anyOf' || k === 'allOf' || k === 'oneOf') {
      out[k] = (v as Schema[]).map(structural);
    } else {
      out[k] = v;
    }
  }
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  if (schema['x-kubernetes-int-or-string'] === true && !schema.anyOf) {
    delete out.type;
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (schema.type === 'object' && !preserve && schema.additionalProperties === undefined) {
    // the API server prunes unknown fields: a manifest that has them does not say what it means
    out.additionalProperties = false;
    if (embedded && out.properties) {
      out.properties = { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, ...out.properties };
    }
  }
  if (schema.type === 'array' && schema['x-kubernetes-list-type'] === 'map' && Array.isArray(schema['x-kubernetes-list-map-keys'])) {
    out.uniqueListMapKeys = schema['x-kubernetes-list-map-keys'];
  }
  if (schema.type === 'array' && schema['x-kubernetes-list-type'] === 'set') {
    out.uniqueItems = true;
  }
  return out;
}

/** ObjectMeta is validated by the API server itself, not by the CRD schema. */
const OBJECT_META: Schema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    namespace: { type: 'string' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

/** One schema violation: a JSON pointer into the object and what is wrong there. */
export interface SchemaError {
  readonly pointer: string;
  readonly message: string;
}

/** CEL rules of Dynamo's CRDs, evaluated by hand. */
function celErrors(obj: any): SchemaError[] {
  const errors: SchemaError[] = [];
  if (obj.kind === 'DynamoGraphDeployment' && Array.isArray(obj.spec?.pvcs)) {
    obj.spec.pvcs.forEach((p: any, i: number) => {
      if (p?.create === true && !(p.size !== undefined && p.storageClass !== undefined && p.volumeAccessMode !== undefined)) {
        errors.push({ pointer: `/spec/pvcs/${i}`, message: 'When create is true, size, storageClass, and volumeAccessMode are required' });
      }
    });
  }
  return errors;
}

/** An ajv error pointed at the field it is about, in the API server's words where they differ. */
function schemaError(e: { instancePath: string; keyword: string; message?: string; params: Record<string, any> }): SchemaError {
  if (e.keyword === 'additionalProperties') {
    return { pointer: `${e.instancePath}/${String(e.params.additionalProperty)}`, message: 'is not a field of the schema: kubectl apply refuses it, or the API server drops it' };
  }
  if (e.keyword === 'required') return { pointer: `${e.instancePath}/${String(e.params.missingProperty)}`, message: 'is required' };
  return { pointer: e.instancePath, message: e.message ?? `fails ${e.keyword}` };
}

/**
 * Validates objects of the kinds of a set of CRDs. Several CRDs of one kind (two
 * releases') may be given: an object is validated against the first that serves
 * its API version.
 */
export class CrdValidator {
  private readonly crds = new Map<string, CrdSchemas[]>();
  private readonly compiled = new Map<string, ValidateFunction>();
  private ajv: any;

  /**
   * @param crds the CRDs to validate against
   * @param options `strictMetadata`: refuse metadata fields other than name, namespace, labels and annotations
   */
  constructor(crds: readonly CrdSchemas[], private readonly options: { readonly strictMetadata?: boolean } = {}) {
    for (const c of crds) this.crds.set(c.kind, [...(this.crds.get(c.kind) ?? []), c]);
  }

  /** Whether a CRD of this kind is known. */
  public knows(kind: unknown): boolean {
    return typeof kind === 'string' && this.crds.has(kind);
  }

  /** The versions known for a kind, as `group/version`. */
  public apiVersions(kind: string): string[] {
    return [...new Set((this.crds.get(kind) ?? []).flatMap((c) => Object.keys(c.versions).map((v) => `${c.group}/${v}`)))];
  }

  /**
   * Schema violations of an object, or undefined when its kind or apiVersion
   * is not among the CRDs.
   */
  public errors(obj: any): SchemaError[] | undefined {
    const validate = this.validatorFor(obj?.kind, obj?.apiVersion);
    if (!validate) return undefined;
    const errors = validate(obj) ? [] : (validate.errors ?? []).map(schemaError);
    return [...errors, ...celErrors(obj)];
  }

  private validatorFor(kind: unknown, apiVersion: unknown): ValidateFunction | undefined {
    if (typeof kind !== 'string' || typeof apiVersion !== 'string') return undefined;
    const key = `${kind}@${apiVersion}`;
    const cached = this.compiled.get(key);
    if (cached) return cached;
    const [group, version] = apiVersion.split('/');
    const crd = (this.crds.get(kind) ?? []).find((c) => c.group === group && c.versions[version] !== undefined);
    if (!crd) return undefined;
    const schema = structural(crd.versions[version]);
    schema.properties = { ...schema.properties, metadata: this.options.strictMetadata ? { ...OBJECT_META, additionalProperties: false } : OBJECT_META };
    const validate = this.getAjv().compile(schema) as ValidateFunction;
    this.compiled.set(key, validate);
    return validate;
  }

  private getAjv(): any {
    if (this.ajv) return this.ajv;
    // loaded on first use: only validation needs it
    const Ajv = require('ajv').default;
    const ajv = new Ajv({ allErrors: true, strict: false });
    // the integer formats bound numbers as the API server does when it decodes them (a replicas of 1e308 is refused)
    ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 });
    ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
    for (const f of ['date-time', 'byte', 'double', 'float']) ajv.addFormat(f, true);
    ajv.addKeyword({
      keyword: 'uniqueListMapKeys',
      type: 'array',
      schemaType: 'array',
      validate: function check(keys: string[], data: any[]) {
        const seen = new Set<string>();
        for (const item of data) {
          const key = JSON.stringify(keys.map((k) => item?.[k]));
          if (seen.has(key)) {
            const value = keys.map((k, i) => `${k} ${JSON.stringify(item?.[keys[i]])}`).join(', ');
            (check as any).errors = [{ keyword: 'uniqueListMapKeys', message: `has a second entry with ${value}; list keys must be unique`, params: {} }];
            return false;
          }
          seen.add(key);
        }
        return true;
      },
      errors: true,
    });
    this.ajv = ajv;
    return ajv;
  }
}
