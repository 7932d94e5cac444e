/**
 * The OpenAI-compatible HTTP endpoint over a ModelBackend: routing, bearer auth, a bounded
 * body, per-model bounded queues, cancellation when the client leaves, OpenAI's error shape,
 * and a metadata-only request log.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PincerError } from '../errors.js';
import { decodePathSegment, requestPathname } from '../network/index.js';
import { bearerMatches, isLoopbackHost } from './auth.js';
import type { ModelBackend } from './backend.js';
import { chatRoute } from './chat.js';
import { completionsRoute } from './completions.js';
import { embeddingsRoute } from './embeddings.js';
import { ApiError, invalidParam, modelNotFound, toApiError } from './errors.js';
import { unixNow } from './generation.js';
import { parseJson, readBody, sendJson } from './http.js';
import { RequestQueues } from './queue.js';
import { responsesRoute } from './responses.js';
import type { Outcome, PostRoute, Prepared } from './route.js';

export interface OpenAiServerOptions {
  backend: ModelBackend;
  /** Default 127.0.0.1; any other address needs `apiKey`. */
  host?: string;
  /** Default 11435; 0 picks a free port. */
  port?: number;
  /** Required as `Authorization: Bearer <key>` on every request when set. */
  apiKey?: string;
  /** Largest request body in bytes (default 8 MiB); larger ones get 413. */
  maxBodyBytes?: number;
  /** Requests generating at once per model (default 1). */
  concurrency?: number;
  /** Requests waiting per model before new ones get 429 (default 16). */
  maxWaiting?: number;
  /** Called once per request with metadata only: never prompts, replies or keys. */
  onLog?: (entry: RequestLogEntry) => void;
  /** Told whenever a request starts, waits or ends: `stats()` has changed. */
  onActivity?: () => void;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  model?: string;
  stream?: boolean;
  /** `ok`, `cancelled` (the client left) or the error code. */
  outcome: string;
  finish?: string;
  promptTokens?: number;
  cachedTokens?: number;
  completionTokens?: number;
  durationMs: number;
}

export interface OpenAiServer {
  /** The base URL clients use, e.g. http://127.0.0.1:11435/v1 */
  baseUrl: string;
  port: number;
  stats(): ReturnType<RequestQueues['stats']>;
  close(): Promise<void>;
}

export const DEFAULT_PORT = 11435;

/** Each POST path: its body validated, then prepared for its model's lane. */
const ROUTES: Record<string, (body: Buffer) => Prepared> = {
  '/v1/chat/completions': preparer(chatRoute),
  '/v1/completions': preparer(completionsRoute),
  '/v1/embeddings': preparer(embeddingsRoute),
  '/v1/responses': preparer(responsesRoute),
};

function preparer<T>(route: PostRoute<T>): (body: Buffer) => Prepared {
  return (body) => route.prepare(parseJson(body, route.schema));
}

export class OpenAiServerError extends PincerError {
  override readonly name = 'OpenAiServerError';
  constructor(
    readonly code: 'key_required' | 'listen_failed',
    message: string,
  ) {
    super(code === 'key_required' ? 'invalid_request' : 'unavailable', message);
  }
}

export async function startOpenAiServer(options: OpenAiServerOptions): Promise<OpenAiServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.apiKey) {
    throw new OpenAiServerError(
      'key_required',
      `Serving on ${host} makes the model reachable from other machines: set an API key first`,
    );
  }
  const queues = new RequestQueues({
    concurrency: options.concurrency,
    maxWaiting: options.maxWaiting,
    onChange: options.onActivity,
  });
  const handler = new Handler(options, queues);
  const server = createServer((req, res) => void handler.handle(req, res));
  await listen(server, host, options.port ?? DEFAULT_PORT);
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    baseUrl: `http://${shownHost}:${port}/v1`,
    port,
    stats: () => queues.stats(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Streams in progress end with the server: their clients see the connection close.
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new OpenAiServerError(
          'listen_failed',
          error.code === 'EADDRINUSE'
            ? `Port ${port} on ${host} is in use; pick another with --port`
            : `Cannot listen on ${host}:${port}: ${error.message}`,
        ),
      );
    });
    server.listen(port, host, () => resolve());
  });
}

