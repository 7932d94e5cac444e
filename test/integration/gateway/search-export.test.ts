/**
 * Finding past chats (SQLite FTS5 over the real profile database, kept current by triggers) and
 * exporting a conversation as Markdown and JSON, through the real assistant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';

let fixture: AssistantFixture;
let zoo = '';
let other = '';

async function say(text: string, sessionId?: string) {
  const started = fixture.assistant.send(sessionId ? { sessionId, text } : { text });
  await fixture.assistant.finished(started.runId);
  return started.sessionId;
}

beforeAll(async () => {
  fixture = await scriptedAssistant({ delayMs: 1 });
  zoo = await say('Tell me about the zebra crossing near the café');
  other = await say('What is a quokka?');
  await say('And the zebra finch?', other);
  fixture.assistant.renameSession(other, 'Marsupials and birds');
});
afterAll(() => fixture?.close());

describe('search', () => {
  it('finds messages by word prefix across conversations, newest first, with marked snippets', () => {
    const hits = fixture.assistant.searchChats('zeb');
    expect(hits.map((h) => [h.sessionId, h.role])).toEqual([
      [other, 'user'],
      [zoo, 'user'],
    ]);
    expect(hits[0]?.snippet).toBe('And the \u0002zebra\u0003 finch?');
    expect(hits[0]?.title).toBe('Marsupials and birds');
    expect(hits.every((h) => h.messageId !== null)).toBe(true);
  });

  it('matches every word, ignores accents, and finds replies too', () => {
    expect(fixture.assistant.searchChats('zebra cafe').map((h) => h.sessionId)).toEqual([zoo]);
    // The scripted reply to every message says "Hello from **Pincer**".
    const replies = fixture.assistant.searchChats('pincer hello');
    expect(replies.length).toBe(3);
    expect(replies.every((h) => h.role === 'assistant')).toBe(true);
  });

  it('finds a conversation by its title', () => {
    const hits = fixture.assistant.searchChats('marsupials');
    expect(hits).toEqual([
      expect.objectContaining({ sessionId: other, messageId: null, role: null }),
    ]);
  });

  it('treats FTS5 syntax in the query as words, and punctuation alone as nothing', () => {
    expect(fixture.assistant.searchChats('"zebra" OR NEAR(quokka*')).toEqual([]);
    expect(fixture.assistant.searchChats('quokka*').map((h) => h.sessionId)).toEqual([other]);
    expect(fixture.assistant.searchChats('*** "" ()')).toEqual([]);
  });

  it('a deleted conversation is no longer found, by its words or its title', async () => {
    const doomed = await say('the okapi is a forest giraffe');
    expect(fixture.assistant.searchChats('okapi')).toHaveLength(1);
    fixture.assistant.deleteSession(doomed);
    expect(fixture.assistant.searchChats('okapi')).toEqual([]);
    expect(fixture.assistant.searchChats('giraffe')).toEqual([]);
  });
});

describe('export', () => {
  it('writes Markdown a person reads: title, who said what, in order', () => {
    const file = fixture.assistant.exportSession(other, 'markdown');
    expect(file).toMatchObject({
      fileName: 'Marsupials-and-birds.md',
      mediaType: 'text/markdown',
    });
    const lines = file.content.split('\n');
    expect(lines[0]).toBe('# Marsupials and birds');
    const headings = lines.filter((l) => l.startsWith('## ')).map((l) => l.split(' · ')[0]);
    expect(headings).toEqual(['## You', '## Pincer', '## You', '## Pincer']);
    expect(file.content).toContain('What is a quokka?');
    expect(file.content).toContain('```ts\nconst answer = 42;');
  });

  it('writes JSON with the whole history as the app sees it', () => {
    const file = fixture.assistant.exportSession(zoo, 'json');
    expect(file.mediaType).toBe('application/json');
    const parsed = JSON.parse(file.content);
    expect(parsed.format).toBe('pincer.conversation/1');
    expect(parsed.session.id).toBe(zoo);
    expect(parsed.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(parsed.runs).toHaveLength(1);
  });

  it('refuses a conversation that does not exist', () => {
    expect(() => fixture.assistant.exportSession('ses_nope', 'json')).toThrow('no session');
  });
});
