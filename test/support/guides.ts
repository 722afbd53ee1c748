import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';

/**
 * The guides' manifests lost their line breaks in ../shared/reference/guides.md,
 * so tests compare our output with transcriptions in test/fixtures, and check
 * each transcription against the guide's text token for token.
 */

export const GUIDES = path.resolve(__dirname, '../../../shared/reference/guides.md');

export function readGuides(): string {
  if (!fs.existsSync(GUIDES)) throw new Error(`deployment guides not found at ${GUIDES}`);
  return fs.readFileSync(GUIDES, 'utf8');
}

/** The YAML tokens of a text, ignoring layout, quotes and list markers. */
export function tokens(text: string): string[] {
  return text
    .split(/\s+/)
    .map((t) => t.replace(/^[["]+|[\]",]+$/g, ''))
    .filter((t) => t !== '' && t !== '-' && t !== '---');
}

/** The body of a `cat << EOF > file` heredoc in the guides. */
export function heredoc(guide: string, file: string): string {
  const flat = guide.replace(/\s+/g, ' ');
  const marker = [`cat << EOF > ${file}`, `cat << 'EOF' > ${file}`].find((m) => flat.includes(m));
  if (!marker) throw new Error(`heredoc for ${file} not found in ${GUIDES}`);
  const body = flat.slice(flat.indexOf(marker) + marker.length);
  return body.slice(0, body.indexOf(' EOF'));
}

export function fixturePath(name: string): string {
  return path.resolve(__dirname, '../fixtures', name);
}

/** The tokens of a fixture file, without its comment lines. */
export function fixtureTokens(name: string): string[] {
  const text = fs.readFileSync(fixturePath(name), 'utf8');
  return tokens(text.split('\n').filter((l) => !l.startsWith('#')).join('\n'));
}

export function fixtureObjects(name: string, substitutions: Record<string, string> = {}): any[] {
  let text = fs.readFileSync(fixturePath(name), 'utf8');
  for (const [k, v] of Object.entries(substitutions)) text = text.split(k).join(v);
  return YAML.parseAllDocuments(text).map((d) => d.toJS());
}

/**
 * The values a `helm install ... --set a.b=c --set-json 'x={}'` command in the
 * guides sets, with Helm's coercion: true/false and null are typed, numbers
 * that are whole or decimal become numbers, everything else a string.
 */
export function helmSetValues(command: string): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const set = (path: string, value: unknown) => {
    const parts = path.split('.');
    let at: any = values;
    for (const p of parts.slice(0, -1)) at = at[p] ??= {};
    at[parts[parts.length - 1]] = value;
  };
  const flag = /--set(-json)? '?([A-Za-z0-9_.-]+)=([^\s']+)'?/g;
  for (const m of command.matchAll(flag)) {
    const [, json, path, raw] = m;
    if (json) set(path, JSON.parse(raw));
    else if (raw === 'true' || raw === 'false') set(path, raw === 'true');
    else if (raw === 'null') set(path, null);
    else if (/^-?\d+(\.\d+)?$/.test(raw)) set(path, Number(raw));
    else set(path, raw);
  }
  return values;
}

/** The text of the guides' command that starts with `start`, up to the next numbered step. */
export function guideCommand(guide: string, start: string, end: string): string {
  const flat = guide.replace(/\s+/g, ' ');
  const i = flat.indexOf(start);
  if (i < 0) throw new Error(`command "${start}" not found in ${GUIDES}`);
  return flat.slice(i, flat.indexOf(end, i));
}
