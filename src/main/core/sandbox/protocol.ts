/** Messages between the worker pool and a worker process (child_process IPC, JSON). */
import type { FilesystemScope, NetworkScope, ToolOutput } from '../tools/types.js';

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
  | { type: 'failed'; id: number; message: string; toolError: boolean };

/** Tools that never run in a worker: they spawn through the backend from the host side. */
export const HOST_SIDE_TOOLS: ReadonlySet<string> = new Set(['sys/exec']);
