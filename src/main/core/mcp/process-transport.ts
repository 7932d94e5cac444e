/**
 * The MCP stdio transport over a process the sandbox started (the SDK's own stdio transport
 * spawns unconfined): newline-delimited JSON-RPC on the child's stdin and stdout, its stderr
 * kept (the last lines) to explain a crash.
 *
 * Everything the server writes is hostile input, read here without the SDK's ReadBuffer (whose
 * overflow throws out of the stream listener and ends the process): lines are split with a
 * bound, a line past it disconnects the server with that reason, a line that is not a JSON-RPC
 * message is reported and skipped, and nothing thrown while handling a message (ours or the
 * SDK's) leaves the listener.
 */

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ConfinedProcess } from '../sandbox/index.js';
import { LineSplitter, LineTooLongError } from '../sandbox/index.js';

const STDERR_KEPT = 4096;

/**
 * The longest message a server may send. A tool result is cut to 256 KiB before the model reads
 * it, and a tool list this long is already far past what a model can be shown.
 */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export class ConfinedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly lines: LineSplitter;
  private stderr = '';
  private closed = false;
  private broken: string | undefined;

  constructor(
    private readonly process: ConfinedProcess,
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {
    this.lines = new LineSplitter(maxMessageBytes);
  }

  /** The end of what the server wrote to stderr (why it stopped, usually). */
  get lastStderr(): string {
    return this.stderr.trim();
  }

  /** Why Pincer disconnected the server (it broke the transport), if it did. */
  get fault(): string | undefined {
    return this.broken;
  }

  async start(): Promise<void> {
    const { child } = this.process;
    child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    // A pipe that fails is the server gone; 'close' on the child follows and reports it.
    child.stdout.on('error', (error) =>
      this.disconnect(`its output could not be read: ${error.message}`),
    );
    child.stderr.on('error', () => undefined);
    child.stdin.on('error', (error) => this.report(error));
    child.once('error', (error) => this.report(error));
    child.once('close', () => this.finish());
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed || this.broken || !this.process.child.stdin.writable) {
        reject(new Error(`the MCP server is not running${this.broken ? ` (${this.broken})` : ''}`));
        return;
      }
      this.process.child.stdin.write(`${JSON.stringify(message)}\n`, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }

  async close(): Promise<void> {
    await this.process.stop();
    this.finish();
  }

  /** Bytes from the server: untrusted. Nothing here may throw into the stream. */
  private receive(chunk: Buffer): void {
    if (this.broken || this.closed) return;
    let lines: string[];
    try {
      lines = this.lines.push(chunk);
    } catch (error) {
      const bound = error instanceof LineTooLongError ? error.maxBytes : this.maxMessageBytes;
      this.disconnect(`it wrote a message longer than ${bound} bytes, the most Pincer reads`);
      return;
    }
    for (const line of lines) {
      if (this.broken || this.closed) return;
      const text = line.endsWith('\r') ? line.slice(0, -1) : line;
      if (text.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        message = JSONRPCMessageSchema.parse(JSON.parse(text));
      } catch {
        // A server that logs to stdout by mistake is careless, not fatal: the line is skipped.
        this.report(new Error(`not a JSON-RPC message: ${JSON.stringify(text.slice(0, 60))}`));
        continue;
      }
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.report(error as Error);
      }
    }
  }

  /** The server broke the transport: it is stopped, and its connection sees it close. */
  private disconnect(why: string): void {
    if (this.broken || this.closed) return;
    this.broken = why;
    this.process.child.stdout.pause();
    void this.process.stop().finally(() => this.finish());
  }

  private report(error: Error): void {
    try {
      this.onerror?.(error);
    } catch {
      // A listener's own fault must not reach the stream.
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.onclose?.();
    } catch {
      // As in report().
    }
  }
}
