/**
 * The model layer's one HTTP client (node:http, not fetch) against a real server on 127.0.0.1:
 * compressed bodies are decoded, response headers are read without regard to case, a server
 * cutting the body short is a truncated reply, and a redirect is reported rather than followed
 * (a provider's endpoint is where its key may go, and nowhere else).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../../src/main/core/models/errors.js';
import { postJson } from '../../../src/main/core/models/http.js';
import { providerId } from '../../../src/main/core/models/ids.js';

const routes: Record<string, (res: ServerResponse) => void> = {
  '/gzip': (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.end(gzipSync(JSON.stringify({ ok: 'gzip' })));
  },
  '/sse-whole': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('data: {"n": 1}\n\ndata: [DONE]\n\n');
  },
  '/br': (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'Content-Encoding': 'br' });
    res.end(brotliCompressSync(JSON.stringify({ ok: 'br' })));
  },
  '/limited': (res) => {
    res.writeHead(429, { 'Retry-After': '7', 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'slow down' } }));
  },
  '/cut': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': '1000' });
    res.write('data: {"partial": tru');
    setTimeout(() => res.socket?.destroy(), 20);
  },
  '/moved': (res) => {
    res.writeHead(307, { location: '/gzip' });
    res.end();
  },
};

let server: Server;
let base = '';
const seen: string[] = [];
let connections = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    req.resume();
    req.on('end', () => routes[req.url ?? '']?.(res));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const options = {
  provider: providerId('wire'),
  timeoutMs: 10_000,
  idleTimeoutMs: 10_000,
  secrets: [],
};
const post = (route: string) =>
  postJson({ url: `${base}${route}`, headers: {}, body: { hello: 'there' } }, options);

describe('postJson on node:http', () => {
  it('decodes gzip and brotli bodies', async () => {
    expect(await (await post('/gzip')).json()).toEqual({ ok: 'gzip' });
    expect(await (await post('/br')).json()).toEqual({ ok: 'br' });
  });

  it('a reader that stops at the last event leaves the socket to the pool: no error, reused', async () => {
    const firstChunk = async () => {
      for await (const chunk of (await post('/sse-whole')).chunks())
        return Buffer.from(chunk).toString();
    };
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    await firstChunk();
    await settle();
    const before = connections;
    for (let i = 0; i < 3; i++) {
      expect(await firstChunk()).toContain('data: [DONE]');
      await settle();
    }
    expect(connections).toBe(before);
  });

  it('reads the status and Retry-After of a refusal, whatever their case', async () => {
    const error = await post('/limited').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'rate_limited', retryAfterMs: 7000 });
    expect((error as ModelError).message).toContain('slow down');
  });

  it('calls a body the server cut short truncated', async () => {
    const response = await post('/cut');
    const error = await response.json().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'truncated' });
  });

  it('reports a redirect instead of following it', async () => {
    seen.length = 0;
    const error = await post('/moved').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'rejected', status: 307 });
    expect(seen).toEqual(['/moved']);
  });
});
