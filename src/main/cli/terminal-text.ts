/**
 * Terminal output is hostile-input territory: model text, tool output and stored rows can carry
 * escape sequences (OSC 52 writes the clipboard, CSI moves the cursor and rewrites what was
 * shown), carriage returns that overwrite a line, and bidi overrides that reorder it. Everything
 * the CLI prints goes through one sanitizer, applied where the bytes leave (`TerminalSafeStream`),
 * so no command can forget it. The CLI's own styling goes around it with `writeControl`.
 */
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

// C0 controls except \t and \n, DEL, C1 controls, bidi embeddings/overrides/isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The character made visible instead of obeyed: a C0 control becomes its Control Picture (ESC
 * shows as ␛), DEL ␡, anything else its `\uXXXX` escape, which inside JSON output is the same
 * character again, so `--json` stays valid and lossless.
 */
function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text safe to print on a terminal: tabs and newlines kept, every other control made visible. */
export function sanitizeTerminalText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, visible);
}

/** A stream that writes sanitized text to `raw`; a split escape is harmless once ESC is gone. */
export class TerminalSafeStream extends Writable {
  private readonly decoder = new StringDecoder('utf8');

  constructor(readonly raw: NodeJS.WritableStream) {
    super({ decodeStrings: false });
  }

  get isTTY(): boolean {
    return (this.raw as { isTTY?: boolean }).isTTY === true;
  }

  override _write(
    chunk: string | Buffer,
    _encoding: BufferEncoding,
    callback: (error?: Error | null) => void,
  ): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    this.raw.write(sanitizeTerminalText(text));
    // At once, not when `raw` drains: text and `writeControl` sequences keep their order.
    callback();
  }
}

/** The stream under a sanitizing one (readline and styling need it), or `stream` itself. */
export function rawStream(stream: NodeJS.WritableStream): NodeJS.WritableStream {
  return stream instanceof TerminalSafeStream ? stream.raw : stream;
}

/** Writes one of the CLI's own control sequences (a style, a carriage return) unsanitized. */
export function writeControl(stream: NodeJS.WritableStream, sequence: string): void {
  rawStream(stream).write(sequence);
}

/**
 * Data a program reads back (a revealed secret): exact when piped, sanitized when a person reads
 * it on a terminal.
 */
export function writeData(stream: NodeJS.WritableStream, text: string): void {
  const raw = rawStream(stream);
  if ((raw as { isTTY?: boolean }).isTTY === true) stream.write(text);
  else raw.write(text);
}
