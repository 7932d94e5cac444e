/**
 * The one place the model layer touches the network: a JSON POST with a deadline for the
 * response head, an idle deadline between body chunks, cancellation that tears the socket down
 * at once, and every failure mapped onto a typed ModelError naming the provider. Provider error
 * text is redacted of the request's credentials before it reaches a message.
 *
 * Built on node:http rather than fetch: Node's fetch loads undici and web streams on first use,
 * which cost a headless turn about 100 ms and 40 MiB before its request left.
 */
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Redactor } from '../redaction/index.js';
import { ModelError, type ModelErrorCode } from './errors.js';
import type { ProviderId } from './ids.js';

export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** POST unless told (listing a server's models is a GET without a body). */
  method?: 'GET' | 'POST';
}

export interface HttpOptions {
  provider: ProviderId;
  /** Deadline for the response head (status and headers). */
  timeoutMs: number;
  /** Deadline between two body chunks; a silent stream counts as dead after this. */
  idleTimeoutMs: number;
  signal?: AbortSignal;
  /** Values that must never appear in an error (API keys). */
  secrets: string[];
}

/** Response headers, looked up without regard to case (what `Headers` offers, and enough). */
export interface ResponseHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
}

export interface OpenResponse {
  status: number;
  headers: ResponseHeaders;
  /** Body chunks; each wait is bounded by the idle deadline. */
  chunks(): AsyncGenerator<Uint8Array>;
  /** The whole body as JSON (bounded), for non-streaming calls. */
  json(maxBytes?: number): Promise<unknown>;
  /** Abort the request and release the socket; safe to call twice. */
  close(): void;
}

const ERROR_BODY_LIMIT = 64 * 1024;
const MAX_JSON_BODY = 32 * 1024 * 1024;
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
]);

export async function postJson(request: WireRequest, options: HttpOptions): Promise<OpenResponse> {
  const { provider } = options;
  const controller = new AbortController();
  let reason: 'cancelled' | 'timeout' | 'closed' | undefined;
  const abort = (why: 'cancelled' | 'timeout' | 'closed') => {
    reason ??= why;
    controller.abort();
  };
  const onCancel = () => abort('cancelled');
  if (options.signal?.aborted)
    throw new ModelError('cancelled', 'the request was cancelled', { provider });
  options.signal?.addEventListener('abort', onCancel, { once: true });
  const release = () => options.signal?.removeEventListener('abort', onCancel);

  const fail = (error: unknown, phase: 'connect' | 'body'): ModelError => {
    if (error instanceof ModelError) return error;
    if (reason === 'cancelled')
      return new ModelError('cancelled', 'the request was cancelled', { provider });
    if (reason === 'timeout') {
      const what =
        phase === 'connect'
          ? `no response within ${options.timeoutMs} ms`
          : `the stream went silent for ${options.idleTimeoutMs} ms`;
      return new ModelError('timeout', what, { provider });
    }
    const code = networkCode(error);
    if (phase === 'body') {
      return new ModelError(
        'truncated',
        `the connection closed mid-reply${code ? ` (${code})` : ''}`,
        { provider, cause: error },
      );
    }
    if (code && UNREACHABLE.has(code)) {
      return new ModelError('unreachable', `cannot reach ${origin(request.url)} (${code})`, {
        provider,
        cause: error,
      });
    }
    return new ModelError(
      'unreachable',
      `request to ${origin(request.url)} failed: ${redacted(errorText(error), options.secrets)}`,
      { provider, cause: error },
    );
  };

  let timer = setTimeout(() => abort('timeout'), options.timeoutMs);
  let response: IncomingMessage;
  try {
    response = await send(request, controller.signal);
  } catch (error) {
    clearTimeout(timer);
    release();
    throw fail(error, 'connect');
  }
  clearTimeout(timer);
  const body = decoded(response);
  // Errors reach a reader through the body's iterator; a body nobody reads must not crash.
  for (const stream of new Set<Readable>([response, body])) stream.on('error', () => {});
  const headers = headersOf(response);

  const close = () => {
    clearTimeout(timer);
    release();
    // A body that has fully arrived is drained, not aborted: its socket goes back to the pool,
    // where an abort would destroy it under the next request (or crash on its error).
    if (response.complete) response.resume();
    else if (!controller.signal.aborted) abort('closed');
  };

  async function* chunks(): AsyncGenerator<Uint8Array> {
    const reader = body[Symbol.asyncIterator]();
    try {
      while (true) {
        timer = setTimeout(() => abort('timeout'), options.idleTimeoutMs);
        let step: IteratorResult<Buffer>;
        try {
          step = await reader.next();
        } catch (error) {
          throw fail(error, 'body');
        } finally {
          clearTimeout(timer);
        }
        if (step.done) {
          // A body cut off by the server ends without an error on some Node versions.
          if (!response.complete) throw fail(new Error('the server closed early'), 'body');
          return;
        }
        yield step.value;
      }
    } finally {
      close();
    }
  }

  const readText = async (limit: number): Promise<string> => {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of chunks()) {
      size += chunk.byteLength;
      if (size > limit) {
        close();
        break;
      }
      parts.push(Buffer.from(chunk));
    }
    return Buffer.concat(parts).toString('utf8');
  };

  const status = response.statusCode ?? 0;
  if (status < 200 || status > 299) {
    const text = await readText(ERROR_BODY_LIMIT).catch(() => '');
    close();
    throw statusError(provider, { status, headers }, text, options.secrets);
  }

  return {
    status,
    headers,
    chunks,
    close,
    json: async (maxBytes = MAX_JSON_BODY) => {
      const text = await readText(maxBytes);
      try {
        return JSON.parse(text);
      } catch {
        throw new ModelError(
          'bad_response',
          `the response body is not JSON: ${preview(redacted(text, options.secrets))}`,
          { provider, status },
        );
      }
    },
  };
}

