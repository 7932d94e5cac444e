/**
 * `pincer serve --stdio | --http PORT | --ws PORT` from the built CLI: a peer initializes, then
 * delegates one task (`claw.swarm.delegate`), which the served agent runs on the scripted model.
 * On stdio and WebSocket the reply comes back as the `claw.swarm.report` request the server
 * pushes; plain HTTP cannot push, so there the reply is read from the run the task recorded.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CkpPeer } from '../support/ckp-peer.js';
import { Product, replyInStore, repoRoot, type Scratch, until } from './support/harness.js';

const product = new Product();
afterEach(() => product.cleanUp());

const TOKEN = 'product-ckp-token';

/**
 * The level-3 agent of the CKP server tests (every primitive kind declared), its provider the
 * scripted model with no limit in the way.
 */
async function served(name: string): Promise<{ scratch: Scratch; manifest: string }> {
  const scratch = await product.scratch(`ckp-${name}`, { CKP_TOKEN: TOKEN });
  const manifest = path.join(scratch.dir, 'served-claw.yaml');
  const level3 = await readFile(
    path.join(repoRoot, 'test/fixtures/ckp/serve/level-3.yaml'),
    'utf8',
  );
  const edited = level3
    .replace('endpoint: "http://127.0.0.1:9/v1"', `endpoint: "${scratch.model.url}"`)
    .replace('limits: { tokens_per_request: 1 }', '');
  if (edited === level3) throw new Error('level-3.yaml changed: update this test');
  await writeFile(manifest, edited);
  return { scratch, manifest };
}

const delegate = (peer: CkpPeer, task: string) =>
  peer.request('claw.swarm.delegate', {
    task_id: 'task-1',
    task: { description: task },
    context: { request_id: 'delegate-1', swarm: 'crew' },
  });

async function reportOf(peer: CkpPeer) {
  await peer.until(() => peer.requests.some((r) => r.method === 'claw.swarm.report'));
  return peer.requests.find((r) => r.method === 'claw.swarm.report')?.params;
}

it('--stdio: initialize, delegate, and the report carries the reply', async () => {
  const { scratch, manifest } = await served('stdio');
  const server = product.start(['serve', '--stdio', '--manifest', manifest], scratch.env, {
    stdin: 'pipe',
  });
  const stdin = server.child.stdin as NonNullable<typeof server.child.stdin>;
  const peer = new CkpPeer((frame) => stdin.write(`${frame}\n`));
  const stdout = server.child.stdout as NonNullable<typeof server.child.stdout>;
  createInterface({ input: stdout }).on('line', (line) => peer.receive(line));

  expect((await server.whileAlive(peer.initialize())).result).toMatchObject({
    conformanceLevel: 'level-3',
  });
  expect((await delegate(peer, 'hello over stdio')).result).toEqual({ acknowledged: true });
  expect(await server.whileAlive(reportOf(peer))).toMatchObject({
    task_id: 'task-1',
    status: 'completed',
    result: { summary: 'echo: hello over stdio' },
  });
  expect(peer.stray).toEqual([]);
  stdin.end();
  expect(await server.exited).toBe(0);
});

it('--ws: initialize with the bearer token, delegate, and the pushed report carries the reply', async () => {
  const { scratch, manifest } = await served('ws');
  const server = product.start(
    ['serve', '--ws', '0', '--manifest', manifest, '--token-env', 'CKP_TOKEN'],
    scratch.env,
  );
  const url = (await server.waitFor(/CKP on (ws:\/\/127\.0\.0\.1:\d+\/)/))[1] as string;
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  product.onCleanUp(async () => socket.close());
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const peer = new CkpPeer((frame) => socket.send(frame));
  socket.on('message', (data) => peer.receive(String(data)));

  expect((await server.whileAlive(peer.initialize())).result).toMatchObject({
    conformanceLevel: 'level-3',
  });
  expect((await delegate(peer, 'hello over websocket')).result).toEqual({ acknowledged: true });
  expect(await server.whileAlive(reportOf(peer))).toMatchObject({
    status: 'completed',
    result: { summary: 'echo: hello over websocket' },
  });
});

it('--http: initialize with the bearer token, delegate, and the run records the reply', async () => {
  const { scratch, manifest } = await served('http');
  const server = product.start(
    ['serve', '--http', '0', '--manifest', manifest, '--token-env', 'CKP_TOKEN'],
    scratch.env,
  );
  const url = (await server.waitFor(/CKP on (http:\/\/127\.0\.0\.1:\d+\/)/))[1] as string;
  const peer = new CkpPeer((frame) => {
    void fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: frame,
    }).then(async (response) => {
      if (response.status === 200) peer.receive(await response.text());
    });
  });

  expect((await peer.initialize()).result).toMatchObject({ conformanceLevel: 'level-3' });
  expect((await delegate(peer, 'hello over http')).result).toEqual({ acknowledged: true });
  await until(
    'the delegated run answered',
    async () =>
      (await replyInStore(product, scratch.env, 'hello over http')) === 'echo: hello over http',
    server.output,
    60_000,
  );
});
