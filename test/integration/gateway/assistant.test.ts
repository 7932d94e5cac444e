/**
 * The headless assistant the UI talks to, driven directly: real SQLite, policy, approvals,
 * audit and runtime, with the scripted model. What the UI relies on, stated as behaviour.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Assistant } from '../../../src/main/core/assistant/index.js';
import { MemoryStore } from '../../../src/main/core/memory/store.js';
import { openDatabase, profileDatabasePath } from '../../../src/main/core/storage/index.js';
import { type AssistantEvent, AssistantEventSchema } from '../../../src/shared/ipc.js';
import { buildTinyGguf } from '../../fixtures/tiny-gguf.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';
import { startSlowFileServer } from '../../support/slow-file-server.js';

let fixture: AssistantFixture;
let assistant: Assistant;
let events: AssistantEvent[];
beforeEach(async () => {
  fixture = await scriptedAssistant({ delayMs: 1 });
  assistant = fixture.assistant;
  events = [];
  assistant.subscribe((event) => events.push(event));
});
afterEach(() => fixture.close());

/** Answers every approval the way `answer` says, as a UI would. */
function answerApprovals(answer: 'approve' | 'deny', reason?: string) {
  return assistant.subscribe((event) => {
    if (event.topic === 'approval.requested')
      queueMicrotask(() => assistant.resolveApproval(event.approval.id, answer, reason));
  });
}

const runEvents = (runId: string) =>
  events.flatMap((e) => (e.topic === 'run' && e.event.run_id === runId ? [e.event] : []));

