/**
 * The agent as the app composes it (the root's registry, sandbox, policy and approvals, behind
 * the assistant API), driven by a scripted model.
 */
import { openAgent } from '../../../src/main/core/agent/index.js';
import { assistantOver, createAssistant } from '../../../src/main/core/assistant/index.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import type { SecretStore } from '../../../src/main/core/secrets/index.js';
import type { AssistantEvent } from '../../../src/shared/ipc-schemas.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { expect, it } from '../../support/fixtures.js';
import { ScriptedProvider, type ScriptedReply } from '../../support/scripted-provider.js';

async function appAssistant(dataDir: string, secrets: SecretStore, script: ScriptedReply[]) {
  const provider = new ScriptedProvider(script);
  const assistant = await createAssistant({
    dataDir,
    appDir: APP_DIR,
    model: { kind: 'fixed', access: viaProvider(provider, 'scripted'), label: 'scripted' },
    secrets,
  });
  const events: AssistantEvent[] = [];
  assistant.subscribe((event) => events.push(event));
  return { assistant, provider, events };
}

it('a call with invalid arguments gets the validation error and no approval is ever requested', async ({
  dataDir,
  secrets,
}) => {
  // fs/write is guarded: under the shipped (supervised) manifest a valid call would ask a person.
  const { assistant, provider, events } = await appAssistant(dataDir, secrets, [
    { toolCalls: [{ name: 'fs/write', input: { path: 'notes/a.md' } }] },
    { text: 'I left out the content.' },
  ]);
  try {
    const { runId } = assistant.send({ text: 'save a note' });
    await assistant.finished(runId);
    expect(events.filter((event) => event.topic === 'approval.requested')).toEqual([]);
    expect(assistant.pendingApprovals()).toEqual([]);
    const result = provider.requests[1]?.messages.at(-1)?.content[0];
    expect(result).toMatchObject({ type: 'tool_result', isError: true });
    expect(JSON.parse(String((result as { content: string }).content))).toMatchObject({
      error: 'invalid_arguments',
      tool: 'fs/write',
      violations: [expect.objectContaining({ message: expect.stringContaining('content') })],
    });
    expect(assistant.run(runId).run.outcome).toBe('completed');
  } finally {
    await assistant.close();
  }
});

it('every run event names its session and run; tool.finished carries the output, read from no table', async ({
  dataDir,
  secrets,
}) => {
  const provider = new ScriptedProvider([
    { toolCalls: [{ name: 'fs/write', input: { path: 'a.md', content: 'alpha' } }] },
    { toolCalls: [{ name: 'fs/read', input: { path: 'a.md' } }] },
    { text: 'It says alpha.' },
  ]);
  const agent = await openAgent({
    dataDir,
    appDir: APP_DIR,
    model: { kind: 'fixed', access: viaProvider(provider, 'scripted'), label: 'scripted' },
    secrets,
  });
  const assistant = await assistantOver(agent);
  // Rendering a live run must not read the tool-calls table.
  agent.store.toolCalls = () => {
    throw new Error('a consumer read the tool-calls table');
  };
  const pushed: AssistantEvent[] = [];
  assistant.subscribe((event) => {
    pushed.push(event);
    // The shipped manifest asks before a write: approve it, as a person in the UI would.
    if (event.topic === 'approval.requested')
      assistant.resolveApproval(event.approval.id, 'approve');
  });
  try {
    const { runId, sessionId } = assistant.send({ text: 'write and read a note' });
    await assistant.finished(runId);
    const runEvents = pushed.flatMap((event) => (event.topic === 'run' ? [event] : []));
    expect(runEvents.length).toBeGreaterThan(5);
    for (const event of runEvents) {
      expect(event.sessionId).toBe(sessionId);
      expect(event.event).toMatchObject({ session_id: sessionId, run_id: runId });
    }
    const finished = runEvents.flatMap((event) =>
      event.event.type === 'tool.finished' ? [event.event] : [],
    );
    expect(finished.map((event) => [event.name, event.status])).toEqual([
      ['fs/write', 'ok'],
      ['fs/read', 'ok'],
    ]);
    expect(finished[1]?.output).toContain('alpha');
    expect(assistant.liveEvents(runId)).toEqual([]);
    expect(runEvents.at(-1)?.event).toMatchObject({ type: 'run.finished', outcome: 'completed' });
  } finally {
    await assistant.close();
  }
});
