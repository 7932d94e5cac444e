/**
 * Nobody there means no: a run no person started at a window or terminal (a channel message, a
 * schedule, a protocol client, a swarm task, and every sub-agent those runs delegate to) never
 * gets an approval by timeout, even where the rule's `default_if_timeout` is allow. Each remote
 * surface is driven through its own real code path on a real agent (scripted model), with no
 * surface attached to answer, and the rule for writes and commands set to allow at a 1 s timeout.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { parseDocument } from 'yaml';
import {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
  WebhookChannel,
} from '../../../src/main/core/channels/webhook.js';
import { CkpHost, sessionFactory, ToolCalls } from '../../../src/main/core/ckp-server/index.js';
import { InProcessSwarm } from '../../../src/main/core/ckp-server/swarm.js';
import { agentWorker } from '../../../src/main/core/swarm/index.js';
import type { RunId } from '../../../src/main/core/terms.js';
import {
  approvalTimeout,
  type ChannelAgent,
  channelAgent,
  channelScript,
  lastUserText,
} from '../../support/channel-agent.js';
import { CkpPeer } from '../../support/ckp-peer.js';
import type { Script } from '../../support/scripted-provider.js';

const SECRET = 'webhook-test-secret';
let fixture: ChannelAgent | undefined;
let webhook: WebhookChannel | undefined;
afterEach(async () => {
  await webhook?.stop();
  webhook = undefined;
  await fixture?.close();
  fixture = undefined;
});

type Doc = ReturnType<typeof parseDocument>;
interface RuleNode {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

/**
 * Autonomous (the rules alone decide), delegation allowed by a rule, and the rules that ask for
 * writes and commands answering allow when nobody answers within a second.
 */
function permissive(doc: Doc) {
  doc.setIn(['spec', 'identity', 'inline', 'autonomy'], 'autonomous');
  approvalTimeout(1, 'allow', ['approve-filesystem-writes', 'approve-shell'])(doc);
  const rules = doc.getIn(['spec', 'policies', 0, 'inline', 'rules']) as {
    items: RuleNode[];
  };
  const at = rules.items.findIndex((rule) => rule.get('id') === 'default-deny');
  rules.items.splice(
    at,
    0,
    doc.createNode({
      id: 'allow-delegation',
      action: 'allow',
      scope: 'category',
      match: { category: 'agents' },
    }) as unknown as RuleNode,
  );
}

/** "delegate" hands "write ..." to a sub-agent given fs/write; the rest is the channel script. */
const delegating: Script = (request, call) => {
  const hasResult = request.messages.at(-1)?.content.some((b) => b.type === 'tool_result');
  if (!hasResult && lastUserText(request) === 'delegate') {
    return {
      text: 'Delegating.',
      toolCalls: [
        { name: 'agents/delegate', input: { goal: 'write from the child', tools: ['fs/write'] } },
      ],
    };
  }
  return typeof channelScript === 'function' ? channelScript(request, call) : undefined;
};

/** With a swarm declared, for the CKP swarm methods. */
function withSwarm(doc: Doc) {
  permissive(doc);
  doc.setIn(['spec', 'swarm'], {
    inline: {
      name: 'crew',
      topology: 'leader-worker',
      agents: [
        { identity_ref: 'pincer', role: 'leader' },
        { identity_ref: 'pincer', role: 'worker' },
      ],
      coordination: {
        message_passing: 'direct',
        backend: 'in-process',
        concurrency: { max_parallel: 1 },
      },
      aggregation: { strategy: 'leader-decides' },
    },
  });
}

async function open(script: Script = channelScript, edit: (doc: Doc) => void = permissive) {
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
    script,
    edit,
    tools: 'fs/*,sys/exec,memory/*,agents/delegate',
  });
  return fixture;
}

const written = (agent: ChannelAgent, file = 'notes/from-channel.txt') =>
  existsSync(path.join(agent.agent.governance.workspace, file));

/** The approvals of a run, as the audit recorded their answers. */
function answers(agent: ChannelAgent, runId: string) {
  return agent.agent.governance.audit
    .list({ runId: runId as RunId })
    .filter((row) => row.event === 'approval_resolved')
    .map((row) => ({ decision: row.decision, by: row.approvalBy }));
}

