/**
 * A CKP host serving an agent another surface owns (the daemon's): `claw.shutdown` drains, then
 * cancels the calls it started that are still running, and leaves the agent open; a second
 * `claw.initialize` serves the same agent again. The owning host (the default) still closes it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, openAgent } from '../../../src/main/core/agent/index.js';
import { CkpHost, sessionFactory, ToolCalls } from '../../../src/main/core/ckp-server/index.js';
import { InProcessSwarm } from '../../../src/main/core/ckp-server/swarm.js';
import { CkpPeer } from '../../support/ckp-peer.js';
import { repoRoot } from '../../support/cli-run.js';
import { vaultSecrets } from '../../support/secrets.js';

const manifest = path.join(repoRoot, 'test/fixtures/ckp/serve/level-3.yaml');
let dataDir = '';
let agent: Agent;

async function openTestAgent(): Promise<Agent> {
  return openAgent({
    dataDir,
    appDir: repoRoot,
    manifest,
    model: { kind: 'provider', name: 'metered' },
    tools: '**',
    secrets: vaultSecrets(dataDir),
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-ckp-shared-'));
  agent = await openTestAgent();
});

afterAll(async () => {
  await agent?.close();
  await rm(dataDir, { recursive: true, force: true });
});

function peerOf(host: CkpHost): CkpPeer {
  const session = sessionFactory({
    host,
    services: {
      tools: new ToolCalls({ channel: 'ckp', type: 'ckp' }),
      swarm: new InProcessSwarm(),
    },
  })(undefined, 'test');
  const peer: CkpPeer = new CkpPeer((frame) => {
    void session.receive(frame).then((answer) => {
      if (answer) peer.receive(answer);
    });
  });
  return peer;
}

describe('a host that does not own its agent', () => {
  it('shutdown cancels its own undrained call, keeps the agent open, and serves it again', async () => {
    let opened = 0;
    const host = new CkpHost({
      claw: agent.claw,
      open: async () => {
        opened++;
        return agent;
      },
      ownsAgent: false,
    });
    const peer = peerOf(host);
    expect((await peer.initialize()).result).toMatchObject({ conformanceLevel: 'level-3' });
    // A write waits for an approval (60 s): in flight when the shutdown comes.
    const waiting = peer.call('fs/write', { path: 'held.md', content: 'x' }, 'held-1');
    await expect.poll(() => agent.governance.broker.pending().length).toBe(1);

    const shutdown = await peer.request('claw.shutdown', { timeout_ms: 100 });
    expect(shutdown.result).toEqual({ drained: false });
    // The call was cancelled rather than left running on the shared agent (until its
    // approval's 60 s timeout, -32012).
    expect((await waiting).error).toMatchObject({ code: -32603, data: { outcome: 'cancelled' } });
    expect(agent.governance.broker.pending()).toEqual([]);
    expect(agent.runtime.activeRuns).toBe(0);
    expect(host.signal.aborted).toBe(true);

    // The agent is still open: the owner can run it, and CKP serves it again.
    expect(agent.registry.get('fs/list')).toBeDefined();
    expect((await peer.initialize()).result).toMatchObject({ conformanceLevel: 'level-3' });
    expect(opened).toBe(2);
    expect(host.signal.aborted).toBe(false);
    const listed = await peer.call('fs/list', { path: '.' }, 'list-after');
    expect(listed.error).toBeUndefined();
    expect(listed.result).toMatchObject({ isError: false });
    expect(await host.stop(0)).toEqual({ drained: true });
  });

  it('a drained shutdown cancels nothing', async () => {
    const host = new CkpHost({ claw: agent.claw, open: async () => agent, ownsAgent: false });
    const peer = peerOf(host);
    await peer.initialize();
    expect((await peer.call('fs/list', { path: '.' }, 'list-1')).error).toBeUndefined();
    expect((await peer.request('claw.shutdown', { timeout_ms: 1000 })).result).toEqual({
      drained: true,
    });
    expect(host.signal.aborted).toBe(false);
  });
});

describe('a host that owns its agent (the default)', () => {
  it('closes the agent on shutdown', async () => {
    const own = await openTestAgent();
    let closed = false;
    const close = own.close.bind(own);
    own.close = async () => {
      closed = true;
      await close();
    };
    const host = new CkpHost({ claw: own.claw, open: async () => own });
    const peer = peerOf(host);
    await peer.initialize();
    await peer.request('claw.shutdown', { timeout_ms: 100 });
    expect(closed).toBe(true);
  });
});
