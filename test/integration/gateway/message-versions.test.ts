/**
 * Versions on the message tree through the contract: regenerating a turn (the first one too)
 * and editing a question make siblings, and the history of either version can be shown.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dispatch, type IpcHandlers } from '../../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../../src/main/core/ipc/handlers.js';
import type { ChannelName, SessionHistory } from '../../../src/shared/ipc.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';

let fixture: AssistantFixture;
let handlers: IpcHandlers;
async function value<T>(channel: ChannelName, request: unknown): Promise<T> {
  const result = await dispatch(handlers, channel, request);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as T;
}
async function send(request: Record<string, unknown>) {
  const started = await value<{ runId: string; sessionId: string }>('chat.send', request);
  await fixture.assistant.finished(started.runId);
  return started.sessionId;
}
const history = (sessionId: string, leafId?: string) =>
  value<SessionHistory>('sessions.history', leafId ? { sessionId, leafId } : { sessionId });
const texts = (h: SessionHistory) =>
  h.messages.map((m) =>
    `${m.role}:${m.blocks.find((b) => b.type === 'text')?.text ?? ''}`.slice(0, 30),
  );

beforeAll(async () => {
  fixture = await scriptedAssistant({ delayMs: 1 });
  handlers = createCoreHandlers({ assistant: fixture.assistant, electronVersion: null });
});
afterAll(() => fixture?.close());

it('regenerating the first turn makes a sibling of it; each version can be shown', async () => {
  const sessionId = await send({ text: 'first question' });
  const one = await history(sessionId);
  const [question] = one.messages;
  expect(question?.parentId).toBeNull();
  expect(question?.siblings).toEqual([question?.id]);

  // From the start of the conversation (null): a second first message.
  await send({ sessionId, text: 'first question', fromMessageId: null });
  const two = await history(sessionId);
  expect(two.messages).toHaveLength(2);
  const [again] = two.messages;
  expect(again?.id).not.toBe(question?.id);
  expect(again?.siblings).toEqual([question?.id, again?.id]);

  // The older version is still there, whole.
  const older = await history(sessionId, question?.id);
  expect(older.messages.map((m) => m.id)).toEqual(one.messages.map((m) => m.id));
});

it('editing a later question keeps the turns before it and shows the newest by default', async () => {
  const sessionId = await send({ text: 'one' });
  await send({ sessionId, text: 'two' });
  const before = await history(sessionId);
  expect(texts(before)).toEqual(['user:one', expect.any(String), 'user:two', expect.any(String)]);
  const firstReply = before.messages[1];
  await send({ sessionId, text: 'two, edited', fromMessageId: firstReply?.id });
  const after = await history(sessionId);
  expect(texts(after).slice(0, 3)).toEqual(['user:one', texts(before)[1], 'user:two, edited']);
  expect(after.messages[2]?.siblings).toEqual([before.messages[2]?.id, after.messages[2]?.id]);
  // Continuing the shown version follows it, not the newest message of the session.
  const original = before.messages[2]?.id ?? '';
  const shown = await history(sessionId, original);
  await send({ sessionId, text: 'three', fromMessageId: shown.messages.at(-1)?.id });
  const latest = await history(sessionId);
  expect(texts(latest).map((t) => t.split(':')[1])).toContain('two');
  expect(texts(latest).at(-2)).toBe('user:three');
});

it('refuses a version that is not part of the session', async () => {
  const a = await send({ text: 'a' });
  const b = await send({ text: 'b' });
  const foreign = (await history(b)).messages[0]?.id;
  const result = await dispatch(handlers, 'sessions.history', { sessionId: a, leafId: foreign });
  expect(result).toMatchObject({ ok: false, error: { code: 'not_found' } });
});
