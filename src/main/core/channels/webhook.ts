/**
 * A `webhook` channel: an HTTP endpoint (127.0.0.1:8788 unless x-pincer.listen says otherwise)
 * that takes signed POSTs and runs each as a message on the agent. A request carries
 * `x-pincer-timestamp` (Unix seconds) and `x-pincer-signature: sha256=<hex>`, the HMAC-SHA256 of
 * `<timestamp>.<body>` under the secret named by auth.secret_ref. A request older or newer than
 * five minutes, or one already seen, is refused (replay protection); signatures are compared in
 * constant time; bodies are bounded. The reply comes back as the response, or, when the body
 * names a `callback_url`, is POSTed there signed the same way (the URL passes the same checks as
 * net/fetch: no internal address without an address grant in the sandbox's allowed_hosts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { NetworkScope } from '../tools/index.js';
import { checkHop, pinnedLookup } from '../tools/index.js';
import { type AccessDecision, ChannelAccess } from './access.js';
import { type Clock, systemClock } from './clock.js';
import type { ChannelHub, ConverseOutcome } from './hub.js';
import { ChannelLimits } from './limits.js';
import {
  type Channel,
  type ChannelDecl,
  ChannelError,
  type ChannelErrorCode,
  type ChannelStatus,
  settingsOf,
} from './types.js';

export const DEFAULT_WEBHOOK_LISTEN = '127.0.0.1:8788';
export const SIGNATURE_HEADER = 'x-pincer-signature';
export const TIMESTAMP_HEADER = 'x-pincer-timestamp';
/** How far a request's timestamp may be from now, either way. */
export const MAX_SKEW_SECONDS = 300;
const MAX_BODY_BYTES = 256 * 1024;
/** Signatures remembered for replay refusal; older ones are refused as stale anyway. */
const MAX_REMEMBERED = 100_000;

const RequestBody = z.strictObject({
  text: z.string().min(1),
  /** The sender's id, checked against access_control when the channel declares one. */
  user: z.string().min(1).max(200).optional(),
  /** The conversation (default: the user, else "webhook"): one session each. */
  chat: z.string().min(1).max(200).optional(),
  callback_url: z.url().optional(),
});

const STATUS_OF: Record<ChannelErrorCode, number> = {
  not_configured: 500,
  bad_signature: 401,
  stale: 401,
  replayed: 409,
  too_large: 413,
  bad_request: 400,
  refused: 403,
  rate_limited: 429,
  paused: 503,
  unreachable: 502,
  already_running: 500,
};

/** The signature a sender puts in x-pincer-signature for `body` sent at `timestamp`. */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface WebhookChannelOptions {
  /** The HMAC key (the value of auth.secret_ref). */
  secret: string;
  /** Where callbacks may go: the sandbox's allowed_hosts grant internal addresses. */
  allowedHosts: readonly string[];
  clock?: Clock;
  log?: (line: string) => void;
}

export class WebhookChannel implements Channel {
  readonly name: string;
  readonly type = 'webhook';
  private server: http.Server | undefined;
  private readonly seen = new Map<string, number>();
  private readonly access: Pick<ChannelAccess, 'decide'>;
  private readonly limits: ChannelLimits;
  private readonly clock: Clock;
  private readonly log: (line: string) => void;
  private state: ChannelStatus['state'] = 'stopped';
  private lastMessageAt: string | null = null;
  private lastError: string | null = null;
  private runs = 0;
  private url = '';

  constructor(
    private readonly decl: ChannelDecl,
    private readonly hub: ChannelHub,
    private readonly options: WebhookChannelOptions,
  ) {
    this.name = decl.name;
    this.clock = options.clock ?? systemClock;
    this.log = options.log ?? (() => undefined);
    this.limits = new ChannelLimits(decl, () => this.clock.now());
    // The signature authenticates the sender; declared access control narrows further by user.
    this.access = decl.spec.access_control
      ? new ChannelAccess(decl, hub.records)
      : { decide: (): AccessDecision => ({ kind: 'allowed', role: 'user' }) };
  }

