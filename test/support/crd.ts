import * as fs from 'fs';
import * as path from 'path';
import { CrdValidator, loadCrds } from '../../src/cli/lint/crd-schema';

/**
 * Validates objects against Dynamo's upstream CRD schemas in ../shared/dynamo/crds,
 * the way the API server would: unknown fields rejected (structural schema),
 * int-or-string honoured, list-map keys unique, and the CRDs' CEL rules checked.
 * Library output may carry no metadata beyond name, namespace, labels and annotations.
 */

export const CRD_DIR = path.resolve(__dirname, '../../../shared/dynamo/crds');
/** The Dynamo 1.x CRDs (v1beta1 served and stored; the v1alpha1 they still serve is the 1.x one). */
export const CRD_V1BETA1_DIR = path.resolve(__dirname, '../../../shared/dynamo/crds-v1beta1');

const DYNAMO_KINDS = ['DynamoGraphDeployment', 'DynamoGraphDeploymentRequest'];

const validators = new Map<string, CrdValidator>();

function validatorOf(dir: string): CrdValidator {
  const cached = validators.get(dir);
  if (cached) return cached;
  if (!fs.existsSync(dir)) {
    throw new Error(`Dynamo CRDs not found at ${dir}; the tests read the CRDs from ../shared/dynamo/${path.basename(dir)}`);
  }
  const crds = loadCrds(dir);
  for (const kind of DYNAMO_KINDS) {
    if (!crds.some((c) => c.kind === kind)) throw new Error(`no CRD for ${kind} in ${dir}`);
  }
  const validator = new CrdValidator(crds, { strictMetadata: true });
  validators.set(dir, validator);
  return validator;
}

/** The validator for Dynamo 0.8/0.9's CRDs (v1alpha1); fails clearly when ../shared is missing. */
export function dynamoCrds(): CrdValidator {
  return validatorOf(CRD_DIR);
}

/** The validator for Dynamo 1.x's CRDs (v1beta1). */
export function dynamoV1beta1Crds(): CrdValidator {
  return validatorOf(CRD_V1BETA1_DIR);
}

let both: CrdValidator | undefined;

/** What `dynamo-constructs lint` bundles: v1alpha1 from 0.9's CRDs, v1beta1 from 1.x's. */
export function lintCrds(): CrdValidator {
  validatorOf(CRD_DIR);
  validatorOf(CRD_V1BETA1_DIR);
  both ??= new CrdValidator([...loadCrds(CRD_DIR), ...loadCrds(CRD_V1BETA1_DIR)]);
  return both;
}

/**
 * Returns the schema violations of a DGD or DGDR, against the CRDs of the
 * releases that write its API version; an empty list means valid.
 */
export function crdErrors(obj: any): string[] {
  if (!isDynamoKind(obj)) throw new Error(`no Dynamo CRD for kind ${obj?.kind}`);
  const crds = obj?.apiVersion === 'nvidia.com/v1beta1' ? dynamoV1beta1Crds() : dynamoCrds();
  const errors = crds.errors(obj);
  if (!errors) throw new Error(`${obj.kind} apiVersion ${obj.apiVersion} is not served by the CRD (${crds.apiVersions(obj.kind).join(', ')})`);
  return errors.map((e) => `${e.pointer || '/'}: ${e.message}`);
}

export function isDynamoKind(obj: any): boolean {
  return DYNAMO_KINDS.includes(obj?.kind);
}

/**
 * A small CRD of a kind no test lints: what the command line compiles when what a test checks does
 * not depend on the CRDs (compiling Dynamo's costs seconds per run).
 */
export const SMALL_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  names: { kind: Widget, plural: widgets }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object } }
`;
