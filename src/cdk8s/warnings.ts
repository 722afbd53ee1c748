import { Construct } from 'constructs';
import { DynamoValidationError, ValidationWarning } from '../core/internal';

/** Options shared by the constructs that validate a whole deployment. */
export interface StrictOptions {
  /**
   * Treat validation warnings (e.g. disaggregation over TCP) as errors.
   * @default false
   */
  readonly strict?: boolean;
}

/** Metadata type of the warnings recorded on a construct's node (`node.metadata`). */
export const WARNING_METADATA = 'dynamo-constructs:warning';

/**
 * Reports warnings when the app synthesizes (`app.synth()` validates every
 * construct first): recorded on the construct's node as `WARNING_METADATA`
 * entries and printed to stderr, or thrown as errors in strict mode.
 */
export function reportWarningsOnSynth(scope: Construct, strict: boolean | undefined, warnings: () => readonly ValidationWarning[]): void {
  let printed = false;
  scope.node.addValidation({
    validate: () => {
      const found = warnings();
      if (found.length === 0) return [];
      if (strict) throw new DynamoValidationError(found);
      // cdk8s validates once for the app and once per chart; say it once.
      if (printed) return [];
      printed = true;
      for (const w of found) scope.node.addMetadata(WARNING_METADATA, { path: w.path, message: w.message, rule: w.rule });
      if (process.env.DYNAMO_CONSTRUCTS_QUIET) return [];
      for (const w of found) {
        process.stderr.write(`warning: ${scope.node.path}: ${w.path}: ${w.message} [${w.rule}]\n`);
      }
      return [];
    },
  });
}
