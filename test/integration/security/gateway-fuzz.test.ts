/**
 * Break 4 of issue 24 and its class: every listener on hostile input has an error path. The real
 * `pincer gateway` (built dist/cli.js) is sent garbage by a local process, before and after the
 * token handshake: oversize and invalid UTF-8 frames, binary frames, broken frame headers written
 * on a raw socket after a valid upgrade, bytes that are not HTTP, half-open and reset
 * connections, malformed JSON and valid JSON of the wrong shape. After every attack the gateway
 * must still be running and answer a legitimate client.
 *
 * Random cases come from a seeded generator; the seed is printed, and PINCER_FUZZ_SEED replays it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_FRAME_BYTES } from '../../../src/shared/wire.js';
import { builtCli } from '../../support/cli-run.js';
import { fuzzSeed, type Random, seededRandom } from '../../support/seeded-random.js';

const seed = fuzzSeed('gateway');

let gateway: ChildProcess;
let port = 0;
let token = '';
let home = '';
let output = '';

beforeAll(async () => {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run npm run build first`);
  home = await mkdtemp(path.join(os.tmpdir(), 'pincer-fuzz-'));
  gateway = spawn(process.execPath, [builtCli, 'gateway'], {
    env: { ...process.env, PINCER_HOME: path.join(home, 'data'), HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  gateway.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    gateway.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Open: http:\/\/127\.0\.0\.1:(\d+)\/#token=([\w-]+)/.exec(output);
      if (match?.[1] && match[2]) {
        port = Number(match[1]);
        token = match[2];
        resolve();
      }
    });
    gateway.once('exit', (code) => reject(new Error(`gateway exited (${code}): ${output}`)));
  });
}, 60_000);

afterAll(async () => {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((resolve) => gateway.once('exit', resolve));
    gateway.kill('SIGTERM');
    await exited;
  }
  await rm(home, { recursive: true, force: true });
});

/** The gateway process is up and a client with the token gets an answer to a call. */
async function expectAlive(): Promise<void> {
  expect(gateway.exitCode, `the gateway exited: ${output}`).toBeNull();
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ipc`);
  const frames: unknown[] = [];
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      const shift = () => (frames.length > 0 ? resolve(frames.shift()) : undefined);
      ws.once('message', (data) => {
        frames.push(JSON.parse(data.toString()));
        shift();
      });
      ws.once('close', () => reject(new Error(`closed; gateway output: ${output}`)));
    });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'hello', token }));
  expect(await next()).toEqual({ type: 'welcome' });
  ws.send(JSON.stringify({ type: 'call', id: 7, channel: 'sessions.list', request: {} }));
  let frame = (await next()) as { type: string };
  while (frame.type === 'event') frame = (await next()) as { type: string };
  expect(frame).toMatchObject({ type: 'result', id: 7, result: { ok: true } });
  ws.close();
}

/**
 * A ws client; `hello` sends the token first. Resolves to the close code the server chose, or to
 * the server's answer when it answers (a call to an unknown channel, say) instead of closing.
 */
async function client(
  hello: boolean,
  attack: (ws: WebSocket) => void,
): Promise<number | { type: string }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ipc`);
  ws.on('error', () => undefined); // the server may cut us off mid-frame
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('close', () => reject(new Error(`no connection; gateway output: ${output}`)));
  });
  if (hello) {
    ws.send(JSON.stringify({ type: 'hello', token }));
    await new Promise((resolve) => ws.once('message', resolve));
  }
  const outcome = new Promise<number | { type: string }>((resolve) => {
    ws.once('close', (code) => resolve(code));
    ws.on('message', (data) => {
      const answer = JSON.parse(data.toString()) as { type: string };
      if (answer.type !== 'event') resolve(answer);
    });
  });
  attack(ws);
  const result = await outcome;
  ws.terminate();
  return result;
}

/** A raw TCP connection to the gateway; later socket errors are the attack's business. */
async function connected(): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', (error) =>
      reject(new Error(`${error.message}; gateway output: ${output}`)),
    );
  });
  socket.on('error', () => undefined);
  return socket;
}

