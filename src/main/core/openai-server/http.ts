/** Small HTTP helpers: a bounded JSON body, JSON replies, and server-sent events. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { ApiError, invalidParam } from './errors.js';

/** Reads the whole body, refusing one larger than `limit` bytes with 413 as soon as it shows. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const tooLarge = (limit: number) =>
  new ApiError(
    413,
    'invalid_request_error',
    'request_too_large',
    `The request body is larger than ${limit} bytes`,
  );

/** Parses and validates a JSON body; the first problem becomes a 400 naming its parameter. */
export function parseJson<T>(body: Buffer, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw invalidParam(
      `The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      null,
      'invalid_json',
    );
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue?.path.length ? issue.path.join('.') : null;
  throw invalidParam(
    `Invalid request${param ? ` at ${param}` : ''}: ${issue?.message ?? 'bad value'}`,
    param,
  );
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * A server-sent-events stream, opened by its first event: an error before any output can still
 * go out as a plain status code. `event` names are used by the Responses API only.
 */
export class EventStream {
  private started = false;

  constructor(private readonly res: ServerResponse) {}

  get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  /** Whether the 200 and some events went out already. */
  get sentAny(): boolean {
    return this.started;
  }

  send(data: unknown, event?: string): void {
    if (!this.open) return;
    if (!this.started) {
      this.started = true;
      this.res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
    }
    this.res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }

  end(done = true): void {
    if (!this.open) return;
    if (done) this.res.write('data: [DONE]\n\n');
    this.res.end();
  }
}
