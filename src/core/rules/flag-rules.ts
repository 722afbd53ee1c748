import { Findings } from './findings';
import { argField, GraphModel } from '../model/graph-model';

const ENGINE_NAMES: Readonly<Record<string, string>> = { vllm: 'vLLM', sglang: 'SGLang' };

/** Worker flags the engine's parser refuses as ambiguous abbreviations (flag-abbreviations.ts). */
export function flagRules(g: GraphModel, f: Findings): void {
  for (const s of g.services) {
    for (const a of s.ambiguousFlags) {
      const engine = ENGINE_NAMES[s.engine ?? ''] ?? s.engine;
      const version = s.engine !== undefined && s.engine !== 'mocker' ? s.release?.engines[s.engine]?.version : undefined;
      const list = a.candidates.length === 2 ? a.candidates.join(' or ') : `${a.candidates.slice(0, -1).join(', ')} or ${a.candidates[a.candidates.length - 1]}`;
      f.report(
        'ambiguous-flag',
        s,
        { field: argField(a.written), option: 'extraArgs' },
        `is no flag of ${engine}${version ? ` ${version}` : ''}, and its parser refuses it as an abbreviation: it could be ${list}. Write the flag in full`,
      );
    }
  }
}
