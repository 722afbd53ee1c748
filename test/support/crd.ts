import * as fs from 'fs';
import * as path from 'path';
import { CrdValidator, loadCrds } from '../../src/cli/crd-schema';

/**
 * Validates objects against Dynamo's upstream CRD schemas in ../shared/dynamo/crds,
 * the way the API server would: unknown fields rejected (structural schema),
 * int-or-string honoured, list-map keys unique, and the CRDs' CEL rules checked.
 * Library output may carry no metadata beyond name, namespace, labels and annotations.
 */

export const CRD_DIR = path.resolve(__dirname, '../../../shared/dynamo/crds');

const DYNAMO_KINDS = ['DynamoGraphDeployment', 'DynamoGraphDeploymentRequest'];

let validator: CrdValidator | undefined;

/** The validator for Dynamo's CRDs; fails clearly when ../shared is missing. */
export function dynamoCrds(): CrdValidator {
  if (validator) return validator;
  if (!fs.existsSync(CRD_DIR)) {
    throw new Error(`Dynamo CRDs not found at ${CRD_DIR}; the tests read the CRDs from ../shared/dynamo/crds`);
  }
  const crds = loadCrds(CRD_DIR);
  for (const kind of DYNAMO_KINDS) {
    if (!crds.some((c) => c.kind === kind)) throw new Error(`no CRD for ${kind} in ${CRD_DIR}`);
  }
  validator = new CrdValidator(crds, { strictMetadata: true });
  return validator;
}

/** Returns the schema violations of a DGD or DGDR; an empty list means valid. */
export function crdErrors(obj: any): string[] {
  if (!isDynamoKind(obj)) throw new Error(`no Dynamo CRD for kind ${obj?.kind}`);
  const errors = dynamoCrds().errors(obj);
  if (!errors) throw new Error(`${obj.kind} apiVersion ${obj.apiVersion} is not served by the CRD (${dynamoCrds().apiVersions(obj.kind).join(', ')})`);
  return errors.map((e) => `${e.pointer || '/'}: ${e.message}`);
}

export function isDynamoKind(obj: any): boolean {
  return DYNAMO_KINDS.includes(obj?.kind);
}
