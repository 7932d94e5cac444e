/**
 * Messages between the worker pool and a worker process (NDJSON over the channel, channel.ts).
 * Both ends import this file, so it stays free of libraries: the worker starts on a few KiB of
 * code, and the host's check of what a worker sends lives in from-worker.ts.
 */
import type { FilesystemScope, NetworkScope, Tool, ToolOutput } from '../tools/index.js';

/** A ToolContext without what cannot cross a process boundary (the signal, the runner). */
export interface WireContext {
  workspace: string;
  env: Record<string, string>;
  allowPrivateNetwork?: boolean;
  filesystem?: FilesystemScope;
  network?: NetworkScope;
}

export type ToWorker =
  | { type: 'run'; id: number; tool: string; input: Record<string, unknown>; context: WireContext }
  | { type: 'cancel'; id: number };

export type FromWorker =
  | { type: 'ready'; tools: string[] }
  | { type: 'result'; id: number; output: ToolOutput }
  | { type: 'failed'; id: number; message: string; toolError: boolean; code?: number };

/**
 * Tools that stay on the host side: sys/exec only parses its arguments and hands the command to
 * the backend (the command is what runs confined); memory tools only call the memory store the
 * host holds open (context.memory), touching no file or network themselves.
 */
export function runsOnHost(tool: Pick<Tool, 'name' | 'category'>): boolean {
  return tool.name === 'sys/exec' || tool.category === 'memory';
}
