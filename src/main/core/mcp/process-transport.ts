/**
 * The MCP stdio transport over a process the sandbox started (the SDK's own stdio transport
 * spawns unconfined): newline-delimited JSON-RPC on the child's stdin and stdout, its stderr
 * kept (the last lines) to explain a crash.
 */

import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ConfinedProcess } from '../sandbox/index.js';

const STDERR_KEPT = 4096;

export class ConfinedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();
  private stderr = '';
  private closed = false;

  constructor(private readonly process: ConfinedProcess) {}

  /** The end of what the server wrote to stderr (why it stopped, usually). */
  get lastStderr(): string {
    return this.stderr.trim();
  }

  async start(): Promise<void> {
    const { child } = this.process;
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (!message) break;
        this.onmessage?.(message);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_KEPT);
    });
    child.stdin.on('error', (error) => this.onerror?.(error));
    child.once('error', (error) => this.onerror?.(error));
    child.once('close', () => this.finish());
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed || !this.process.child.stdin.writable) {
        reject(new Error('the MCP server is not running'));
        return;
      }
      this.process.child.stdin.write(serializeMessage(message), (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }

  async close(): Promise<void> {
    await this.process.stop();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