async function postSigned(url: string, body: unknown) {
  const text = JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const response = await fetch(url, {
    method: 'POST',
    body: text,
    headers: {
      'content-type': 'application/json',
      [TIMESTAMP_HEADER]: timestamp,
      [SIGNATURE_HEADER]: signWebhook(SECRET, timestamp, text),
    },
  });
  return (await response.json()) as Record<string, unknown>;
}

it('a signed webhook run that delegates gets a child whose write is denied at timeout, and nothing is written', async () => {
  const agent = await open(delegating);
  webhook = new WebhookChannel(agent.decl('hook'), agent.hub, { secret: SECRET, allowedHosts: [] });
  await webhook.start();
  const reply = await postSigned(webhook.status().detail.url as string, {
    text: 'delegate',
    user: 'ci-bot',
  });
  const parent = reply.run_id as RunId;
  const [child] = agent.agent.store.childRuns(parent);
  if (!child) throw new Error(`no child run: ${JSON.stringify(reply)}`);
  // The child carries its parent's origin, so it meets the same guard.
  expect(agent.agent.store.getRun(child.id)?.options.origin).toMatchObject({
    channel: 'hook',
    type: 'webhook',
  });
  expect(answers(agent, child.id)).toEqual([{ decision: 'denied', by: 'timeout' }]);
  expect(agent.agent.store.toolCalls(child.id)[0]?.result).toContain('approval_timeout');
  expect(written(agent)).toBe(false);
}, 30_000);

it("a webhook run's own write is denied at timeout", async () => {
  const agent = await open();
  webhook = new WebhookChannel(agent.decl('hook'), agent.hub, { secret: SECRET, allowedHosts: [] });
  await webhook.start();
  const reply = await postSigned(webhook.status().detail.url as string, { text: 'write it' });
  expect(answers(agent, reply.run_id as string)).toEqual([{ decision: 'denied', by: 'timeout' }]);
  expect(written(agent)).toBe(false);
}, 30_000);

function ckpPeer(agent: ChannelAgent): CkpPeer {
  const host = new CkpHost({
    claw: agent.agent.claw,
    open: async () => agent.agent,
    ownsAgent: false,
  });
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

it('a CKP client calling fs/write and sys/exec with nobody to approve is denied at timeout', async () => {
  const agent = await open();
  const peer = ckpPeer(agent);
  const init = await peer.initialize({}, 'pincer');
  expect(init.error).toBeUndefined();
  const write = await peer.call('fs/write', { path: 'ckp.txt', content: 'x' }, 'w-1');
  expect(write.error).toMatchObject({ code: -32012 });
  const exec = await peer.call('sys/exec', { command: 'touch', args: ['ckp-exec.txt'] }, 'x-1');
  expect(exec.error).toMatchObject({ code: -32012 });
  expect(written(agent, 'ckp.txt')).toBe(false);
  expect(written(agent, 'ckp-exec.txt')).toBe(false);
}, 30_000);

it('a swarm task run by this agent as a worker is denied at timeout', async () => {
  const agent = await open();
  const report = await agentWorker(agent.agent)(
    { id: 'task-1', swarm: 'team', operation: 'op-1', description: 'write from the swarm' },
    { signal: new AbortController().signal, attempt: 1 },
  );
  expect(report.result).toContain('not written');
  expect(written(agent)).toBe(false);
}, 30_000);

it('a task a CKP peer delegates to this agent (claw.swarm.delegate) is denied at timeout', async () => {
  const agent = await open(channelScript, withSwarm);
  const reports: unknown[] = [];
  let work: Promise<unknown> = Promise.resolve();
  const acknowledged = new InProcessSwarm().delegate(
    agent.agent,
    { task_id: 'task-1', task: { description: 'write from a peer' }, swarm: 'crew' },
    (report) => reports.push(report),
    (tracked) => {
      work = tracked;
    },
  );
  expect(acknowledged).toEqual({ acknowledged: true });
  await work;
  expect(JSON.stringify(reports)).toContain('not written');
  expect(written(agent)).toBe(false);
}, 30_000);

it('a delegated child of a CKP client call is denied at timeout', async () => {
  const agent = await open();
  const peer = ckpPeer(agent);
  expect((await peer.initialize({}, 'pincer')).error).toBeUndefined();
  const called = await peer.call(
    'agents/delegate',
    { goal: 'write from the child', tools: ['fs/write'] },
    'd-1',
  );
  expect(JSON.stringify(called.result)).toContain('approval_timeout');
  expect(written(agent)).toBe(false);
}, 30_000);