/** Sends the request; resolves with the response once its head arrived. */
function send(request: WireRequest, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const url = new URL(request.url);
    const open =
      url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
    if (!open) throw new TypeError(`${url.protocol} is not http or https`);
    const get = request.method === 'GET';
    const body = get ? undefined : Buffer.from(JSON.stringify(request.body));
    const headers: Record<string, string> = get
      ? { ...request.headers }
      : {
          'content-type': 'application/json',
          'content-length': String(body?.byteLength ?? 0),
          ...request.headers,
        };
    const outgoing = open(url, { method: get ? 'GET' : 'POST', headers, signal }, resolve);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The body with its content coding undone (a server may compress what nobody asked to). */
function decoded(response: IncomingMessage): Readable {
  const coding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? createGunzip()
      : coding === 'deflate'
        ? createInflate()
        : coding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return response;
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

function headersOf(response: IncomingMessage): ResponseHeaders {
  const value = (name: string) => {
    const found = response.headers[name.toLowerCase()];
    return Array.isArray(found) ? found.join(', ') : found;
  };
  return { get: (name) => value(name) ?? null, has: (name) => value(name) !== undefined };
}

/** Maps an HTTP error status (and the vendor's error body) onto a ModelError. */
export function statusError(
  provider: ProviderId,
  response: { status: number; headers: ResponseHeaders },
  body: string,
  secrets: string[],
): ModelError {
  const { status } = response;
  const detail = redacted(vendorMessage(body), secrets);
  const code: ModelErrorCode =
    status === 401 || status === 403
      ? 'auth'
      : status === 429
        ? 'rate_limited'
        : status >= 500
          ? 'server_error'
          : status === 408
            ? 'timeout'
            : 'rejected';
  const retryAfterMs = retryAfter(response.headers, body);
  return new ModelError(code, `HTTP ${status}${detail ? `: ${detail}` : ''}`, {
    provider,
    status,
    retryAfterMs,
  });
}

/** The human part of OpenAI, Anthropic and Gemini error bodies; raw text otherwise. */
export function vendorMessage(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    const error = field(parsed, 'error');
    const message = field(error, 'message') ?? field(parsed, 'message');
    if (typeof message === 'string') return preview(message);
    if (typeof error === 'string') return preview(error);
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return preview(body.trim());
}

/** Retry-After in seconds or as an HTTP date, OpenAI's retry-after-ms, or Gemini's RetryInfo. */
export function retryAfter(
  headers: ResponseHeaders,
  body = '',
  now = Date.now(),
): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value) {
    const seconds = Number(value);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const delay = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(body);
  return delay ? Number(delay[1]) * 1000 : undefined;
}

/** A vendor's text without the request's own credentials, in any spelling the redactor knows. */
function redacted(text: string, secrets: string[]): string {
  return secrets.length ? new Redactor(secrets).redact(text).text : text;
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object'
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = field(current, 'code');
    if (typeof code === 'string') return code;
    current = field(current, 'cause');
  }
  return undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function preview(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
