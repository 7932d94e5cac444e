/**
 * The user's system prompt and temperature (profile settings) reach the model from the next run
 * on, through the real assistant and agent root; cleared, they leave the request as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AssistantFixture, scriptedAssistant } from '../support/assistant-harness.js';

let fixture: AssistantFixture;
beforeAll(async () => {
  fixture = await scriptedAssistant({ delayMs: 1 });
});
afterAll(() => fixture?.close());

async function lastRequestAfter(text: string) {
  const { runId } = fixture.assistant.send({ text });
  await fixture.assistant.finished(runId);
  const request = fixture.provider.requests.at(-1);
  if (!request) throw new Error('the model was not called');
  return request;
}

describe('system prompt and temperature settings', () => {
  it('apply to the next run, and clearing them restores the defaults', async () => {
    const plain = await lastRequestAfter('hello');
    expect(plain.system).not.toContain('standing instructions');
    expect(plain.temperature).toBeUndefined();

    const saved = fixture.assistant.updateSettings({
      systemPrompt: 'Answer in French.',
      temperature: 0.3,
    });
    expect(saved).toMatchObject({ systemPrompt: 'Answer in French.', temperature: 0.3 });
    const tuned = await lastRequestAfter('hello again');
    expect(tuned.system).toBe(
      `${plain.system}\n\n# The user's standing instructions\nAnswer in French.`,
    );
    expect(tuned.temperature).toBe(0.3);

    fixture.assistant.updateSettings({ systemPrompt: '', temperature: null });
    const cleared = await lastRequestAfter('and again');
    expect(cleared.system).toBe(plain.system);
    expect(cleared.temperature).toBeUndefined();
  });
});
