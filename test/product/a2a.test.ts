/**
 * `pincer serve --a2a PORT` from the built CLI, driven by the official A2A SDK's client: the
 * AgentCard at the well-known path, SendMessage, its stream, GetTask, CancelTask, a push
 * notification to a receiver on 127.0.0.1, and a risky tool call denied at once because nobody
 * is attached to approve it. The model is the scripted one (its `call` and `slow` scripts).
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  AGENT_CARD_PATH,
  type Message,
  Role,
  type SendMessageRequest,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, expect, it } from 'vitest';
import { Product, repoRoot, type Scratch, type Started, until } from './support/harness.js';

const product = new Product();
afterEach(() => product.cleanUp());

const TOKEN = 'product-a2a-token';
const auth = { serviceParameters: { authorization: `Bearer ${TOKEN}` } };

async function served(name: string): Promise<{ scratch: Scratch; manifest: string }> {
  const scratch = await product.scratch(`a2a-${name}`, { A2A_TOKEN: TOKEN });
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

async function serveA2a(
  scratch: Scratch,
  manifest: string,
  extra: string[] = [],
): Promise<{ server: Started; base: string; client: Client }> {
  const server = product.start(
    ['serve', '--a2a', '0', '--manifest', manifest, '--token-env', 'A2A_TOKEN', ...extra],
    scratch.env,
  );
  const match = await server.waitFor(/A2A on (http:\/\/127\.0\.0\.1:\d+)\/a2a/);
  const base = match[1] as string;
  const client = await new ClientFactory().createFromUrl(base);
  return { server, base, client };
}

function userMessage(text: string): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [
      {
        content: { $case: 'text', value: text },
        metadata: {},
        filename: '',
        mediaType: 'text/plain',
      },
    ],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

function request(
  text: string,
  configuration?: Partial<SendMessageRequest['configuration']>,
): SendMessageRequest {
  return {
    tenant: '',
    message: userMessage(text),
    configuration: configuration
      ? {
          acceptedOutputModes: [],
          taskPushNotificationConfig: undefined,
          returnImmediately: false,
          ...configuration,
        }
      : undefined,
    metadata: {},
  };
}

const replyOf = (task: Task) =>
  task.artifacts
    .flatMap((artifact) => artifact.parts)
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');

it('publishes the AgentCard projected from Identity and Skills, and wants the bearer token', async () => {
  const { scratch, manifest } = await served('card');
  const { base, client } = await serveA2a(scratch, manifest);

  const card = await client.getAgentCard();
  expect(card).toMatchObject({
    name: 'served',
    description: 'You are a test agent.',
    version: '3.1.0',
    capabilities: { streaming: true, pushNotifications: true },
    skills: [{ id: 'wipe', description: 'Wipe a disk', tags: ['wipe-disk'] }],
  });
  expect(card.supportedInterfaces).toEqual([
    expect.objectContaining({ url: `${base}/a2a`, protocolBinding: 'JSONRPC' }),
  ]);
  // The raw card, as any client reads it at the well-known path, without a token.
  const raw = (await (await fetch(`${base}/${AGENT_CARD_PATH}`)).json()) as Record<string, unknown>;
  expect(raw).toMatchObject({ name: 'served', securitySchemes: { bearer: expect.anything() } });
  // Calls without the token are refused before the SDK sees them.
  const anonymous = await fetch(`${base}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
  });
  expect(anonymous.status).toBe(401);
  await expect(client.sendMessage(request('hello'))).rejects.toThrow();
});

it('message/send, message/stream and tasks/get run the agent on the scripted model', async () => {
  const { scratch, manifest } = await served('send');
  const { client } = await serveA2a(scratch, manifest);

  const sent = (await client.sendMessage(request('hello over a2a'), auth)) as Task;
  expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(replyOf(sent)).toBe('echo: hello over a2a');

  const events: string[] = [];
  let streamedTask = '';
  for await (const event of client.sendMessageStream(request('hello streamed'), auth)) {
    const payload = event.payload;
    if (payload?.$case === 'task') streamedTask = payload.value.id;
    if (payload?.$case === 'statusUpdate')
      events.push(`status:${TaskState[payload.value.status?.state ?? 0]}`);
    if (payload?.$case === 'artifactUpdate')
      events.push(
        `artifact:${payload.value.artifact?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('')}`,
      );
  }
  expect(events).toEqual([
    'status:TASK_STATE_WORKING',
    'artifact:echo: hello streamed',
    'status:TASK_STATE_COMPLETED',
  ]);

  const got = await client.getTask({ tenant: '', id: streamedTask }, auth);
  expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(replyOf(got)).toBe('echo: hello streamed');
  await expect(client.getTask({ tenant: '', id: 'no-such-task' }, auth)).rejects.toThrow(
    /not found/i,
  );
});

it('tasks/cancel cancels the running task and its run', async () => {
  const { scratch, manifest } = await served('cancel');
  const { client } = await serveA2a(scratch, manifest);

  const started = (await client.sendMessage(
    request('slow 60000 take your time', { returnImmediately: true }),
    auth,
  )) as Task;
  await until('the model was asked', () =>
    scratch.model.asked.includes('slow 60000 take your time'),
  );
  const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: {} }, auth);
  expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  const got = await client.getTask({ tenant: '', id: started.id }, auth);
  expect(got.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  // A finished task cannot be cancelled again into another state.
  await expect(
    client.cancelTask({ tenant: '', id: 'no-such-task', metadata: {} }, auth),
  ).rejects.toThrow(/not found/i);
});

it('sends push notifications to a granted receiver on 127.0.0.1, and none to an address not granted', async () => {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const strays: string[] = [];
  const receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200).end();
  });
  const stray = createServer((req, res) => {
    strays.push(req.url ?? '');
    res.writeHead(200).end();
  });
  for (const server of [receiver, stray]) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    product.onCleanUp(() => new Promise((resolve) => server.close(resolve)));
  }
  const port = (server: typeof receiver) => (server.address() as AddressInfo).port;

  const { scratch, manifest } = await served('push');
  const { server, client } = await serveA2a(scratch, manifest, [
    '--a2a-push-hosts',
    `127.0.0.1:${port(receiver)}`,
  ]);
  const pushTo = (url: string, token: string) => ({
    taskPushNotificationConfig: {
      tenant: '',
      id: '',
      taskId: '',
      url,
      token,
      authentication: undefined,
    },
  });

  const task = (await client.sendMessage(
    request('hello pushed', pushTo(`http://127.0.0.1:${port(receiver)}/hook`, 'push-token')),
    auth,
  )) as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  await until('the completed state was pushed', () =>
    received.some((one) => one.body.includes('TASK_STATE_COMPLETED')),
  );
  expect(received.every((one) => one.headers['x-a2a-notification-token'] === 'push-token')).toBe(
    true,
  );
  expect(received.some((one) => one.body.includes(task.id))).toBe(true);

  await client.sendMessage(
    request('hello not pushed', pushTo(`http://127.0.0.1:${port(stray)}/hook`, 'x')),
    auth,
  );
  await server.waitFor(/push notification for task .* not sent: .*internal address/);
  expect(strays).toEqual([]);
});

it('a risky tool call is denied at once: nobody is attached to approve it', async () => {
  const { scratch, manifest } = await served('risky');
  const { client } = await serveA2a(scratch, manifest);

  // fs/write needs an approval under the manifest's rules (writes-need-ok, 60 s to answer).
  const task = (await client.sendMessage(
    request('call fs__write {"path":"owned.txt","content":"written by a remote caller"}'),
    auth,
  )) as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  // Nobody could answer: the surface refused it (not the rule's timeout, 60 s later).
  const runId = task.status?.message?.metadata?.pincer_run_id;
  expect(runId).toMatch(/^run/);
  const shown = await product.run(['runs', 'show', String(runId), '--json'], scratch.env);
  expect(shown.stdout).toMatch(/nobody is attached to approve/);
  await expect(
    readFile(path.join(scratch.dir, 'workspace', 'owned.txt'), 'utf8'),
  ).rejects.toThrow();
});

it('the daemon serves A2A with its CKP token; with no surface attached a risky call is denied', async () => {
  const { scratch, manifest } = await served('daemon');
  const daemon = product.start(
    [
      'daemon',
      '--manifest',
      manifest,
      '--provider',
      'metered',
      '--no-attach',
      '--drain',
      '2',
      '--a2a-http',
      '0',
      '--ckp-token-env',
      'A2A_TOKEN',
    ],
    scratch.env,
  );
  const base = (
    await daemon.waitFor(/A2A \(http\) on (http:\/\/127\.0\.0\.1:\d+)\/a2a/)
  )[1] as string;
  const client = await new ClientFactory().createFromUrl(base);
  expect((await client.getAgentCard()).name).toBe('served');

  const sent = (await client.sendMessage(request('hello daemon'), auth)) as Task;
  expect(replyOf(sent)).toBe('echo: hello daemon');

  const risky = (await client.sendMessage(
    request('call fs__write {"path":"owned.txt","content":"from afar"}'),
    auth,
  )) as Task;
  const runId = risky.status?.message?.metadata?.pincer_run_id;
  daemon.child.kill('SIGTERM');
  await daemon.exited;
  const shown = await product.run(['runs', 'show', String(runId), '--json'], scratch.env);
  expect(shown.stdout).toMatch(/nobody is attached to approve/);
});
