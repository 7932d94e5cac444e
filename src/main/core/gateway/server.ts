/**
 * `pincer gateway`: the second transport of the IPC contract. Serves the built renderer and a
 * WebSocket on 127.0.0.1 so the same UI runs in any browser against the real core.
 *
 * Who may call: only a client that presents the per-launch token in its first frame, from this
 * gateway's own origin (or from no browser at all), addressed to a loopback Host (defeats DNS
 * rebinding). Every call then goes through the same `dispatch` as Electron IPC.
 */

import { randomBytes, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { AssistantEvent } from '../../../shared/ipc-schemas.js';
import {
  ClientFrameSchema,
  MAX_FRAME_BYTES,
  type ServerFrame,
  WireClose,
} from '../../../shared/wire.js';
import type { Assistant } from '../assistant/index.js';
import { PincerError } from '../errors.js';
import { createCoreHandlers, dispatch, type IpcHandlers } from '../ipc/index.js';
import { requestPathname } from '../network/index.js';
import { serveStatic } from './static-files.js';

/** What a client may send before its hello is accepted (the hello is a few hundred bytes). */
const MAX_HELLO_BYTES = 64 * 1024;

export interface GatewayOptions {
  handlers: IpcHandlers;
  /** The core's pushed events; every authenticated connection receives them. */
  subscribe?: (listener: (event: AssistantEvent) => void) => () => void;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** 0 picks a free port. */
  port?: number;
  /** Fixed token for tests; a fresh random one otherwise. */
  token?: string;
  helloTimeoutMs?: number;
  /** Errors of the server itself (not of one client); a client's errors only close its socket. */
  onError?: (error: Error) => void;
}

export interface Gateway {
  port: number;
  /** The origin browsers load the UI from. */
  origin: string;
  /** The URL to open: the token rides in the fragment, which is never sent to a server. */
  openUrl: string;
  token: string;
  /** Clients connected now whose hello was accepted (surfaces that can answer approvals). */
  clients(): number;
  close(): Promise<void>;
}

export class GatewayError extends PincerError {
  constructor(
    readonly code: 'listen_failed',
    message: string,
  ) {
    super('unavailable', message);
    this.name = 'GatewayError';
  }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const tokenBytes = Buffer.from(token);
  const rendererDir = path.resolve(options.rendererDir);
  const helloTimeoutMs = options.helloTimeoutMs ?? 5000;
  let port = 0;

  const hostAllowed = (request: IncomingMessage): boolean => {
    const host = request.headers.host ?? '';
    const [name, hostPort] = host.split(':');
    return LOOPBACK_HOSTS.has(name ?? '') && Number(hostPort) === port;
  };
  const originAllowed = (request: IncomingMessage): boolean => {
    const origin = request.headers.origin;
    if (origin === undefined) return true; // not a browser; the token still decides
    return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
  };
  const tokenMatches = (candidate: string): boolean => {
    const bytes = Buffer.from(candidate);
    return bytes.length === tokenBytes.length && timingSafeEqual(bytes, tokenBytes);
  };

  // Every stream that carries a client's bytes has an error listener: an error event with none
  // is thrown, and one hostile frame or reset would take the whole gateway down.
  const server = http.createServer((request, response) => {
    request.on('error', () => request.destroy());
    response.on('error', () => response.destroy());
    if (!hostAllowed(request)) {
      response.writeHead(421, { 'content-type': 'text/plain' }).end('misdirected request');
      return;
    }
    serveStatic(rendererDir, request, response).catch(() => response.destroy());
  });

  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const authenticatedSockets = new Set<WebSocket>();
  sockets.on('error', (error) => options.onError?.(error));
  server.on('upgrade', (request, socket, head) => {
    // Node hands the raw socket over without its own error listener.
    socket.on('error', () => socket.destroy());
    const pathname = requestPathname(request.url);
    if (pathname !== '/ipc' || !hostAllowed(request) || !originAllowed(request)) {
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => serveConnection(ws, socket, head.length));
  });

  function serveConnection(ws: WebSocket, socket: Duplex, alreadyRead: number): void {
    // Oversize frames, invalid UTF-8 and broken headers arrive here; ws closes the connection
    // with the matching code (1009, 1007, 1002) once the error is handled.
    ws.on('error', () => undefined);
    let authenticated = false;
    // The frame limit is sized for a message with images; until its hello is accepted a client
    // may send only a little, so an unauthenticated one cannot make the gateway buffer that much.
    let unauthenticatedBytes = alreadyRead;
    const countUnauthenticated = (chunk: Buffer) => {
      unauthenticatedBytes += chunk.length;
      // Already closing (ws refused an oversize frame by its header): let that close finish.
      if (unauthenticatedBytes > MAX_HELLO_BYTES && ws.readyState === ws.OPEN) socket.destroy();
    };
    socket.on('data', countUnauthenticated);
    // A turn pushes a burst of events (deltas, steps, the end): frames sent in one tick leave in
    // one write instead of a system call each.
    let corked = false;
    const send = (frame: ServerFrame) => {
      if (!corked) {
        corked = true;
        socket.cork();
        process.nextTick(() => {
          corked = false;
          socket.uncork();
        });
      }
      ws.send(JSON.stringify(frame));
    };
    const helloTimer = setTimeout(
      () => ws.close(WireClose.helloTimeout, 'no hello'),
      helloTimeoutMs,
    );
    let unsubscribe: (() => void) | undefined;
    ws.on('close', () => {
      authenticatedSockets.delete(ws);
      clearTimeout(helloTimer);
      unsubscribe?.();
    });
    ws.on('message', async (data, isBinary) => {
      let frame: ReturnType<typeof ClientFrameSchema.parse>;
      try {
        if (isBinary) throw new Error('binary frame');
        frame = ClientFrameSchema.parse(JSON.parse(data.toString()));
      } catch {
        ws.close(authenticated ? WireClose.badFrame : WireClose.unauthorized, 'bad frame');
        return;
      }
      if (!authenticated) {
        if (frame.type !== 'hello' || !tokenMatches(frame.token)) {
          ws.close(WireClose.unauthorized, 'unauthorized');
          return;
        }
        authenticated = true;
        authenticatedSockets.add(ws);
        socket.off('data', countUnauthenticated);
        clearTimeout(helloTimer);
        send({ type: 'welcome' });
        unsubscribe = options.subscribe?.((event) => {
          if (ws.readyState === ws.OPEN) send({ type: 'event', event });
        });
        return;
      }
      if (frame.type !== 'call') {
        ws.close(WireClose.badFrame, 'unexpected frame');
        return;
      }
      const result = await dispatch(options.handlers, frame.channel, frame.request);
      if (ws.readyState === ws.OPEN) send({ type: 'result', id: frame.id, result });
    });
  }

  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) =>
      reject(
        new GatewayError(
          'listen_failed',
          `cannot listen on 127.0.0.1:${options.port ?? 0}: ${error.message}`,
        ),
      );
    server.once('error', failed);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', failed);
      resolve();
    });
  });
  server.on('error', (error) => options.onError?.(error));
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    token,
    openUrl: `${origin}/#token=${token}`,
    clients: () => authenticatedSockets.size,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The gateway over a whole assistant: its handlers and its pushed events. */
export function startAssistantGateway(
  options: Omit<GatewayOptions, 'handlers' | 'subscribe'> & { assistant: Assistant },
): Promise<Gateway> {
  const { assistant, ...rest } = options;
  return startGateway({
    ...rest,
    handlers: createCoreHandlers({ assistant, electronVersion: null }),
    subscribe: (listener) => assistant.subscribe(listener),
  });
}
