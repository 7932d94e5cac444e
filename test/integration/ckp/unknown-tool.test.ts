/**
 * A protocol client naming a tool that does not exist is told which tools it may call: only the
 * ones the agent's allow list offers, never registered tools the allow list hides.
 */
import { afterEach, expect, it } from 'vitest';
import { CkpHost, sessionFactory, ToolCalls } from '../../../src/main/core/ckp-server/index.js';
import { InProcessSwarm } from '../../../src/main/core/ckp-server/swarm.js';
import { type ChannelAgent, channelAgent } from '../../support/channel-agent.js';
import { CkpPeer } from '../../support/ckp-peer.js';

let fixture: ChannelAgent | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

it('an unknown tool error lists only the tools offered, not hidden ones', async () => {
  // A declared channel makes the served agent level-2 (tool calls).
  fixture = await channelAgent({
    channels: [
      {
        name: 'hook',
        type: 'webhook',
        transport: 'webhook',
        auth: { secret_ref: 'HOOK_SECRET' },
        'x-pincer': { listen: '127.0.0.1:0' },
      },
    ],
    tools: 'fs/*',
  });
  const agent = fixture.agent;
  const host = new CkpHost({ claw: agent.claw, open: async () => agent, ownsAgent: false });
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
  expect((await peer.initialize({}, 'pincer')).error).toBeUndefined();
  // sys/exec is registered but this agent does not offer it.
  expect(agent.registry.get('sys/exec')).toBeDefined();
  const answer = await peer.call('no/such-tool', {}, 'u-1');
  const available = (answer.error?.data as { available?: string[] } | undefined)?.available ?? [];
  expect(available).toContain('fs/read');
  expect(available).not.toContain('sys/exec');
  expect(available).not.toContain('agents/delegate');
}, 30_000);
