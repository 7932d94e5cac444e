/**
 * The CKP server's transports (§9.2): stdio (one JSON-RPC message or batch per line; stdout
 * carries nothing else), HTTP (POST one frame, get one frame back; a bearer token) and
 * WebSocket (one frame per message, both ways; the same token). Network listeners bind
 * 127.0.0.1 unless told otherwise. Each hands frames to a session and writes back its answers.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { type RawData, WebSocketServer } from 'ws';
import { CKP_ERRORS } from '../ckp/index.js';
import { errorResponse } from './jsonrpc.js';
import { CkpSession, type CkpSessionOptions } from './session.js';

export type SessionFactory = (
  push: ((frame: string) => void) | undefined,
  label: string,
) => CkpSession;

/** The host's shared parts bound; a transport adds how frames travel. */
export function sessionFactory(base: Omit<CkpSessionOptions, 'push' | 'label'>): SessionFactory {
  return (push, label) => new CkpSession({ ...base, push, label });
}

/** Largest frame accepted on any transport. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/**
 * Serves one peer on a stream pair until the input ends. Frames are answered as they complete
 * (concurrently), so a call waiting for approval does not hold up the approval itself.
 */
export async function serveStdio(
  open: SessionFactory,
  input: Readable,
  output: Writable,
): Promise<void> {
  const write = (frame: string) => {
    if (output.writable) output.write(`${frame}\n`);
  };
  const session = open(write, 'ckp:stdio');
  const answering = new Set<Promise<void>>();
  try {
    for await (const line of boundedLines(input, MAX_FRAME_BYTES)) {
      if (line !== TOO_LONG && line.trim() === '') continue;
      const frame = line === TOO_LONG ? tooLarge() : session.receive(line);
      const answered = Promise.resolve(frame).then((answer) => {
        if (answer) write(answer);
      });
      answering.add(answered);
      void answered.finally(() => answering.delete(answered));
    }
    await Promise.allSettled([...answering]);
  } finally {
    session.close();
  }
}

const TOO_LONG = Symbol('a line past the bound');

/**
 * The stream's lines (a trailing CR dropped), holding at most `max` bytes of one: a longer line
 * is dropped as it arrives and stands as TOO_LONG once it ends (readline would hold it whole).
 */
async function* boundedLines(
  input: Readable,
  max: number,
): AsyncGenerator<string | typeof TOO_LONG> {
  let parts: Buffer[] = [];
  let size = 0;
  let over = false;
  const take = (piece: Buffer) => {
    if (over) return;
    size += piece.length;
    if (size > max) {
      over = true;
      parts = [];
    } else parts.push(piece);
  };
  for await (const data of input as AsyncIterable<Buffer | string>) {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end >= 0; end = chunk.indexOf(0x0a, start)) {
      take(chunk.subarray(start, end));
      yield over ? TOO_LONG : Buffer.concat(parts).toString('utf8').replace(/\r$/, '');
      parts = [];
      size = 0;
      over = false;
      start = end + 1;
    }
    if (start < chunk.length) take(chunk.subarray(start));
  }
  if (over) yield TOO_LONG;
  else if (size > 0) yield Buffer.concat(parts).toString('utf8').replace(/\r$/, '');
}

function tooLarge(): string {
  return JSON.stringify(
    errorResponse(null, {
      code: CKP_ERRORS.invalidRequest,
      message: `Invalid request: a frame is limited to ${MAX_FRAME_BYTES} bytes`,
    }),
  );
}

export interface Listener {
  port: number;
  url: string;
  close(): Promise<void>;
}

export interface ListenOptions {
  port: number;
  host?: string;
  /** A bearer token every request must carry. */
  token: string;
}

/** A token good enough for a loopback listener. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
export function bearerAuthorized(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match) return false;
  const given = Buffer.from(match[1] as string);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * HTTP: `POST /` with one frame; 200 with the answer, 204 when nothing is answered
 * (notifications). One session for the listener: the HTTP peer initializes once.
 */
export async function listenHttp(open: SessionFactory, options: ListenOptions): Promise<Listener> {
  const session = open(undefined, 'ckp:http');
  const server = http.createServer((request, response) => {
    void answerHttp(session, options.token, request, response);
  });
  const listener = await listen(server, options, 'http');
  return {
    ...listener,
    close: async () => {
      session.close();
      await listener.close();
    },
  };
}

async function answerHttp(
  session: CkpSession,
  token: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const reply = (status: number, body?: string, headers: Record<string, string> = {}) => {
    response.writeHead(status, {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    });
    response.end(body);
  };
  if (!bearerAuthorized(request, token)) {
    reply(401, undefined, { 'www-authenticate': 'Bearer' });
    request.resume();
    return;
  }
  if (request.method !== 'POST') {
    reply(405, undefined, { allow: 'POST' });
    request.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_FRAME_BYTES) {
        reply(413, tooLarge());
        request.destroy();
        return;
      }
      chunks.push(chunk);
    }
  } catch {
    return;
  }
  const answer = await session.receive(Buffer.concat(chunks).toString('utf8'));
  if (answer === undefined) reply(204);
  else reply(200, answer);
}

/** WebSocket: one frame per text message, both ways; heartbeats and reports are pushed. */
export async function listenWebSocket(
  open: SessionFactory,
  options: ListenOptions,
): Promise<Listener> {
  const server = http.createServer((_request, response) => {
    response.writeHead(426, { upgrade: 'websocket' });
    response.end();
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (request, socket, head) => {
    if (!bearerAuthorized(request, options.token)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => {
      const session = open((frame) => {
        if (ws.readyState === ws.OPEN) ws.send(frame);
      }, 'ckp:websocket');
      ws.on('message', (data: RawData, isBinary: boolean) => {
        const text = isBinary ? '' : rawText(data);
        void session.receive(text).then((answer) => {
          if (answer && ws.readyState === ws.OPEN) ws.send(answer);
        });
      });
      ws.on('close', () => session.close());
      ws.on('error', () => ws.terminate());
    });
  });
  const listener = await listen(server, options, 'ws');
  return {
    ...listener,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await listener.close();
    },
  };
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

function listen(
  server: http.Server,
  options: ListenOptions,
  scheme: 'http' | 'ws',
): Promise<Listener> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        port,
        url: `${scheme}://${shown}:${port}/`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
