/**
 * The CKP-A2A profile's task namespace (`claw.task.create/get/list/subscribe/cancel`, §6) on
 * `pincer serve --stdio` from the built CLI, over the same tasks its A2A listener serves: a task
 * created over CKP is read by the official A2A client, and the errors (unknown task, bad params,
 * a finished task cancelled, a method the agent only sends) have their CKP codes. The operator
 * names itself differently from the served agent, as a harness does.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, expect, it } from 'vitest';
import { CkpPeer } from '../support/ckp-peer.js';
import { Product, repoRoot, until } from './support/harness.js';

const product = new Product();
afterEach(() => product.cleanUp());

const TOKEN = 'product-ckp-task-token';

it('claw.task.* create, get, list, subscribe and cancel the tasks A2A serves, with CKP errors', async () => {
  const scratch = await product.scratch('ckp-tasks', { A2A_TOKEN: TOKEN });
  const manifest = path.join(scratch.dir, 'served-claw.yaml');
  const level3 = await readFile(
    path.join(repoRoot, 'test/fixtures/ckp/serve/level-3.yaml'),
    'utf8',
  );
  await writeFile(
    manifest,
    level3
      .replace('endpoint: "http://127.0.0.1:9/v1"', `endpoint: "${scratch.model.url}"`)
      .replace('limits: { tokens_per_request: 1 }', ''),
  );
  const server = product.start(
    ['serve', '--stdio', '--a2a', '0', '--token-env', 'A2A_TOKEN', '--manifest', manifest],
    scratch.env,
    { stdin: 'pipe' },
  );
  const stdin = server.child.stdin as NonNullable<typeof server.child.stdin>;
  const peer = new CkpPeer((frame) => stdin.write(`${frame}\n`));
  const stdout = server.child.stdout as NonNullable<typeof server.child.stdout>;
  createInterface({ input: stdout }).on('line', (line) => peer.receive(line));
  const base = (await server.waitFor(/A2A on (http:\/\/127\.0\.0\.1:\d+)\/a2a/))[1] as string;

  expect((await server.whileAlive(peer.initialize({}, 'test-agent'))).result).toMatchObject({
    agentInfo: { name: 'served' },
  });

  // create, waiting for the end: the reply is the task's artifact.
  const created = await peer.request('claw.task.create', {
    message: { role: 'user', parts: [{ type: 'text', text: 'hello task' }] },
    wait: true,
  });
  const task = (created.result as { task: Record<string, unknown> }).task;
  expect(task).toMatchObject({
    status: { state: 'completed' },
    artifacts: [{ name: 'reply', parts: [{ type: 'text', text: 'echo: hello task' }] }],
  });
  const taskId = task.task_id as string;

  // get: the same task; and the official A2A client reads it too (one task store).
  expect((await peer.request('claw.task.get', { task_id: taskId })).result).toMatchObject({
    task: { task_id: taskId, status: { state: 'completed' } },
  });
  const client = await new ClientFactory().createFromUrl(base);
  const overA2a = await client.getTask(
    { tenant: '', id: taskId },
    { serviceParameters: { authorization: `Bearer ${TOKEN}` } },
  );
  expect(overA2a.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

  // create without waiting, subscribe to it, cancel it: the updates arrive as notifications.
  const slow = await peer.request('claw.task.create', {
    message: { parts: [{ type: 'text', text: 'slow 60000 wait for it' }] },
  });
  const slowId = (slow.result as { task: { task_id: string } }).task.task_id;
  expect((slow.result as { task: { status: { state: string } } }).task.status.state).toMatch(
    /submitted|working/,
  );
  await until('the slow run asked the model', () =>
    scratch.model.asked.includes('slow 60000 wait for it'),
  );
  expect((await peer.request('claw.task.subscribe', { task_id: slowId })).result).toMatchObject({
    subscribed: true,
  });
  expect((await peer.request('claw.task.cancel', { task_id: slowId })).result).toMatchObject({
    task: { task_id: slowId, status: { state: 'canceled' } },
  });
  await peer.until(() =>
    peer.notifications.some(
      (n) =>
        n.method === 'claw.task.update' &&
        (n.params as { task_id: string; state?: string }).task_id === slowId &&
        (n.params as { state?: string }).state === 'canceled',
    ),
  );

  // list: both, newest first; filtered by state.
  const listed = (await peer.request('claw.task.list', {})).result as {
    tasks: Array<{ task_id: string }>;
  };
  expect(listed.tasks.map((t) => t.task_id).sort()).toEqual([taskId, slowId].sort());
  const done = (await peer.request('claw.task.list', { status: 'completed' })).result as {
    tasks: Array<{ task_id: string }>;
  };
  expect(done.tasks.map((t) => t.task_id)).toEqual([taskId]);

  // A finished task subscribes to nothing more.
  expect((await peer.request('claw.task.subscribe', { task_id: taskId })).result).toMatchObject({
    subscribed: false,
  });

  // The errors.
  expect((await peer.request('claw.task.get', { task_id: 'no-such-task' })).error).toMatchObject({
    code: -32602,
    data: { task_id: 'no-such-task' },
  });
  expect((await peer.request('claw.task.cancel', { task_id: 'no-such-task' })).error).toMatchObject(
    { code: -32602 },
  );
  expect((await peer.request('claw.task.cancel', { task_id: taskId })).error).toMatchObject({
    code: -32600,
    data: { task_id: taskId },
  });
  expect((await peer.request('claw.task.create', { message: { parts: [] } })).error).toMatchObject({
    code: -32602,
  });
  expect((await peer.request('claw.task.get', {})).error).toMatchObject({ code: -32602 });
  expect((await peer.request('claw.task.list', { status: 'sleeping' })).error).toMatchObject({
    code: -32602,
  });
  expect((await peer.request('claw.task.update', { task_id: taskId })).error).toMatchObject({
    code: -32601,
  });
  expect(peer.stray).toEqual([]);
  stdin.end();
  expect(await server.exited).toBe(0);
});