describe('chat', () => {
  it('streams a run as events, then serves it as history', async () => {
    const { runId, sessionId } = assistant.send({ text: 'hello' });
    expect(assistant.listSessions().find((s) => s.id === sessionId)?.busy).toBe(true);
    await assistant.finished(runId);
    const types = runEvents(runId).map((e) => e.type);
    expect(types[0]).toBe('run.started');
    expect(types.at(-1)).toBe('run.finished');
    expect(types.filter((t) => t === 'model.delta').length).toBe(6);
    const history = assistant.history(sessionId);
    expect(history.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(history.runs[0]).toMatchObject({ outcome: 'completed', live: false });
    expect(history.session).toMatchObject({ title: 'hello', busy: false });
    for (const event of events) expect(AssistantEventSchema.safeParse(event).success).toBe(true);
  });

  it('a failing listener (a surface gone away) breaks neither the run nor the others', async () => {
    assistant.subscribe(() => {
      throw new Error('socket closed');
    });
    const { runId, sessionId } = assistant.send({ text: 'hello' });
    await assistant.finished(runId);
    expect(assistant.history(sessionId).runs[0]?.outcome).toBe('completed');
    expect(runEvents(runId).at(-1)?.type).toBe('run.finished');
  });

  it('a denial with a reason reaches the model as the tool result', async () => {
    answerApprovals('deny', 'not on Sundays');
    const { runId, sessionId } = assistant.send({ text: 'write something' });
    await assistant.finished(runId);
    const history = assistant.history(sessionId);
    const result = history.messages.flatMap((m) => m.blocks).find((b) => b.type === 'tool_result');
    expect(result).toMatchObject({ isError: true });
    expect(result?.type === 'tool_result' && result.content).toContain('ui: not on Sundays');
    expect(history.toolCalls[0]).toMatchObject({
      name: 'fs/write',
      status: 'denied',
      decision: 'ask',
      rule: 'default/approve-filesystem-writes',
      approvalBy: 'ui: not on Sundays',
      tier: 'guarded',
    });
    expect(existsSync(path.join(fixture.dataDir, 'workspace/pincer/notes/hello.txt'))).toBe(false);
  });

  it('an approved call runs, and its card carries output and duration', async () => {
    answerApprovals('approve');
    const { runId } = assistant.send({ text: 'write something' });
    await assistant.finished(runId);
    const finished = runEvents(runId).find((e) => e.type === 'tool.finished');
    expect(finished).toMatchObject({ status: 'ok', output: 'wrote 22 bytes to notes/hello.txt' });
    const detail = assistant.run(runId);
    expect(detail.toolCalls[0]).toMatchObject({ status: 'ok', approvalBy: 'ui' });
    expect(detail.toolCalls[0]?.durationMs).toBeTypeOf('number');
    expect(detail.steps.map((s) => s.kind)).toEqual(['model', 'tools', 'model']);
    expect(detail.audit.map((a) => a.event)).toContain('approval_resolved');
  });

  it('cancel stops a streaming run; a second cancel finds nothing to stop', async () => {
    const slow = await scriptedAssistant({ delayMs: 1 });
    try {
      const { runId, sessionId } = slow.assistant.send({ text: 'slow please' });
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(slow.assistant.cancel(runId)).toBe(true);
      await slow.assistant.finished(runId);
      expect(slow.assistant.cancel(runId)).toBe(false);
      expect(slow.assistant.history(sessionId).runs[0]?.outcome).toBe('cancelled');
    } finally {
      await slow.close();
    }
  });

  it('observer autonomy denies every tool, by the autonomy rule', async () => {
    assistant.setAutonomy('observer');
    const { runId } = assistant.send({ text: 'write something' });
    await assistant.finished(runId);
    expect(assistant.run(runId).toolCalls[0]).toMatchObject({
      status: 'denied',
      decision: 'deny',
      rule: 'autonomy:observer',
    });
    expect(assistant.policies()).toMatchObject({
      autonomy: 'observer',
      manifestAutonomy: 'supervised',
    });
  });

  it('the autonomy chosen in Settings outlives a restart; a damaged stored value is ignored', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-autonomy-'));
    try {
      const first = await scriptedAssistant({ delayMs: 1, dataDir });
      first.assistant.setAutonomy('observer');
      await first.close();
      const second = await scriptedAssistant({ delayMs: 1, dataDir });
      try {
        expect(second.assistant.policies()).toMatchObject({
          autonomy: 'observer',
          manifestAutonomy: 'supervised',
        });
        const { runId } = second.assistant.send({ text: 'write something' });
        await second.assistant.finished(runId);
        expect(second.assistant.run(runId).toolCalls[0]).toMatchObject({
          status: 'denied',
          rule: 'autonomy:observer',
        });
      } finally {
        await second.close();
      }
      const db = openDatabase(profileDatabasePath(dataDir));
      db.prepare(
        `update assistant_settings set value = '{"level":"god"}' where key = 'autonomy'`,
      ).run();
      db.close();
      const third = await scriptedAssistant({ delayMs: 1, dataDir });
      try {
        expect(third.assistant.policies().autonomy).toBe('supervised');
      } finally {
        await third.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('scrubs the data directory and home folder out of error text', () => {
    expect(assistant.screenError(`cannot open ${fixture.dataDir}/models/x.gguf`)).toBe(
      'cannot open <data dir>/models/x.gguf',
    );
  });

  it('refuses a message to a session that does not exist', () => {
    expect(() => assistant.send({ sessionId: 'ses_missing', text: 'hi' })).toThrow('no session');
  });
});

describe('typed tool calls', () => {
  it('run directly under policy: the write asks, is approved in the UI, and no model is called', async () => {
    answerApprovals('approve');
    const { runId, sessionId } = assistant.send({
      text: '@fs/write{path="typed.txt"; content="by hand"} -> @fs/read{path="typed.txt"}',
    });
    await assistant.finished(runId);
    const file = path.join(fixture.dataDir, 'workspace', 'pincer', 'typed.txt');
    expect(readFileSync(file, 'utf8')).toBe('by hand');
    const history = assistant.history(sessionId);
    expect(history.toolCalls.map((call) => [call.name, call.status])).toEqual([
      ['fs/write', 'ok'],
      ['fs/read', 'ok'],
    ]);
    expect(history.runs[0]?.outcome).toBe('completed');
    expect(runEvents(runId).some((event) => event.type === 'model.delta')).toBe(false);
  });

  it('a malformed call is refused with its position and starts nothing', () => {
    const before = assistant.listRuns().length;
    expect(() => assistant.send({ text: '@fs/read{path=}' })).toThrow(
      /^tool call, line 1, column 15: expected a value/,
    );
    expect(assistant.listRuns().length).toBe(before);
  });
});

describe('sessions', () => {
  it('rename, branch and delete; deleting erases words but keeps spending records', async () => {
    const { runId, sessionId } = assistant.send({ text: 'hello' });
    await assistant.finished(runId);
    assistant.renameSession(sessionId, 'Greetings');
    expect(assistant.listSessions()[0]?.title).toBe('Greetings');

    const [question, answer] = assistant.history(sessionId).messages;
    const copy = assistant.branchSession(sessionId, question?.id ?? '');
    expect(copy.title).toBe('Greetings (branch)');
    expect(copy.branchedFrom).toEqual({ sessionId, messageId: question?.id, title: 'Greetings' });
    expect(assistant.listSessions().find((s) => s.id === sessionId)?.branchedFrom).toBeNull();
    expect(assistant.history(copy.id).messages.map((m) => m.blocks)).toEqual([question?.blocks]);
    expect(() => assistant.branchSession(copy.id, answer?.id ?? '')).toThrow('not part of session');

    const spentBefore = assistant.run(runId).steps.reduce((n, s) => n + s.outputTokens, 0);
    assistant.deleteSession(sessionId);
    expect(assistant.listSessions().map((s) => s.id)).toEqual([copy.id]);
    // The copy still says it was branched, from a conversation that is gone.
    expect(assistant.listSessions()[0]?.branchedFrom).toMatchObject({ sessionId, title: null });
    expect(() => assistant.history(sessionId)).toThrow('no session');
    const after = assistant.run(runId);
    expect(after.run.goal).toBe('');
    expect(after.steps.reduce((n, s) => n + s.outputTokens, 0)).toBe(spentBefore);
    expect(events.filter((e) => e.topic === 'sessions.changed').length).toBeGreaterThan(3);
  });

  it('settings persist in the profile database', async () => {
    expect(assistant.settings()).toEqual({
      theme: 'system',
      showReasoning: true,
      enterSends: true,
      systemPrompt: '',
      temperature: null,
      contextSize: null,
    });
    assistant.updateSettings({ theme: 'dark' });
    expect(assistant.settings().theme).toBe('dark');
    expect(events.at(-1)).toMatchObject({ topic: 'settings.changed', settings: { theme: 'dark' } });
  });
});

describe('memory and skills', () => {
  it('searches what memory holds (written by another connection to the profile database)', async () => {
    const db = openDatabase(profileDatabasePath(fixture.dataDir));
    try {
      await MemoryStore.open(db).addNote('The user keeps bees on the roof of the garage.');
    } finally {
      db.close();
    }
    const found = await assistant.searchMemory('bees garage');
    expect(found.hits[0]?.text).toContain('keeps bees');
    expect((await assistant.searchMemory('submarine periscope')).hits).toEqual([]);
    expect(assistant.skills()).toEqual([]);
  });
});

describe('models', () => {
  it('pulls a catalog model with progress events; names only, never paths', async () => {
    const body = buildTinyGguf();
    const files = await startSlowFileServer({ 'm.gguf': body }, { chunkBytes: 65_536, pauseMs: 5 });
    const local = await scriptedAssistant({
      catalog: {
        version: 1,
        defaultChat: 'm',
        defaultEmbedding: 'm',
        models: [
          {
            name: 'm',
            displayName: 'M',
            kind: 'chat',
            url: files.url('m.gguf'),
            fileName: 'm.gguf',
            sizeBytes: body.length,
            sha256: createHash('sha256').update(body).digest('hex'),
            license: 'MIT',
            ramBytes: 1_000_000,
            contextLength: 512,
          },
        ],
      },
    });
    try {
      const pulls: AssistantEvent[] = [];
      const done = new Promise<void>((resolve) =>
        local.assistant.subscribe((event) => {
          if (event.topic !== 'model.pull') return;
          pulls.push(event);
          if (event.pull.state !== 'running') resolve();
        }),
      );
      expect(local.assistant.pullModel('m')).toEqual({ started: true });
      expect(local.assistant.pullModel('m')).toEqual({ started: false });
      await done;
      expect(pulls.at(-1)).toMatchObject({ pull: { state: 'done', downloadedBytes: body.length } });
      const state = await local.assistant.models();
      expect(state.catalog[0]).toMatchObject({ name: 'm', installed: true });
      expect(JSON.stringify(state)).not.toContain(local.dataDir);
      expect(() => local.assistant.pullModel('nope')).toThrow('no model "nope"');
      // Selecting an installed model switches the running assistant to it, without a restart.
      const switched = await local.assistant.selectModel('m');
      expect(switched).toMatchObject({ active: 'local/m.gguf', kind: 'local', loaded: false });
      expect(switched.catalog[0]).toMatchObject({ name: 'm', selected: true });
    } finally {
      await local.close();
      await files.close();
    }
  });
});
