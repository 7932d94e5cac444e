/**
 * A2A over HTTP on Node's own server, with the SDK's transport-agnostic JSON-RPC handler (no web
 * framework): the AgentCard at the well-known path, and JSON-RPC (SendMessage, its streaming
 * form as server-sent events, GetTask, ListTasks, CancelTask, SubscribeToTask, the push
 * notification configs) at `/a2a`. The card is public, as discovery wants; every JSON-RPC call is
 * checked first: a browser Origin that is not loopback is refused (403), the bearer token is
 * compared in constant time (401), a body over MAX_FRAME_BYTES is refused (413) before it is
 * parsed. Binds 127.0.0.1 unless told otherwise; the token is never logged.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  AGENT_CARD_PATH,
  AgentCard,
  formatSSEErrorEvent,
  formatSSEEvent,
  HTTP_EXTENSION_HEADER,
  SSE_HEADERS,
} from '@a2a-js/sdk';
import { JsonRpcTransportHandler, validateVersion } from '@a2a-js/sdk/server';
import type { Agent } from '../agent/index.js';
import { bearerAuthorized, type Listener, MAX_FRAME_BYTES } from '../ckp-server/index.js';
import { loopbackOrigin, requestPathname } from '../network/index.js';
import { type A2aTasks, operatorContext } from './tasks.js';

export const A2A_RPC_PATH = '/a2a';

export interface A2aHttpOptions {
  agent: Agent;
  tasks: A2aTasks;
  /** 0: any free port. */
  port: number;
  host?: string;
  token: string;
}

export interface A2aListener extends Listener {
  /** The card's URL. */
  cardUrl: string;
  /** From now on every JSON-RPC call is answered 503 (the owner is stopping). */
  refuse(): void;
}

export async function listenA2a(options: A2aHttpOptions): Promise<A2aListener> {
  const handler = options.tasks.handlerFor(options.agent);
  const rpc = new JsonRpcTransportHandler(handler);
  let refusing = false;

  const plain = (response: ServerResponse, status: number, headers: Record<string, string> = {}) =>
    void response.writeHead(status, headers).end();
  const json = (response: ServerResponse, status: number, body: unknown) =>
    void response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify(body));

  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const pathname = requestPathname(request.url);
    if (
      pathname === `/${AGENT_CARD_PATH}` &&
      (request.method === 'GET' || request.method === 'HEAD')
    ) {
      request.resume();
      return json(response, 200, AgentCard.toJSON(await handler.getAgentCard()));
    }
    if (pathname !== A2A_RPC_PATH) {
      request.resume();
      return plain(response, 404);
    }
    if (request.method !== 'POST') {
      request.resume();
      return plain(response, 405, { allow: 'POST' });
    }
    if (!loopbackOrigin(request.headers.origin)) {
      request.resume();
      return plain(response, 403);
    }
    if (!bearerAuthorized(request, options.token)) {
      request.resume();
      return plain(response, 401, { 'www-authenticate': 'Bearer' });
    }
    if (refusing) {
      request.resume();
      return plain(response, 503);
    }
    const body = await readBody(request);
    if (body === 'too_large') {
      request.resume();
      return json(response, 413, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: `a request is limited to ${MAX_FRAME_BYTES} bytes` },
      });
    }
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return json(response, 200, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error' },
      });
    }
    const id = (parsed && typeof parsed === 'object' && 'id' in parsed ? parsed.id : null) ?? null;
    const header = (name: string) => {
      const value = request.headers[name.toLowerCase()];
      return Array.isArray(value) ? value[0] : value;
    };
    try {
      const context = operatorContext({
        requestedVersion: header(A2A_VERSION_HEADER) ?? A2A_PROTOCOL_VERSION,
        headers: request.headers,
      });
      validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
      const outcome = await rpc.handle(parsed, context);
      if (context.activatedExtensions)
        response.setHeader(HTTP_EXTENSION_HEADER, Array.from(context.activatedExtensions));
      if (!(Symbol.asyncIterator in (outcome as object))) return json(response, 200, outcome);
      const stream = outcome as AsyncGenerator<unknown>;
      response.writeHead(200, SSE_HEADERS);
      // A client going away ends the stream (not the task: that is what CancelTask is for).
      response.once('close', () => void stream.return(undefined));
      try {
        for await (const event of stream) {
          if (response.writableEnded) break;
          response.write(formatSSEEvent(event));
        }
      } catch (error) {
        if (!response.writableEnded)
          response.write(
            formatSSEErrorEvent({
              jsonrpc: '2.0',
              id,
              error: JsonRpcTransportHandler.mapToJSONRPCError(error),
            }),
          );
      }
      response.end();
    } catch (error) {
      const mapped = JsonRpcTransportHandler.mapToJSONRPCError(error);
      if (!response.headersSent) return json(response, 200, { jsonrpc: '2.0', id, error: mapped });
      response.end();
    }
  };

  const server = http.createServer((request, response) => {
    request.on('error', () => request.destroy());
    response.on('error', () => response.destroy());
    answer(request, response).catch(() => {
      if (!response.headersSent) plain(response, 500);
      else response.destroy();
    });
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  const base = `http://${shown}:${port}`;
  const url = `${base}${A2A_RPC_PATH}`;
  options.tasks.card.supportedInterfaces.push({
    url,
    protocolBinding: 'JSONRPC',
    tenant: '',
    protocolVersion: A2A_PROTOCOL_VERSION,
  });
  return {
    port,
    url,
    cardUrl: `${base}/${AGENT_CARD_PATH}`,
    refuse() {
      refusing = true;
    },
    async close() {
      refusing = true;
      const card = options.tasks.card;
      card.supportedInterfaces = card.supportedInterfaces.filter((one) => one.url !== url);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The body as text, or 'too_large' once it passes MAX_FRAME_BYTES (declared or read). */
function readBody(request: IncomingMessage): Promise<string | 'too_large'> {
  if (Number(request.headers['content-length'] ?? 0) > MAX_FRAME_BYTES)
    return Promise.resolve('too_large');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_FRAME_BYTES) {
        chunks.push(chunk);
        return;
      }
      request.off('data', onData);
      resolve('too_large');
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}
