/**
 * The one place the dashboard makes hostile text printable. Model replies, tool output, stored
 * rows and error messages can carry escape sequences (OSC 52 writes the clipboard, CSI moves the
 * cursor), carriage returns and bidi overrides; Ink writes strings to the terminal as they are, so
 * every string from the core passes through `safe` before it reaches an Ink <Text>.
 *
 * Same rules as the CLI's terminal sanitizer (C0/C1 controls shown as their Control Pictures or
 * `\uXXXX`, CRLF kept as a newline), plus tabs as spaces because Ink measures a tab as one cell.
 */

// C0 controls except \t and \n, DEL, C1 controls, bidi embeddings/overrides/isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text safe to hand to Ink: newlines kept, tabs as two spaces, every other control visible. */
export function safe(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, visible).replace(/\t/g, '  ');
}
