/** Messages between the worker pool and a worker process (NDJSON over the channel, channel.ts). */
import { z } from 'zod';
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

const callId = z.number().int().positive();

/**
 * The exact shapes the worker code sends (it normalises a tool's output first): anything else on
 * the channel was written by something else in the worker, a tool gone hostile.
 */
const fromWorker = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready'), tools: z.array(z.string()) }),
  z.strictObject({
    type: z.literal('result'),
    id: callId,
    output: z.strictObject({
      content: z.string(),
      isError: z.boolean().optional(),
      code: z.number().int().optional(),
    }),
  }),
  z.strictObject({
    type: z.literal('failed'),
    id: callId,
    message: z.string(),
    toolError: z.boolean(),
    code: z.number().int().optional(),
  }),
]);

/** One line from a worker, parsed and checked; a fault is a value naming the problem. */
export function parseFromWorker(line: string): { message: FromWorker } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { problem: `a line that is not JSON (${JSON.stringify(line.slice(0, 40))})` };
  }
  const parsed = fromWorker.safeParse(value);
  if (parsed.success) return { message: parsed.data as FromWorker };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
  return { problem: `a message of the wrong shape (${issue?.message ?? 'invalid'}${where})` };
}

/**
 * Tools that stay on the host side: sys/exec only parses its arguments and hands the command to
 * the backend (the command is what runs confined); memory tools only call the memory store the
 * host holds open (context.memory), touching no file or network themselves.
 */
export function runsOnHost(tool: Pick<Tool, 'name' | 'category'>): boolean {
  return tool.name === 'sys/exec' || tool.category === 'memory';
}
