import { Findings } from './findings';
import { GraphModel } from './graph-model';

/** Pod settings that give a Dynamo pod more of the node than serving needs. */
export function podSecurityRules(_g: GraphModel, _f: Findings): void {}
