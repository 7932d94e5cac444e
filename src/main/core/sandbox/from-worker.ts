/** The host's check of every line a worker sends: a worker runs tools, so it may have gone hostile. */
import { z } from 'zod';
import type { FromWorker } from './protocol.js';

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
