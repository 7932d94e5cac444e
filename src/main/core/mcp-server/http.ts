/**
 * MCP over Streamable HTTP (the SDK's transport) at `/mcp`, one MCP server per client session
 * (`mcp-session-id`). In front of the SDK, every request is checked here first:
 * - a browser Origin that is not loopback is refused (403): a page elsewhere must not reach a
 *   local server through DNS rebinding, as the MCP spec asks of local servers;
 * - `Authorization: Bearer <token>`, compared in constant time, or 401;
 * - a POST body over MAX_FRAME_BYTES is refused (413) before it is parsed.
 * Binds 127.0.0.1 unless told otherwise. The token is never logged.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { bearerAuthorized, type Listener, MAX_FRAME_BYTES } from '../ckp-server/index.js';
import { loopbackOrigin, requestPathname } from '../network/index.js';

export { loopbackOrigin };

export const MCP_PATH = '/mcp';

/** Sessions kept at once; past it the least recently used one is closed (clients re-initialize). */
const MAX_SESSIONS = 32;

export interface McpHttpOptions {
  /** 0: any free port. */
  port: number;
  /** Interface to bind; 127.0.0.1 by default. */
  host?: string;
  /** The bearer token every request must carry. */
  token: string;
  /** A fresh server for each client session. */
  open: () => Server;
}

export interface McpHttpListener extends Listener {
  /** From now on every request is answered 503 (the owner is stopping); sessions stay open. */
  refuse(): void;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  usedAt: number;
}

export async function listenMcpHttp(options: McpHttpOptions): Promise<McpHttpListener> {
  const sessions = new Map<string, Session>();
  let refusing = false;

  const plain = (
    response: ServerResponse,
    status: number,
    headers: Record<string, string> = {},
  ) => {
    response.writeHead(status, headers).end();
  };
  const rpcError = (response: ServerResponse, status: number, code: number, message: string) => {
    response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
  };

  const openSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = options.open();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, usedAt: Date.now() });
        if (sessions.size > MAX_SESSIONS) {
          const [oldest] = [...sessions.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt);
          if (oldest) void oldest[1].transport.close();
        }
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (requestPathname(request.url) !== MCP_PATH) {
      request.resume();
      return plain(response, 404);
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
    const header = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const session = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && !session) {
      request.resume();
      return rpcError(response, 404, -32001, 'Session not found: initialize again');
    }
    if (request.method !== 'POST') {
      if (!session) {
        request.resume();
        return rpcError(response, 400, -32000, 'Bad request: no mcp-session-id');
      }
      session.usedAt = Date.now();
      return session.transport.handleRequest(request, response);
    }
    const body = await readBody(request);
    if (body === 'too_large') {
      // The rest of the body is read and dropped, never kept: a client still sending it gets the
      // 413 rather than a broken pipe (the server's request timeout bounds an endless one).
      request.resume();
      return rpcError(response, 413, -32600, `a request is limited to ${MAX_FRAME_BYTES} bytes`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return rpcError(response, 400, -32700, 'Parse error');
    }
    if (session) {
      session.usedAt = Date.now();
      return session.transport.handleRequest(request, response, parsed);
    }
    if (!isInitializeRequest(parsed))
      return rpcError(response, 400, -32000, 'Bad request: no mcp-session-id');
    return (await openSession()).handleRequest(request, response, parsed);
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
  return {
    port,
    url: `http://${shown}:${port}${MCP_PATH}`,
    refuse() {
      refusing = true;
    },
    async close() {
      refusing = true;
      await Promise.allSettled([...sessions.values()].map((session) => session.transport.close()));
      sessions.clear();
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
      // Nothing more is kept: the caller drops the rest.
      request.off('data', onData);
      resolve('too_large');
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}
