/**
 * Per-conversation tool toggles through the real assistant (scripted model, real store, policy
 * and audit): a tool turned off in one conversation is not in that conversation's model
 * requests, a typed call to it and a model's call to it are refused by policy with the reason,
 * other conversations keep it, and the choice is kept across a reopen of the profile.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assistant } from '../../../src/main/core/assistant/index.js';
import type { ModelRequest } from '../../../src/main/core/models/types.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';

let dataDir = '';
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-session-tools-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const offered = (request: ModelRequest | undefined) => (request?.tools ?? []).map((t) => t.name);

async function turn(assistant: Assistant, text: string, sessionId?: string) {
  const started = assistant.send({ text, ...(sessionId ? { sessionId } : {}) });
  await assistant.finished(started.runId);
  return { ...started, view: assistant.run(started.runId) };
}

describe('tools turned off in a conversation', () => {
  it('are not offered to its model, are refused when called, and stay off after a reopen', async () => {
    let fixture: AssistantFixture = await scriptedAssistant({ delayMs: 1, dataDir });
    let a: string;
    let b: string;
    try {
      const { assistant, provider } = fixture;
      a = (await turn(assistant, 'hello')).sessionId;
      b = (await turn(assistant, 'hello there')).sessionId;
      expect(offered(provider.requests.at(-1))).toEqual(
        expect.arrayContaining(['fs/list', 'fs/write']),
      );

      const listed = assistant.sessionTools(a);
      expect(listed.find((tool) => tool.name === 'fs/write')).toMatchObject({
        enabled: true,
        tier: 'guarded',
        source: 'builtin',
      });
      expect(listed.find((tool) => tool.name === 'fs/list')?.description).toMatch(/\w/);
      expect(() => assistant.setSessionTool(a, 'fs/nothing', false)).toThrow(/no tool/);

      const after = assistant.setSessionTool(a, 'fs/list', false);
      expect(after.find((tool) => tool.name === 'fs/list')?.enabled).toBe(false);
      assistant.setSessionTool(a, 'fs/write', false);

      // The model of this conversation is offered everything else, not these two.
      await turn(assistant, 'what can you do?', a);
      const tools = offered(provider.requests.at(-1));
      expect(tools).toContain('fs/read');
      expect(tools).not.toContain('fs/list');
      expect(tools).not.toContain('fs/write');

      // A typed call to it is refused by policy, with the reason.
      const typed = await turn(assistant, '@fs/list{path="."}', a);
      expect(typed.view.toolCalls).toHaveLength(1);
      expect(typed.view.toolCalls[0]).toMatchObject({
        name: 'fs/list',
        status: 'denied',
        decision: 'deny',
        rule: 'session:tools',
      });
      expect(typed.view.toolCalls[0]?.reason).toMatch(/turned off for this conversation/);

      // A model that names it anyway is refused the same way (the script calls fs/write).
      const named = await turn(assistant, 'write a note', a);
      expect(named.view.toolCalls[0]).toMatchObject({
        name: 'fs/write',
        status: 'denied',
        rule: 'session:tools',
      });

      // The other conversation is untouched: offered and allowed.
      await turn(assistant, 'and you?', b);
      expect(offered(provider.requests.at(-1))).toContain('fs/list');
      const elsewhere = await turn(assistant, '@fs/list{path="."}', b);
      expect(elsewhere.view.toolCalls[0]).toMatchObject({ name: 'fs/list', status: 'ok' });
    } finally {
      await fixture.close();
    }

    fixture = await scriptedAssistant({ delayMs: 1, dataDir });
    try {
      const { assistant, provider } = fixture;
      const offAfter = assistant
        .sessionTools(a)
        .filter((tool) => !tool.enabled)
        .map((tool) => tool.name);
      expect(offAfter.sort()).toEqual(['fs/list', 'fs/write']);
      expect(assistant.sessionTools(b).every((tool) => tool.enabled)).toBe(true);
      await turn(assistant, 'still there?', a);
      expect(offered(provider.requests.at(-1))).not.toContain('fs/list');

      // Turned back on: offered again.
      assistant.setSessionTool(a, 'fs/list', true);
      await turn(assistant, 'and now?', a);
      expect(offered(provider.requests.at(-1))).toContain('fs/list');
    } finally {
      await fixture.close();
    }
  }, 120_000);
});
