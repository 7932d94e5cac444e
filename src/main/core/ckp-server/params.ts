/**
 * The params of every CKP 0.2.0 method the agent receives (§9.3), exactly as the specification
 * lists them: required fields required, unknown fields allowed (a MINOR version may add
 * optional ones). A mismatch is -32602 with the issues as data.
 */
import { z } from 'zod';
import { CKP_ERRORS } from '../ckp/index.js';
import { RpcError } from './jsonrpc.js';

const requestContext = z.looseObject({ request_id: z.string().min(1) });

export const initializeParams = z.looseObject({
  protocolVersion: z.string().min(1),
  clientInfo: z.looseObject({ name: z.string().min(1), version: z.string().min(1) }),
  manifest: z.union([z.string().startsWith('claw://'), z.looseObject({})]),
  capabilities: z.looseObject({
    tools: z.looseObject({}).optional(),
    swarm: z.looseObject({}).optional(),
    memory: z.looseObject({}).optional(),
  }),
});

export const emptyParams = z.looseObject({});

export const shutdownParams = z.looseObject({
  reason: z.string().optional(),
  timeout_ms: z.number().int().min(0).optional(),
});

export const toolCallParams = z.looseObject({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
  context: requestContext.extend({
    identity: z.string().min(1),
    sandbox: z.string().optional(),
    policy: z.string().optional(),
  }),
});

export const approvalParams = z.looseObject({
  request_id: z.string().min(1),
  reason: z.string().optional(),
});

export const delegateParams = z.looseObject({
  task_id: z.string().min(1),
  task: z.looseObject({ description: z.string().min(1), input: z.unknown().optional() }),
  context: requestContext.extend({ swarm: z.string().min(1) }),
});

export const reportParams = z.looseObject({
  task_id: z.string().min(1),
  status: z.enum(['completed', 'failed', 'partial']),
  result: z.unknown().refine((value) => value !== undefined, 'result is required'),
  token_usage: z.number().int().min(0).optional(),
  duration_ms: z.number().min(0).optional(),
});

export const broadcastParams = z.looseObject({ swarm: z.string().min(1), message: z.unknown() });

export const discoverParams = z.looseObject({ swarm: z.string().optional() });

export const memoryQueryParams = z.looseObject({
  store: z.string().min(1),
  query: z.discriminatedUnion('type', [
    z.looseObject({
      type: z.literal('semantic'),
      text: z.string().min(1),
      top_k: z.number().int().positive().optional(),
    }),
    z.looseObject({
      type: z.literal('key'),
      key: z.string().min(1),
      top_k: z.number().int().positive().optional(),
    }),
    z.looseObject({
      type: z.literal('time-range'),
      time_range: z.looseObject({ from: z.iso.datetime(), to: z.iso.datetime() }),
      top_k: z.number().int().positive().optional(),
    }),
  ]),
});

export const memoryStoreParams = z.looseObject({
  store: z.string().min(1),
  entries: z
    .array(
      z.looseObject({
        content: z.union([z.string(), z.looseObject({})]),
        key: z.string().optional(),
        metadata: z.looseObject({}).optional(),
      }),
    )
    .min(1),
  context: requestContext,
});

export const memoryCompactParams = z.looseObject({ store: z.string().min(1) });

/** The params, checked; a mismatch is -32602 naming each problem and where it is. */
export function parseParams<T>(schema: z.ZodType<T>, params: unknown, method: string): T {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  throw new RpcError(CKP_ERRORS.invalidParams, `Invalid params for ${method}`, {
    issues: parsed.error.issues.map((issue) => ({
      path: issue.path.join('.') || '(params)',
      message: issue.message,
    })),
  });
}
