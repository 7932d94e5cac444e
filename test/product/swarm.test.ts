/**
 * `pincer swarm join` and `pincer swarm run` from the built CLI, two processes with data dirs of
 * their own, coordinated over a real nats-server: the worker answers the leader's task with its
 * scripted model, and the leader prints that answer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { writeSwarmManifest } from '../integration/swarm/fixtures/manifest.js';
import { natsMissing, startNats } from '../support/nats.js';
import { Product } from './support/harness.js';

const missing = natsMissing();
if (missing) console.warn(`product suite: the swarm needs nats-server: ${missing}`);

describe.skipIf(missing)('pincer swarm across two processes', () => {
  const product = new Product();
  afterAll(() => product.cleanUp());

  it('a joined worker answers the task a leader in another process runs', async () => {
    const nats = await startNats();
    product.onCleanUp(() => nats.stop());
    const worker = await product.scratch('swarm-worker');
    const leader = await product.scratch('swarm-leader');
    const manifest = await writeSwarmManifest(await product.tempDir('pincer-product-swarm-'), {
      backend: 'nats',
      natsUrl: nats.url,
      workers: 1,
      strategy: 'majority-vote',
    });

    const joined = product.start(
      ['swarm', 'join', '--manifest', manifest, '--id', 'w1', ...worker.model.args],
      worker.env,
    );
    await joined.waitFor('joined swarm team as w1');

    const run = await product.run(
      ['swarm', 'run', '--manifest', manifest, ...leader.model.args, 'name the capital of France'],
      leader.env,
    );
    expect(run.stderr).toMatch(/\[w1\] completed/);
    expect(run.stdout.trim()).toContain('echo: name the capital of France');
    expect(run.code).toBe(0);
    expect(worker.model.asked.some((text) => text.includes('name the capital of France'))).toBe(
      true,
    );
  });
});
