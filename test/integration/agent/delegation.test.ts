/**
 * Sub-agents as a tool (agents/delegate): a child is a run of the same root's parts with its own
 * session, never wider than its parent; driven end to end by scripted models through openAgent.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { narrowedPolicy } from '../../../src/main/core/agent/delegation.js';
import { type Agent, openAgent } from '../../../src/main/core/agent/index.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type { ModelRequest } from '../../../src/main/core/models/types.js';
import type { RunId } from '../../../src/main/core/terms.js';
import type { ToolResultBlock } from '../../../src/shared/messages.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { runCliInProcess } from '../../support/cli-run.js';
import { type IdentityInline, OPEN_POLICY, writeClaw } from '../../support/manifest.js';
import { ScriptedProvider, type ScriptedReply } from '../../support/scripted-provider.js';
import { vaultSecrets } from '../../support/secrets.js';

let dataDir = '';
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-delegate-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

function manifest(autonomy: IdentityInline['autonomy'], delegation?: IdentityInline['delegation']) {
  return writeClaw(
    dataDir,
    {
      name: 'delegator',
      identity: { personality: 'A test agent.', autonomy, delegation },
      policies: [OPEN_POLICY],
    },
    'test-claw.yaml',
  );
}

const SUB = 'You are a sub-agent';
const isChild = (request: ModelRequest) => request.system?.includes(SUB) === true;
const lastResult = (request: ModelRequest) =>
  request.messages.at(-1)?.content.find((b) => b.type === 'tool_result') as
    | ToolResultBlock
    | undefined;
const toolNames = (request: ModelRequest) => (request.tools ?? []).map((tool) => tool.name);

async function agentWith(
  script: (request: ModelRequest) => ScriptedReply,
  options: {
    autonomy?: IdentityInline['autonomy'];
    delegation?: IdentityInline['delegation'];
    tools: string;
  },
): Promise<{ agent: Agent; provider: ScriptedProvider }> {
  const provider = new ScriptedProvider((request) => script(request));
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    manifest: await manifest(options.autonomy ?? 'autonomous', options.delegation),
    model: { kind: 'fixed', access: viaProvider(provider, 'scripted'), label: 'scripted' },
    tools: options.tools,
    secrets: vaultSecrets(dataDir, 'test-passphrase'),
  });
  return { agent, provider };
}

it('a child runs the brief with its own session and tool subset; its answer and usage are the tool result; runs form a tree', async () => {
  const { agent, provider } = await agentWith(
    (request) => {
      const result = lastResult(request);
      if (isChild(request)) {
        if (!result)
          return { toolCalls: [{ name: 'memory/note', input: { text: 'child was here' } }] };
        return { text: 'The child finished.', usage: { inputTokens: 7, outputTokens: 3 } };
      }
      if (!result)
        return {
          toolCalls: [
            {
              name: 'agents/delegate',
              input: { goal: 'note that you were here', tools: ['memory/*'], budget: { turns: 3 } },
            },
          ],
        };
      return { text: `Child said: ${String(result.content)}` };
    },
    { autonomy: 'supervised', tools: 'fs/*,memory/*,agents/delegate' },
  );
  // Under supervised autonomy both the delegation and the child's note ask: the same broker
  // (the same person) answers both.
  const asked: string[] = [];
  agent.governance.broker.onRequest((pending) => {
    asked.push(`${pending.call.name} ${pending.runId}`);
    agent.governance.broker.resolve(pending.id, 'approve', 'test');
  });
  try {
    const handle = agent.runtime.start({ text: 'delegate a note' });
    const result = await handle.done;
    expect(result.outcome).toBe('completed');

    const children = agent.store.childRuns(handle.runId);
    expect(children).toHaveLength(1);
    const child = children[0] as NonNullable<(typeof children)[0]>;
    expect(child).toMatchObject({ parentRunId: handle.runId, outcome: 'completed' });
    expect(child.sessionId).not.toBe(handle.sessionId);
    expect(child.traceId).toBe(agent.store.getRun(handle.runId)?.traceId);
    expect((child.options.delegation as { tools: string[] }).tools.sort()).toEqual([
      'memory/note',
      'memory/search',
    ]);
    expect(agent.store.depthOf(child.id)).toBe(1);

    // What the child's model saw: only its subset, and the brief as the user message.
    const childRequest = provider.requests.find(isChild) as ModelRequest;
    expect(toolNames(childRequest).sort()).toEqual(['memory/note', 'memory/search']);

    // The tool result the parent's model got.
    const parentFinal = provider.requests.at(-1) as ModelRequest;
    const payload = JSON.parse(String(lastResult(parentFinal)?.content));
    expect(payload).toMatchObject({
      run_id: child.id,
      outcome: 'completed',
      reply: 'The child finished.',
      turns: 2,
    });
    expect(payload.usage.output_tokens).toBeGreaterThan(0);

    expect(asked).toEqual([`agents/delegate ${handle.runId}`, `memory/note ${child.id}`]);
    // The child's note went to its own partition, not the parent's daily thread.
    const partition = path.join(agent.governance.workspace, 'agents', child.sessionId);
    expect(await readdir(path.join(partition, 'threads', 'daily'))).toHaveLength(1);
    await expect(readdir(path.join(agent.governance.workspace, 'threads'))).rejects.toThrow();

    // `pincer runs show` tells the tree.
    const shown = await runCliInProcess(['runs', 'show', handle.runId], { dataDir });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      new RegExp(
        `^sub-agents\\n  ${child.id}  completed +\\d+ tokens  note that you were here$`,
        'm',
      ),
    );
    const asJson = JSON.parse(
      (await runCliInProcess(['runs', 'show', child.id, '--json'], { dataDir })).stdout,
    );
    expect(asJson.run.parentRunId).toBe(handle.runId);
  } finally {
    await agent.close();
  }
});

it('a brief asking for a tool the parent lacks is refused, and a child calling outside its subset is refused', async () => {
  let childCalls = 0;
  const { agent, provider } = await agentWith(
    (request) => {
      const result = lastResult(request);
      if (isChild(request)) {
        childCalls++;
        if (!result)
          return { toolCalls: [{ name: 'fs/write', input: { path: 'x', content: 'y' } }] };
        return { text: 'could not write' };
      }
      const delegations = request.messages.filter((m) =>
        m.content.some((b) => b.type === 'tool_result'),
      ).length;
      if (delegations === 0)
        return {
          toolCalls: [
            { name: 'agents/delegate', input: { goal: 'run a command', tools: ['sys/exec'] } },
          ],
        };
      if (delegations === 1)
        return {
          toolCalls: [
            { name: 'agents/delegate', input: { goal: 'write a file', tools: ['fs/read'] } },
          ],
        };
      return { text: 'done' };
    },
    { tools: 'fs/read,fs/write,agents/delegate' },
  );
  try {
    const handle = agent.runtime.start({ text: 'try both' });
    await handle.done;
    const parentResults = provider.requests
      .filter((request) => !isChild(request))
      .map(lastResult)
      .filter(Boolean) as ToolResultBlock[];
    // sys/exec: the parent does not have it, so no child was started for that brief.
    expect(parentResults[0]).toMatchObject({ isError: true });
    expect(String(parentResults[0]?.content)).toMatch(/no tool matching sys\/exec/);
    const children = agent.store.childRuns(handle.runId);
    expect(children).toHaveLength(1);
    // The second child had fs/read only: its fs/write was refused before any policy or run.
    const calls = agent.store.toolCalls((children[0] as { id: RunId }).id);
    expect(calls.map((call) => [call.name, call.isError])).toEqual([['fs/write', true]]);
    expect(calls[0]?.result).toMatch(/unknown_tool/);
    expect(childCalls).toBe(2);

    // The child's policy also refuses what is outside its subset, whatever the rules say.
    const decision = await narrowedPolicy(agent.autonomy, ['fs/read']).decide(
      { id: 'c1', name: 'fs/write', input: {} },
      {
        runId: handle.runId,
        sessionId: handle.sessionId,
        stepId: 'stp_x' as never,
        readOnly: false,
      },
    );
    expect(decision).toMatchObject({ action: 'deny', rule: 'delegation:tools' });
  } finally {
    await agent.close();
  }
});

it('depth and fan-out limits come from the identity declaration', async () => {
  const { agent, provider } = await agentWith(
    (request) => {
      const result = lastResult(request);
      if (isChild(request)) {
        // A child tries to delegate although it was not offered the tool.
        if (!result) return { toolCalls: [{ name: 'agents/delegate', input: { goal: 'deeper' } }] };
        return { text: 'leaf' };
      }
      const rounds = request.messages.filter((m) =>
        m.content.some((b) => b.type === 'tool_result'),
      ).length;
      if (rounds < 2)
        return { toolCalls: [{ name: 'agents/delegate', input: { goal: `child ${rounds}` } }] };
      return { text: 'done' };
    },
    {
      tools: 'fs/read,agents/delegate',
      delegation: { max_depth: 1, max_children: 1 },
    },
  );
  try {
    const handle = agent.runtime.start({ text: 'fan out' });
    await handle.done;
    const children = agent.store.childRuns(handle.runId);
    expect(children).toHaveLength(1);
    const child = children[0] as NonNullable<(typeof children)[0]>;
    // At the last level the child is not offered agents/delegate; calling it anyway is refused.
    const childRequest = provider.requests.find(isChild) as ModelRequest;
    expect(toolNames(childRequest)).toEqual(['fs/read']);
    expect(agent.store.childRuns(child.id)).toEqual([]);
    expect(agent.store.toolCalls(child.id)[0]?.result).toMatch(/unknown_tool/);
    // The second delegation passed the fan-out limit of one child per run.
    const second = lastResult(
      provider.requests.filter((request) => !isChild(request)).at(-1) as ModelRequest,
    );
    expect(second).toMatchObject({ isError: true });
    expect(String(second?.content)).toMatch(/already started 1 sub-agents \(limit 1\)/);
  } finally {
    await agent.close();
  }
});

it('cancelling the parent cancels the child', async () => {
  let childStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    childStarted = resolve;
  });
  const { agent } = await agentWith(
    (request) => {
      if (isChild(request)) {
        childStarted();
        // Streams for a long time: only cancellation ends it.
        return { text: Array.from({ length: 1000 }, () => 'x'), delayMs: 50 };
      }
      if (!lastResult(request))
        return { toolCalls: [{ name: 'agents/delegate', input: { goal: 'take forever' } }] };
      return { text: 'parent done' };
    },
    { tools: 'agents/delegate' },
  );
  try {
    const handle = agent.runtime.start({ text: 'start a slow child' });
    await started;
    handle.cancel();
    const result = await handle.done;
    expect(result.outcome).toBe('cancelled');
    const [child] = agent.store.childRuns(handle.runId);
    expect(child?.outcome).toBe('cancelled');
  } finally {
    await agent.close();
  }
});

it("a child's budget is what its parent has left, not the agent's whole budget", async () => {
  const { agent } = await agentWith(
    (request) => {
      if (isChild(request))
        return { text: 'child done', usage: { inputTokens: 1, outputTokens: 1 } };
      if (!lastResult(request))
        return {
          toolCalls: [{ name: 'agents/delegate', input: { goal: 'do it', tools: ['fs/read'] } }],
          usage: { inputTokens: 500, outputTokens: 100 },
        };
      return { text: 'done', usage: { inputTokens: 1, outputTokens: 1 } };
    },
    { tools: 'fs/read,agents/delegate' },
  );
  try {
    const handle = agent.runtime.start({
      text: 'delegate within my budget',
      guards: { maxTokens: 1000, maxTurns: 5 },
    });
    expect((await handle.done).outcome).toBe('completed');
    const [child] = agent.store.childRuns(handle.runId);
    const guards = child?.options.guards as { maxTokens: number; maxTurns: number };
    // The parent had spent 600 tokens and one model call when it delegated.
    expect(guards.maxTokens).toBe(400);
    expect(guards.maxTurns).toBe(4);
  } finally {
    await agent.close();
  }
});
