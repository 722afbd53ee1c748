/**
 * Text from manifests, file names and the processes a manifest configures, made safe to print:
 * control characters, line and paragraph separators and bidirectional overrides become escapes
 * (`\x1b`, `\n`, `\u202e`), so an ANSI sequence in a name is shown, not run. Escaping twice
 * changes nothing.
 */

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
// in JSON.stringify's output only these are left raw
const UNPRINTABLE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One line: newlines escaped too, so that a name cannot forge a line of output. */
export function printableLine(text: string): string {
  return text.replace(UNPRINTABLE, (c) => SHORT[c] ?? (c < '\u0080' ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : unicodeEscape(c)));
}

/** Several lines (a log excerpt, a message with a list): each line escaped, the line breaks kept. */
export function printable(text: string): string {
  return text.split('\n').map(printableLine).join('\n');
}

/** JSON text with what JSON.stringify leaves raw (C1 controls, separators, bidirectional overrides) escaped. */
export function printableJson(json: string): string {
  return json.replace(UNPRINTABLE_IN_JSON, unicodeEscape);
}