/** A raw TCP connection that has completed a real WebSocket upgrade (and, if asked, the hello). */
async function upgradedSocket(hello: boolean): Promise<net.Socket> {
  const socket = await connected();
  socket.write(
    `GET /ipc HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let received = Buffer.alloc(0);
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.includes('\r\n\r\n')) {
        socket.off('data', onData);
        if (!received.toString().startsWith('HTTP/1.1 101')) reject(new Error('no upgrade'));
        else resolve();
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error('closed during the upgrade')));
  });
  if (hello) {
    socket.write(frame(0x1, Buffer.from(JSON.stringify({ type: 'hello', token }))));
    await new Promise((resolve, reject) => {
      socket.once('data', resolve);
      socket.once('close', () => reject(new Error('closed before the welcome')));
    });
  }
  return socket;
}

/** One client frame (FIN set, masked as clients must). */
function frame(opcode: number, payload: Buffer, options: { mask?: boolean; fin?: boolean } = {}) {
  const mask = options.mask ?? true;
  const head: number[] = [(options.fin === false ? 0 : 0x80) | opcode];
  const maskBit = mask ? 0x80 : 0;
  if (payload.length < 126) head.push(maskBit | payload.length);
  else if (payload.length < 65536)
    head.push(maskBit | 126, payload.length >> 8, payload.length & 255);
  else {
    const length = Buffer.alloc(8);
    length.writeBigUInt64BE(BigInt(payload.length));
    head.push(maskBit | 127, ...length);
  }
  if (!mask) return Buffer.concat([Buffer.from(head), payload]);
  const key = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ (key[i % 4] ?? 0)));
  return Buffer.concat([Buffer.from(head), key, masked]);
}

/** Writes `bytes`, then waits until the server closes the socket or `settleMs` passes. */
async function sendRaw(socket: net.Socket, bytes: Buffer, settleMs = 200): Promise<void> {
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write(bytes);
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, settleMs))]);
  socket.destroy();
}

const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0xff, 0xfe, 0x22, 0x7d]);

/** Frame headers a conforming client never sends. */
const BROKEN_HEADERS: Array<[string, Buffer]> = [
  ['reserved bits set', Buffer.from([0xf1, 0x80, 1, 2, 3, 4])],
  ['unknown opcode 0x3', frame(0x3, Buffer.from('x'))],
  ['unknown control opcode 0xb', frame(0xb, Buffer.from('x'))],
  ['unmasked client frame', frame(0x1, Buffer.from('{}'), { mask: false })],
  ['control frame over 125 bytes', frame(0x9, Buffer.alloc(200))],
  ['fragmented control frame', frame(0x9, Buffer.from('x'), { fin: false })],
  ['continuation with nothing to continue', frame(0x0, Buffer.from('x'))],
  ['64-bit length with the top bit set', Buffer.from([0x81, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1])],
  ['64-bit length over the limit', Buffer.from([0x82, 0xff, 0, 0, 0, 1, 0, 0, 0, 0])],
  ['close frame with a 1-byte body', frame(0x8, Buffer.from([3]))],
  ['close frame with an invalid code', frame(0x8, Buffer.from([0x03, 0xe7]))],
  [
    'close frame with invalid UTF-8 reason',
    frame(0x8, Buffer.concat([Buffer.from([3, 232]), INVALID_UTF8])),
  ],
  ['truncated header', Buffer.from([0x81])],
  ['truncated mask key', Buffer.from([0x81, 0x85, 1, 2])],
  ['truncated payload', Buffer.from([0x81, 0x8a, 1, 2, 3, 4, 5, 6])],
  [
    'text frame then a non-continuation',
    Buffer.concat([frame(0x1, Buffer.from('{'), { fin: false }), frame(0x1, Buffer.from('}'))]),
  ],
];

/** Client frames whose JSON is malformed or of the wrong shape. */
const BAD_MESSAGES = [
  '',
  '{',
  'null',
  '[]',
  '"hello"',
  '1e999',
  '{"type":"hello"}',
  '{"type":"hello","token":42}',
  '{"type":"call","id":-1,"channel":"sessions.list","request":{}}',
  '{"type":"call","id":1,"channel":"no.such.channel","request":{}}',
  '{"type":"call","id":1,"channel":"sessions.create","request":{"title":{"__proto__":{"x":1}}}}',
  '{"type":"call","id":1,"channel":"constructor","request":null}',
  '{"type":"call","id":1,"channel":"__proto__","request":null}',
  `{"type":"call","id":1,"channel":"sessions.list","request":${'['.repeat(5000)}${']'.repeat(5000)}}`,
  '{"type":"welcome"}',
  '\u0000\u0001\u0002',
];

describe('gateway under garbage from a local process (built dist/cli.js)', () => {
  it('answers a legitimate client to begin with', async () => {
    await expectAlive();
  });

  for (const hello of [false, true]) {
    const when = hello ? 'after the hello' : 'before the hello';

    it(`lives through a frame over the size limit ${when}`, async () => {
      const code = await client(hello, (ws) => ws.send('x'.repeat(MAX_FRAME_BYTES + 1024 * 1024)));
      // The frame header declares its length: refused before a byte of it is buffered.
      expect(code).toBe(1009);
      await expectAlive();
    });

    it(`${hello ? 'takes' : 'drops'} a 1 MiB frame ${when} (the frame limit is for callers)`, async () => {
      const outcome = await client(hello, (ws) =>
        ws.send(
          JSON.stringify({ type: 'call', id: 1, channel: 'x', request: 'y'.repeat(1 << 20) }),
        ),
      );
      if (hello) expect(outcome).toMatchObject({ type: 'result', result: { ok: false } });
      else expect(outcome).toBe(1006);
      await expectAlive();
    });

    it(`lives through a text frame of invalid UTF-8 ${when}`, async () => {
      const code = await client(hello, (ws) => ws.send(INVALID_UTF8, { binary: false }));
      expect(code).toBe(1007);
      await expectAlive();
    });

    it(`lives through a binary frame ${when}`, async () => {
      const code = await client(hello, (ws) => ws.send(randomBytes(64), { binary: true }));
      expect([4400, 4401]).toContain(code);
      await expectAlive();
    });

    it(`lives through malformed JSON and wrong shapes ${when}`, async () => {
      for (const message of BAD_MESSAGES) {
        const outcome = await client(hello, (ws) => ws.send(message));
        // Refused: the connection closes, or (a well-formed call) the answer is an error.
        if (typeof outcome === 'number') expect([4400, 4401], message).toContain(outcome);
        else expect(outcome, message).toMatchObject({ type: 'result', result: { ok: false } });
        expect(gateway.exitCode, message).toBeNull();
      }
      await expectAlive();
    });

    it(`lives through broken frame headers on a raw socket ${when}`, async () => {
      for (const [what, bytes] of BROKEN_HEADERS) {
        await sendRaw(await upgradedSocket(hello), bytes);
        expect(gateway.exitCode, what).toBeNull();
      }
      await expectAlive();
    });

    it(`lives through seeded random frames ${when}`, async () => {
      const random = seededRandom(seed + (hello ? 1 : 0));
      for (let i = 0; i < 40; i++) {
        await sendRaw(await upgradedSocket(hello), randomFrames(random), 50);
        expect(gateway.exitCode, `case ${i} of seed ${seed}`).toBeNull();
      }
      await expectAlive();
    });
  }

  it('lives through bytes that are not HTTP, and upgrades that break off', async () => {
    const random = seededRandom(seed + 2);
    const attacks: Array<[string, Buffer]> = [
      ['random bytes', random.bytes(4096)],
      ['a request line and nothing more', Buffer.from('GET /ipc HTTP/1.1\r\n')],
      ['an oversize header', Buffer.from(`GET / HTTP/1.1\r\nX: ${'a'.repeat(100_000)}\r\n\r\n`)],
      [
        'an upgrade with a bad key',
        Buffer.from(
          `GET /ipc HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: x\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        ),
      ],
      [
        'an upgrade to a forbidden path',
        Buffer.from(
          `GET /other HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        ),
      ],
      // Targets that are no URL path: `new URL` throws on them (once inside the upgrade listener).
      ...['//', '///', '//%zz', '/\\'].map((target): [string, Buffer] => [
        `an upgrade to ${target}`,
        Buffer.from(
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        ),
      ]),
      ['a plain request for //', Buffer.from(`GET // HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)],
    ];
    for (const [what, bytes] of attacks) {
      for (const ending of ['wait', 'half-close', 'reset'] as const) {
        const socket = await connected();
        socket.write(bytes);
        if (ending === 'half-close') socket.end();
        if (ending === 'reset') socket.resetAndDestroy();
        else await sendRaw(socket, Buffer.alloc(0), 100);
        expect(gateway.exitCode, `${what}, then ${ending}`).toBeNull();
      }
    }
    await expectAlive();
  });

  it('lives through a client that resets right after upgrading, and one that goes silent', async () => {
    for (let i = 0; i < 5; i++) (await upgradedSocket(i % 2 === 0)).resetAndDestroy();
    const silent = await upgradedSocket(false);
    silent.write(Buffer.from([0x81, 0xfe, 0xff])); // promises a 65 KiB frame, sends none of it
    await expectAlive();
    silent.resetAndDestroy();
    await expectAlive();
  });

  it('lives through a request for a file that vanishes or cannot be read', async () => {
    for (const target of ['/index.html', '/%2e%2e/%2e%2e/etc/passwd', '/%ff', '/assets/']) {
      const socket = await connected();
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      socket.resetAndDestroy();
    }
    await expectAlive();
  });
});

/** A few frames of random opcode, flags, length and payload, sometimes cut short. */
function randomFrames(random: Random): Buffer {
  const parts: Buffer[] = [];
  for (let n = 1 + random.int(3); n > 0; n--) {
    const payload = random.bytes(random.pick([0, 1, 2, 125, 126, 127, 1000, 70_000]));
    const built = frame(random.int(16), payload, {
      mask: random.int(8) !== 0,
      fin: random.int(4) !== 0,
    });
    if (random.int(4) === 0) built[0] = (built[0] ?? 0) ^ (1 << (4 + random.int(3)));
    parts.push(random.int(5) === 0 ? built.subarray(0, random.int(built.length)) : built);
  }
  return Buffer.concat(parts);
}
