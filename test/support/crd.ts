import * as fs from 'fs';
import * as path from 'path';
import Ajv, { ValidateFunction } from 'ajv';
import * as YAML from 'yaml';

/**
 * Validates objects against Dynamo's upstream CRD schemas in ../shared/dynamo/crds,
 * the way the API server would: unknown fields rejected (structural schema),
 * int-or-string honoured, list-map keys unique, and the CRDs' CEL rules checked.
 */

export const CRD_DIR = path.resolve(__dirname, '../../../shared/dynamo/crds');

const CRD_FILES: Record<string, string> = {
  DynamoGraphDeployment: 'nvidia.com_dynamographdeployments.yaml',
  DynamoGraphDeploymentRequest: 'nvidia.com_dynamographdeploymentrequests.yaml',
};

type Schema = Record<string, any>;

function loadCrd(kind: string): { group: string; versions: Record<string, Schema> } {
  const file = path.join(CRD_DIR, CRD_FILES[kind]);
  if (!fs.existsSync(file)) {
    throw new Error(`Dynamo CRD for ${kind} not found at ${file}; the tests read the CRDs from ../shared/dynamo/crds`);
  }
  const crd = YAML.parse(fs.readFileSync(file, 'utf8'));
  const versions: Record<string, Schema> = {};
  for (const v of crd.spec.versions) versions[v.name] = v.schema.openAPIV3Schema;
  return { group: crd.spec.group, versions };
}

/** Turns a Kubernetes structural schema into a JSON schema ajv can enforce. */
function structural(schema: Schema): Schema {
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
    // the API server prunes unknown fields; a generator that emits them has a bug
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

let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

function getAjv(): Ajv {
  if (ajv) return ajv;
  ajv = new Ajv({ allErrors: true, strict: false });
  for (const f of ['int32', 'int64', 'date-time', 'byte', 'double', 'float']) ajv.addFormat(f, true);
  ajv.addKeyword({
    keyword: 'uniqueListMapKeys',
    type: 'array',
    schemaType: 'array',
    validate: function check(keys: string[], data: any[]) {
      const seen = new Set<string>();
      for (const item of data) {
        const key = JSON.stringify(keys.map((k) => item?.[k]));
        if (seen.has(key)) {
          (check as any).errors = [{ keyword: 'uniqueListMapKeys', message: `duplicate entry for list-map key ${keys.join(',')}=${key}`, params: {} }];
          return false;
        }
        seen.add(key);
      }
      return true;
    },
    errors: true,
  });
  return ajv;
}

function validatorFor(kind: string, apiVersion: string): ValidateFunction {
  const key = `${kind}@${apiVersion}`;
  let v = validators.get(key);
  if (!v) {
    const crd = loadCrd(kind);
    const [group, version] = apiVersion.split('/');
    if (group !== crd.group || !crd.versions[version]) {
      throw new Error(`${kind} apiVersion ${apiVersion} is not served by the CRD (group ${crd.group}, versions ${Object.keys(crd.versions).join(', ')})`);
    }
    const schema = structural(crd.versions[version]);
    // ObjectMeta is validated by the API server itself, not by the CRD schema.
    schema.properties.metadata = {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1 },
        namespace: { type: 'string' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        annotations: { type: 'object', additionalProperties: { type: 'string' } },
      },
      additionalProperties: false,
    };
    v = getAjv().compile(schema);
    validators.set(key, v);
  }
  return v;
}

/** CEL rules of the saved CRDs, evaluated by hand (there is one). */
function celErrors(obj: any): string[] {
  const errors: string[] = [];
  if (obj.kind === 'DynamoGraphDeployment') {
    (obj.spec?.pvcs ?? []).forEach((p: any, i: number) => {
      if (p.create === true && !(p.size !== undefined && p.storageClass !== undefined && p.volumeAccessMode !== undefined)) {
        errors.push(`/spec/pvcs/${i}: When create is true, size, storageClass, and volumeAccessMode are required`);
      }
    });
  }
  return errors;
}

/** Returns the schema violations of a DGD or DGDR; an empty list means valid. */
export function crdErrors(obj: any): string[] {
  if (!CRD_FILES[obj?.kind]) throw new Error(`no Dynamo CRD for kind ${obj?.kind}`);
  const validate = validatorFor(obj.kind, obj.apiVersion);
  const ok = validate(obj);
  const errors = ok ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message}${e.params && (e.params as any).additionalProperty ? ` (${(e.params as any).additionalProperty})` : ''}`);
  return [...errors, ...celErrors(obj)];
}

export function isDynamoKind(obj: any): boolean {
  return !!CRD_FILES[obj?.kind];
}
