/**
 * JSON-RPC 2.0 framing, independent of transport and of CKP: one text frame in (a message or a
 * batch), at most one text frame out. Parse errors, batches, notifications, responses to our
 * own requests, and malformed or non-object requests are handled as the JSON-RPC 2.0
 * specification says; what a method means is the handler's business.
 */

import { CKP_ERRORS } from '../ckp/index.js';
import { categoryOfCkpCode, ckpCodeOf, PincerError } from '../errors.js';

export type JsonRpcId = string | number | null;

export interface JsonRpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorBody };

/** A protocol error a handler throws: it becomes the `error` member of the response. */
export class RpcError extends PincerError {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(categoryOfCkpCode(code), message);
  }

  override get ckpCode(): number {
    return this.code;
  }
}

export interface RpcHandler {
  /** A request (it has an id): resolves to the result or throws an RpcError. */
  request(method: string, params: unknown, id: string | number | null): Promise<unknown>;
  /** A notification: never answered, whatever happens. */
  notification(method: string, params: unknown): void;
  /** A response to a request this side sent. */
  response(id: JsonRpcId, outcome: { result: unknown } | { error: JsonRpcErrorBody }): void;
}

/**
 * Most members a batch may have: the whole batch is refused before any member is handled, so
 * one frame cannot fan out into millions of answers (the frame itself is bounded by transports).
 */
export const MAX_BATCH = 64;

/** Largest answer frame sent: members past it get an error for their id instead. */
export const MAX_REPLY_BYTES = 8 * 1024 * 1024;

export function errorResponse(id: JsonRpcId, error: JsonRpcErrorBody): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error };
}

/** Answers one frame; undefined when there is nothing to send (notifications, responses). */
export async function answerFrame(text: string, handler: RpcHandler): Promise<string | undefined> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (error) {
    return JSON.stringify(
      errorResponse(null, {
        code: CKP_ERRORS.parseError,
        message: 'Parse error: the frame is not valid JSON',
        data: { detail: (error as Error).message },
      }),
    );
  }
  if (Array.isArray(message)) {
    if (message.length === 0) return JSON.stringify(invalid(null, 'an empty batch'));
    if (message.length > MAX_BATCH)
      return JSON.stringify(invalid(null, `a batch is limited to ${MAX_BATCH} messages`));
    // Members run concurrently; JSON-RPC lets the answers come in any order.
    const answers = await Promise.all(message.map((member) => answerMessage(member, handler)));
    const sent = answers.filter((answer): answer is JsonRpcResponse => answer !== undefined);
    return sent.length ? boundedBatch(sent) : undefined;
  }
  const answer = await answerMessage(message, handler);
  if (!answer) return undefined;
  const reply = JSON.stringify(answer);
  return Buffer.byteLength(reply) > MAX_REPLY_BYTES
    ? JSON.stringify(tooLargeReply(answer.id, 'this answer'))
    : reply;
}

/** The batch's answers in order while they fit the reply bound; past it, an error each. */
function boundedBatch(answers: JsonRpcResponse[]): string {
  // Room for the errors that may follow, so the frame as a whole stays under the bound.
  let room = MAX_REPLY_BYTES - answers.length * 256;
  const parts = answers.map((answer) => {
    const text = JSON.stringify(answer);
    const size = Buffer.byteLength(text) + 1;
    if (size <= room) {
      room -= size;
      return text;
    }
    return JSON.stringify(tooLargeReply(answer.id, "the batch's answers"));
  });
  return `[${parts.join(',')}]`;
}

function tooLargeReply(id: JsonRpcId, what: string): JsonRpcResponse {
  return errorResponse(id, {
    code: CKP_ERRORS.internalError,
    message: `Internal error: ${what} would pass ${MAX_REPLY_BYTES} bytes, the largest reply sent; ask for less or send this request alone`,
  });
}

function invalid(id: JsonRpcId, why: string): JsonRpcResponse {
  return errorResponse(id, {
    code: CKP_ERRORS.invalidRequest,
    message: `Invalid request: ${why}`,
  });
}

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === 'string' || Number.isFinite(value);
}

async function answerMessage(
  message: unknown,
  handler: RpcHandler,
): Promise<JsonRpcResponse | undefined> {
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return invalid(null, 'a message is a JSON object');
  const m = message as Record<string, unknown>;
  const id = 'id' in m && isId(m.id) ? m.id : null;
  if ('id' in m && !isId(m.id)) return invalid(null, 'id is a string, a number or null');
  if (m.jsonrpc !== '2.0') return invalid(id, 'jsonrpc must be "2.0"');
  if (!('method' in m)) {
    // A response to one of our requests: never answered.
    if ('id' in m && ('result' in m || 'error' in m)) {
      handler.response(
        id,
        'error' in m ? { error: m.error as JsonRpcErrorBody } : { result: m.result },
      );
      return undefined;
    }
    return invalid(id, 'a request names its method');
  }
  if (typeof m.method !== 'string') return invalid(id, 'method is a string');
  if ('params' in m && (typeof m.params !== 'object' || m.params === null))
    return invalid(id, 'params is an object or an array when present');
  if (!('id' in m)) {
    try {
      handler.notification(m.method, m.params);
    } catch {
      // A notification is never answered, not even with an error.
    }
    return undefined;
  }
  try {
    return { jsonrpc: '2.0', id, result: await handler.request(m.method, m.params, id) };
  } catch (error) {
    if (error instanceof RpcError) {
      return errorResponse(id, {
        code: error.code,
        message: error.message,
        ...(error.data !== undefined ? { data: error.data } : {}),
      });
    }
    // Any other PincerError answers with its code (by type); anything else is internal.
    const code = ckpCodeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    return errorResponse(id, {
      code,
      message: code === CKP_ERRORS.internalError ? `Internal error: ${message}` : message,
    });
  }
}
