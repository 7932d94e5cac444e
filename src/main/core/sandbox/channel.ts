/**
 * The pool <-> worker channel: newline-delimited JSON over one extra stdio pipe (fd 3, a Unix
 * socket pair, so one descriptor carries both directions). Node's own 'ipc' channel parses the
 * worker's bytes inside Node and throws an uncaught exception on a malformed frame, so code in a
 * worker could crash the host; here the host splits and parses every line itself, with a bound
 * on its length, and turns any fault into a value.
 */
import { PincerError } from '../errors.js';

/** The worker's descriptor for the channel: the first after stdin, stdout and stderr. */
export const CHANNEL_FD = 3;

/**
 * The longest line the host accepts from a worker. Tool output is capped far below this (the
 * worker trims content past `WIRE_CONTENT_BYTES`, and JSON escaping at most sextuples it).
 */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

/** Content past this many bytes is trimmed by the worker; the host cap (≤ 1 MiB by default) cuts further. */
export const WIRE_CONTENT_BYTES = 4 * 1024 * 1024;

const NEWLINE = 0x0a;

export function encodeLine(message: unknown): string {
  // JSON.stringify escapes every newline inside strings: one message is exactly one line.
  return `${JSON.stringify(message)}\n`;
}

export class LineTooLongError extends PincerError {
  constructor(readonly maxBytes: number) {
    super('too_large', `a line longer than ${maxBytes} bytes`);
    this.name = 'LineTooLongError';
  }
}

/**
 * Splits a byte stream into lines without holding more than `maxBytes` of an unfinished one:
 * a line that grows past the bound throws at once, before the rest of it arrives.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  /** The lines this chunk completes (UTF-8 decoded, newline dropped). */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end < 0) break;
      if (this.size + end - start > this.maxBytes) throw new LineTooLongError(this.maxBytes);
      const last = chunk.subarray(start, end);
      lines.push(
        this.parts.length === 0
          ? last.toString('utf8')
          : Buffer.concat([...this.parts, last]).toString('utf8'),
      );
      this.parts = [];
      this.size = 0;
      start = end + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.size += rest.length;
      if (this.size > this.maxBytes) throw new LineTooLongError(this.maxBytes);
      this.parts.push(rest);
    }
    return lines;
  }
}
