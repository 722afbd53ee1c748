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