class Handler {
  constructor(
    private readonly options: OpenAiServerOptions,
    private readonly queues: RequestQueues,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    // An unparseable target matches no route: 404.
    const path = (requestPathname(req.url) ?? '/?').replace(/\/+$/, '');
    const entry: Omit<RequestLogEntry, 'durationMs'> = {
      method: req.method ?? 'GET',
      path,
      status: 200,
      outcome: 'ok',
    };
    // The client leaving (a closed socket before the reply ended) cancels its generation.
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      const outcome = await this.dispatch(req, res, path, entry, controller.signal);
      if (controller.signal.aborted) entry.outcome = 'cancelled';
      Object.assign(entry, usageFields(outcome));
    } catch (error) {
      const apiError = toApiError(error);
      entry.status = apiError.status;
      entry.outcome = controller.signal.aborted ? 'cancelled' : apiError.code;
      if (!res.headersSent) {
        if (apiError.status === 503) res.setHeader('retry-after', '5');
        sendJson(res, apiError.status, apiError.body());
      } else if (!res.writableEnded) {
        // Mid-stream: the status line went out already, so the error is the last event.
        res.write(`data: ${JSON.stringify(apiError.body())}\n\n`);
        res.end();
      }
    }
    this.options.onLog?.({ ...entry, durationMs: Math.round(performance.now() - started) });
  }

  private async dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    entry: Omit<RequestLogEntry, 'durationMs'>,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const route = ROUTES[path];
    const isModels = path === '/v1/models' || path.startsWith('/v1/models/');
    if (!route && !isModels) {
      throw new ApiError(404, 'invalid_request_error', 'unknown_url', `Unknown path ${path}`);
    }
    if (this.options.apiKey && !bearerMatches(req.headers.authorization, this.options.apiKey)) {
      throw new ApiError(
        401,
        'authentication_error',
        'invalid_api_key',
        'Missing or wrong API key: send Authorization: Bearer <key>',
      );
    }
    const backend = this.options.backend;
    if (isModels) {
      if (req.method !== 'GET') throw methodNotAllowed(req.method);
      const models = (await backend.models()).map((model) => ({
        id: model.id,
        object: 'model',
        created: unixNow(),
        owned_by: 'pincer',
        ...(model.contextLength ? { context_length: model.contextLength } : {}),
        ...(model.dimensions ? { dimensions: model.dimensions } : {}),
      }));
      const id = path.startsWith('/v1/models/') ? path.slice('/v1/models/'.length) : undefined;
      const wanted = id === undefined ? undefined : decodePathSegment(id);
      if (id !== undefined && wanted === undefined)
        throw invalidParam('the model id in the path is not valid percent-encoding', 'model');
      if (wanted === undefined) sendJson(res, 200, { object: 'list', data: models });
      else {
        const found = models.find((model) => model.id === wanted);
        if (!found) throw modelNotFound(wanted);
        sendJson(res, 200, found);
      }
      return {};
    }
    if (!route || req.method !== 'POST') throw methodNotAllowed(req.method);
    const prepared = route(await readBody(req, this.options.maxBodyBytes ?? 8 << 20));
    entry.model = prepared.model;
    entry.stream = prepared.stream;
    const served = await backend.models();
    if (!served.some((model) => model.id === prepared.model)) throw modelNotFound(prepared.model);
    if (backend.status() === 'loading') {
      throw new ApiError(
        503,
        'service_unavailable',
        'model_loading',
        `${prepared.model} is still loading; retry shortly`,
      );
    }
    return this.queues.run(prepared.model, signal, () => prepared.run({ backend, res, signal }));
  }
}

const methodNotAllowed = (method: string | undefined) =>
  new ApiError(405, 'invalid_request_error', 'method_not_allowed', `${method} is not allowed here`);

function usageFields(outcome: Outcome): Partial<RequestLogEntry> {
  if (!outcome.usage) return { finish: outcome.finish };
  return {
    finish: outcome.finish,
    promptTokens: outcome.usage.inputTokens,
    cachedTokens: Math.max(0, outcome.usage.inputTokens - outcome.usage.evaluatedInputTokens),
    completionTokens: outcome.usage.outputTokens,
  };
}
