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

/** Tools that declare they stay on the host side (Tool.runsOn says why that is safe). */
export function runsOnHost(tool: Pick<Tool, 'runsOn'>): boolean {
  return tool.runsOn === 'host';
}