  async start(): Promise<void> {
    if (this.server) return;
    if (!this.options.secret) {
      this.fail(
        new ChannelError('not_configured', `no secret for ${this.decl.spec.auth.secret_ref}`),
      );
    }
    const { host, port } = parseListen(settingsOf(this.decl).listen ?? DEFAULT_WEBHOOK_LISTEN);
    const server = http.createServer((request, response) => {
      this.serve(request, response).catch((error: unknown) => {
        this.lastError = (error as Error).message;
        answer(response, 500, { error: 'internal', message: 'the request failed' });
      });
    });
    server.on('clientError', (_error, socket) => socket.destroy());
    server.requestTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((error: Error) => {
      this.fail(
        new ChannelError('unreachable', `cannot listen on ${host}:${port}: ${error.message}`),
      );
    });
    server.on('error', (error) => {
      this.lastError = error.message;
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    this.url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/`;
    this.state = 'running';
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (this.state === 'running') this.state = 'stopped';
    if (!server) return;
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  status(): ChannelStatus {
    return {
      name: this.name,
      type: this.type,
      state: this.state,
      lastMessageAt: this.lastMessageAt,
      lastError: this.lastError,
      runs: this.runs,
      missed: 0,
      detail: { url: this.url },
    };
  }

  private fail(error: ChannelError): never {
    this.state = 'failed';
    this.lastError = error.message;
    throw error;
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    request.on('error', () => undefined);
    response.on('error', () => undefined);
    if (request.method !== 'POST') return answer(response, 405, { error: 'method_not_allowed' });
    if ((request.url ?? '/').split('?')[0] !== '/')
      return answer(response, 404, { error: 'not_found' });
    try {
      const body = await readBody(request);
      this.verify(request, body);
      const parsed = RequestBody.safeParse(parseJson(body));
      if (!parsed.success) {
        throw new ChannelError('bad_request', `bad request body: ${z.prettifyError(parsed.error)}`);
      }
      const { text, user, chat, callback_url: callback } = parsed.data;
      this.lastMessageAt = new Date(this.clock.now()).toISOString();
      const inbound = { userId: user ?? 'webhook', chatId: chat ?? user ?? 'webhook', text };
      if (callback) {
        const target = await this.checkCallback(callback);
        answer(response, 202, { accepted: true });
        const outcome = await this.converse(inbound);
        await this.deliver(target, outcome).catch((error: Error) => {
          this.lastError = `callback to ${target.url.host} failed: ${error.message}`;
          this.log(`${this.name}: ${this.lastError}`);
        });
        return;
      }
      // Without a callback the sender waits on the response: a paused agent says so now.
      if (this.hub.paused) throw new ChannelError('paused', 'Pincer is paused; retry later');
      const outcome = await this.converse(inbound);
      if (outcome.kind === 'reply') {
        return answer(response, 200, {
          reply: outcome.text,
          run_id: outcome.runId,
          outcome: outcome.outcome,
        });
      }
      const code = outcome.kind === 'pairing' ? 'refused' : outcome.code;
      return answer(response, STATUS_OF[code], {
        error: outcome.kind === 'pairing' ? 'pairing' : code,
        message: outcome.text,
      });
    } catch (error) {
      if (!(error instanceof ChannelError)) throw error;
      const headers: Record<string, string> =
        error.code === 'paused' ? { 'retry-after': '60' } : {};
      answer(
        response,
        STATUS_OF[error.code],
        { error: error.code, message: error.message },
        headers,
      );
    }
  }

  private converse(inbound: {
    userId: string;
    chatId: string;
    text: string;
  }): Promise<ConverseOutcome> {
    return this.hub.converse(
      this.decl,
      { access: this.access, limits: this.limits },
      inbound,
      () => {
        this.runs++;
      },
    );
  }

  /** Timestamp within the skew, signature right (constant time), never seen before. */
  private verify(request: IncomingMessage, body: Buffer): void {
    const timestamp = header(request, TIMESTAMP_HEADER);
    const signature = header(request, SIGNATURE_HEADER);
    if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) {
      throw new ChannelError(
        'bad_signature',
        `${TIMESTAMP_HEADER} and ${SIGNATURE_HEADER} are required`,
      );
    }
    const now = this.clock.now();
    if (Math.abs(now / 1000 - Number(timestamp)) > MAX_SKEW_SECONDS) {
      throw new ChannelError('stale', `the timestamp is more than ${MAX_SKEW_SECONDS} s from now`);
    }
    const expected = Buffer.from(
      createHmac('sha256', this.options.secret).update(`${timestamp}.`).update(body).digest('hex'),
    );
    const given = Buffer.from(signature.replace(/^sha256=/, ''));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new ChannelError('bad_signature', 'the signature does not match');
    }
    this.forgetOld(now);
    const key = expected.toString();
    if (this.seen.has(key)) throw new ChannelError('replayed', 'this request was already received');
    if (this.seen.size >= MAX_REMEMBERED)
      throw new ChannelError('rate_limited', 'too many requests');
    this.seen.set(key, now + MAX_SKEW_SECONDS * 2000);
  }

  private forgetOld(now: number): void {
    for (const [key, until] of this.seen) if (until < now) this.seen.delete(key);
  }

  private async checkCallback(
    callback: string,
  ): Promise<{ url: URL; address: string; family: 4 | 6 }> {
    const url = new URL(callback);
    const scope: NetworkScope = {
      mode: 'allow-all',
      allowedHosts: this.options.allowedHosts,
      blockPrivate: true,
    };
    try {
      return { url, ...(await checkHop(url, scope, false)) };
    } catch (error) {
      throw new ChannelError('bad_request', `callback_url refused: ${(error as Error).message}`);
    }
  }

  private deliver(
    target: { url: URL; address: string; family: 4 | 6 },
    outcome: ConverseOutcome,
  ): Promise<void> {
    const body = JSON.stringify(
      outcome.kind === 'reply'
        ? { reply: outcome.text, run_id: outcome.runId, outcome: outcome.outcome }
        : { error: outcome.kind === 'pairing' ? 'pairing' : outcome.code, message: outcome.text },
    );
    const timestamp = String(Math.floor(this.clock.now() / 1000));
    const client = target.url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(target.url, {
        method: 'POST',
        lookup: pinnedLookup(target),
        timeout: 30_000,
        headers: {
          'content-type': 'application/json',
          [TIMESTAMP_HEADER]: timestamp,
          [SIGNATURE_HEADER]: signWebhook(this.options.secret, timestamp, body),
        },
      });
      request.on('timeout', () => request.destroy(new Error('timed out')));
      request.on('error', reject);
      request.on('response', (response) => {
        response.on('error', () => undefined);
        response.resume();
        const ok = (response.statusCode ?? 0) < 300;
        ok ? resolve() : reject(new Error(`HTTP ${response.statusCode}`));
      });
      request.end(body);
    });
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? undefined : value;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ChannelError('bad_request', 'the body is not JSON');
  }
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    return Promise.reject(
      new ChannelError('too_large', `the body is larger than ${MAX_BODY_BYTES} bytes`),
    );
  }
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.pause();
        reject(new ChannelError('too_large', `the body is larger than ${MAX_BODY_BYTES} bytes`));
        return;
      }
      parts.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(parts)));
    request.on('error', reject);
    request.on('aborted', () => reject(new ChannelError('bad_request', 'the request was aborted')));
  });
}

function answer(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    // A refused body that was not read whole: the connection is not reused.
    ...(status === 413 ? { connection: 'close' } : {}),
    ...headers,
  });
  response.end(text);
}

/** `host:port`, `[v6]:port`; port 0 takes a free one. */
export function parseListen(listen: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(listen);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new ChannelError('not_configured', `x-pincer.listen "${listen}" is not host:port`);
  }
  return { host: (match[1] ?? match[2]) as string, port };
}
