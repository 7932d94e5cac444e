/**
 * `pincer daemon` from the built CLI with one channel of each type declared in its manifest:
 * Telegram (a Bot API server on 127.0.0.1), a signed webhook, a cron firing every second, and a
 * NATS queue on a real nats-server. Each answers one message with the scripted model's reply.
 */
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeBotApi } from '../fixtures/bot-api-server.js';
import { writeManifest } from '../support/channel-agent.js';
import { freePort, signedPost, webhookChannel } from '../support/daemon-process.js';
import { natsMissing, startNats } from '../support/nats.js';
import { Product, replyInStore, type Scratch, type Started, until } from './support/harness.js';

const OWNER = 4242;
const SECRET = 'product-hook-secret';
const missing = natsMissing();
if (missing) console.warn(`product suite: the daemon channels need nats-server: ${missing}`);

describe.skipIf(missing)('pincer daemon: every channel type from the manifest', () => {
  const product = new Product();
  const api = new FakeBotApi();
  let scratch: Scratch;
  let daemon: Started;
  let hookUrl = '';
  let nc: NatsConnection;

  beforeAll(async () => {
    const apiRoot = await api.start();
    product.onCleanUp(() => api.close());
    const nats = await startNats();
    product.onCleanUp(() => nats.stop());
    nc = await connect({ servers: nats.url });
    product.onCleanUp(() => nc.close());
    const port = await freePort();
    hookUrl = `http://127.0.0.1:${port}/`;
    scratch = await product.scratch('daemon', {
      HOOK_SECRET: SECRET,
      TELEGRAM_TOKEN: api.token,
    });
    const manifest = await writeManifest(scratch.dir, [
      {
        name: 'phone',
        type: 'telegram',
        transport: 'polling',
        auth: { secret_ref: 'TELEGRAM_TOKEN' },
        access_control: { mode: 'allowlist', allowed_ids: [String(OWNER)] },
        'x-pincer': { api_root: apiRoot },
      },
      webhookChannel(port),
      {
        name: 'tick',
        type: 'cron',
        transport: 'polling',
        auth: { secret_ref: 'unused' },
        trigger: { schedule: '* * * * * *' },
        'x-pincer': { prompt: 'the one-second tick' },
      },
      {
        name: 'jobs',
        type: 'queue',
        transport: 'polling',
        auth: { secret_ref: 'NATS_TOKEN' },
        trigger: { queue_name: 'product.jobs' },
        'x-pincer': { servers: nats.url },
      },
    ]);
    daemon = product.start(
      ['daemon', '--manifest', manifest, ...scratch.model.args, '--drain', '2'],
      scratch.env,
    );
    await daemon.waitFor('Pincer daemon ready');
  });
  afterAll(() => product.cleanUp());

  /** Waits until `pincer channels status` (the built CLI) reports the channel running. */
  async function running(name: string) {
    let status = '';
    await until(
      `channel ${name} running`,
      async () => {
        if (daemon.output().includes(`${name}: not started`))
          throw new Error(`channel ${name} did not start:\n${daemon.output()}`);
        status = (await product.run(['channels', 'status'], scratch.env)).stdout;
        return new RegExp(`^\\s*${name} \\(\\w+\\): running`, 'm').test(status);
      },
      () => `${status}\n${daemon.output()}`,
      60_000,
    );
  }

  it('Telegram: an allowlisted user’s message is answered in their chat', async () => {
    await running('phone');
    api.userSays(OWNER, 'hello from the phone');
    const sent = await api.waitFor(
      (call) => call.method === 'sendMessage' && String(call.body.chat_id) === String(OWNER),
    );
    expect(sent.body.text).toBe('echo: hello from the phone');
  });

  it('webhook: a signed request gets the reply in its response', async () => {
    await running('hook');
    const response = await signedPost(hookUrl, SECRET, { text: 'hello hook', user: 'ci' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ reply: 'echo: hello hook' });
  });

  it('cron: the one-second schedule runs its prompt and the reply is recorded', async () => {
    await until(
      'a tick answered',
      async () =>
        (await replyInStore(product, scratch.env, 'the one-second tick')) ===
        'echo: the one-second tick',
      () => daemon.output(),
      60_000,
    );
  });

  it('queue: a message published on the NATS subject runs and its reply is recorded', async () => {
    await running('jobs');
    await jetstream(nc).publish('product.jobs', 'the queued job');
    await until(
      'the queued job answered',
      async () =>
        (await replyInStore(product, scratch.env, 'the queued job')) === 'echo: the queued job',
      () => daemon.output(),
      60_000,
    );
  });
});
