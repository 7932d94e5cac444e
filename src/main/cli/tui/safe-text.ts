/**
 * The one place the dashboard makes hostile text printable. Ink writes strings to the terminal
 * as they are, so every string from the core (model replies, tool output, stored rows, errors)
 * passes through `safe` before it reaches an Ink <Text>: the CLI's terminal sanitizer, plus tabs
 * as spaces because Ink measures a tab as one cell.
 */
import { sanitizeTerminalText } from '../terminal-text.js';

/** Text safe to hand to Ink: newlines kept, tabs as two spaces, every other control visible. */
export function safe(text: string): string {
  return sanitizeTerminalText(text).replace(/\t/g, '  ');
}
