/**
 * A CKP frame is bounded before work starts: a batch past its length is refused whole with the
 * JSON-RPC error (the 4 MB batch of `0`s once became a 216 MB reply), a stdio line past the frame
 * bound is answered without being held, and a reply past its bound is replaced by errors rather
 * than sent. Through the real HTTP listener and stdio serving over an agent.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAgent } from '../../../src/main/core/agent/index.js';
import { loadClaw } from '../../../src/main/core/ckp/loader.js';
import {
  CkpHost,
  type Listener,
  listenHttp,
  serveStdio,
  sessionFactory,
  ToolCalls,
} from '../../../src/main/core/ckp-server/index.js';
import {
  answerFrame,
  MAX_BATCH,
  MAX_REPLY_BYTES,
  type RpcHandler,
} from '../../../src/main/core/ckp-server/jsonrpc.js';
import { InProcessSwarm } from '../../../src/main/core/ckp-server/swarm.js';
import { MAX_FRAME_BYTES } from '../../../src/main/core/ckp-server/transports.js';
import { repoRoot } from '../../support/cli-run.js';
import { vaultSecrets } from '../../support/secrets.js';

const TOKEN = 'test-token-for-loopback';
const ZEROS = `[${Array.from({ length: 1_999_999 }, () => '0').join(',')}]`;
let dataDir = '';
let host: CkpHost;
let http: Listener;
let open: ReturnType<typeof sessionFactory>;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-ckp-batch-'));
  const manifest = path.join(repoRoot, 'test/fixtures/ckp/serve/level-3.yaml');
  host = new CkpHost({
    claw: await loadClaw(manifest),
    open: () =>
      openAgent({
        dataDir,
        appDir: repoRoot,
        manifest,
        model: { kind: 'provider', name: 'metered' },
        tools: '**',
        secrets: vaultSecrets(dataDir),
      }),
  });
  open = sessionFactory({
    host,
    services: {
      tools: new ToolCalls({ channel: 'ckp', type: 'ckp' }),
      swarm: new InProcessSwarm(),
    },
  });
  http = await listenHttp(open, { port: 0, token: TOKEN });
});

afterAll(async () => {
  await http?.close();
  await host?.stop(0);
  await rm(dataDir, { recursive: true, force: true });
});

const post = async (body: string) => {
  const response = await fetch(http.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, text: await response.text() };
};

const status = (id: number) => ({ jsonrpc: '2.0', id, method: 'claw.status', params: {} });

describe('over HTTP', () => {
  it('the 4 MB batch of 0s is refused whole with one Invalid Request', async () => {
    expect(Buffer.byteLength(ZEROS)).toBeLessThan(MAX_FRAME_BYTES);
    const { status: code, text } = await post(ZEROS);
    expect(code).toBe(200);
    expect(text.length).toBeLessThan(1024);
    expect(JSON.parse(text)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: `Invalid request: a batch is limited to ${MAX_BATCH} messages`,
      },
    });
  });

  it(`a batch of ${MAX_BATCH} is answered, one more is refused`, async () => {
    const full = JSON.parse(
      (await post(JSON.stringify(Array.from({ length: MAX_BATCH }, (_, i) => status(i))))).text,
    ) as unknown[];
    expect(full).toHaveLength(MAX_BATCH);
    const over = JSON.parse(
      (await post(JSON.stringify(Array.from({ length: MAX_BATCH + 1 }, (_, i) => status(i))))).text,
    );
    expect(over.error.code).toBe(-32600);
  });
});

describe('over stdio', () => {
  it('answers the batch of 0s and a line past the frame bound, then serves the next frame', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.setEncoding('utf8').on('data', (chunk: string) => {
      written += chunk;
    });
    const served = serveStdio(open, input, output);
    input.write(`${ZEROS}\n`);
    // 6 MiB with no newline for a while, in pieces: refused when its line ends.
    for (let i = 0; i < 6; i++) input.write(Buffer.alloc(1024 * 1024, 0x20));
    input.write('\n');
    input.write(`${JSON.stringify(status(7))}\n`);
    input.end();
    await served;
    const answers = written
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: unknown; error?: { message: string } });
    expect(answers.map((a) => a.error?.message)).toEqual([
      `Invalid request: a batch is limited to ${MAX_BATCH} messages`,
      `Invalid request: a frame is limited to ${MAX_FRAME_BYTES} bytes`,
      // The next frame is read and answered (the session wants claw.initialize first).
      'Invalid request: claw.initialize must come first',
    ]);
    expect(answers[2]?.id).toBe(7);
  });
});

describe('the reply bound', () => {
  const big: RpcHandler = {
    request: async () => 'r'.repeat(512 * 1024),
    notification: () => undefined,
    response: () => undefined,
  };

  it('a batch whose answers pass the bound gets an error for each member past it', async () => {
    const frame = JSON.stringify(Array.from({ length: MAX_BATCH }, (_, i) => status(i)));
    const reply = (await answerFrame(frame, big)) as string;
    expect(reply.length).toBeLessThan(MAX_REPLY_BYTES);
    const answers = JSON.parse(reply) as Array<{
      id: number;
      result?: string;
      error?: { code: number };
    }>;
    expect(answers.map((a) => a.id)).toEqual(Array.from({ length: MAX_BATCH }, (_, i) => i));
    // The first ones fit and are answered; the rest get the error, none is dropped.
    const fit = answers.filter((a) => a.result !== undefined).length;
    expect(fit).toBeGreaterThan(0);
    expect(fit).toBeLessThan(MAX_BATCH);
    expect(answers.slice(fit).every((a) => a.error?.code === -32603)).toBe(true);
  });

  it('a single answer past the bound is an error for its id', async () => {
    const huge: RpcHandler = { ...big, request: async () => 'r'.repeat(MAX_REPLY_BYTES) };
    const reply = JSON.parse((await answerFrame(JSON.stringify(status(3)), huge)) as string);
    expect(reply).toMatchObject({ id: 3, error: { code: -32603 } });
    expect(reply.error.message).toContain(`${MAX_REPLY_BYTES} bytes`);
  });
});
