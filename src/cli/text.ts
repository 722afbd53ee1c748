/**
 * Text from manifests and the processes they configure, made safe to print: control characters
 * (terminal escape sequences among them) are shown as escapes, never sent to the terminal.
 */
export function printable(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code === 0x1b ? '\\e' : code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
