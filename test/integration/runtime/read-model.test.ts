/**
 * The run store's read model (search over past chats, versions on the message tree) on a
 * store opened fresh, and on databases an older Pincer left: one where the assistant had
 * installed the full-text index, one where it never had (a data dir only the CLI used).
 * Real SQLite files.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  MATCH_END,
  MATCH_START,
  SEARCH_MIGRATIONS,
} from '../../../src/main/core/runtime/read-model.js';
import { RunStore } from '../../../src/main/core/runtime/store.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import { type Db, migrate } from '../../../src/main/core/storage/index.js';
import type { MessageId, SessionId } from '../../../src/main/core/terms.js';
import { userText } from '../../../src/shared/messages.js';
import { tempStore } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function freshStore() {
  const temp = await tempStore();
  cleanups.push(temp.cleanup);
  return temp;
}

/** A database file nothing has opened yet. */
async function emptyFile() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-read-model-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return path.join(dir, 'pincer.db');
}

const reply = (text: string) => ({
  role: 'assistant' as const,
  content: [
    { type: 'reasoning' as const, text: 'thinking about wombats' },
    { type: 'text' as const, text },
  ],
});

/** A database as Pincer left it before the index moved into the run store. */
function olderDatabase(db: Db, withAssistantIndex: boolean) {
  new RunStore(db);
  if (withAssistantIndex) migrate(db, 'chat_search', SEARCH_MIGRATIONS);
  const at = '2020-01-01T00:00:00.000Z';
  db.prepare('insert into sessions (id, title, created_at) values (?, ?, ?)').run(
    'ses_old',
    'old chat',
    at,
  );
  db.prepare(
    `insert into messages (id, session_id, parent_id, run_id, role, content, created_at)
     values (?, 'ses_old', null, null, 'user', ?, ?)`,
  ).run('msg_0001', JSON.stringify([{ type: 'text', text: 'where do platypuses live' }]), at);
}

it('a fresh store: search finds text blocks by word prefix, not reasoning; versions', async () => {
  const { store } = await freshStore();
  const session = store.createSession('animals');
  const question = store.addMessage(session, null, null, userText('tell me about quokkas'));
  const answer = store.addMessage(session, question, null, reply('Quokkas smile a lot.'));
  const again = store.addMessage(session, question, null, reply('Quokkas live on islands.'));
  const follow = store.addMessage(session, again, null, userText('and wombats?'));

  const hits = store.searchMessages(['quokk'], 10);
  expect(hits.map((hit) => hit.messageId).sort()).toEqual([question, answer, again].sort());
  expect(hits.every((hit) => hit.title === 'animals' && hit.sessionId === session)).toBe(true);
  expect(hits.find((hit) => hit.messageId === question)?.snippet).toContain(
    `${MATCH_START}quokkas${MATCH_END}`,
  );
  // "wombats" is in a reasoning block of each reply and in the follow-up's text.
  expect(store.searchMessages(['wombats'], 10).map((hit) => hit.messageId)).toEqual([follow]);
  expect(store.searchMessages(['quokkas', 'islands'], 10).map((hit) => hit.messageId)).toEqual([
    again,
  ]);
  // Quotes in a word are text, not syntax.
  expect(store.searchMessages(['quo"kka'], 10)).toEqual([]);

  expect(store.messageSiblings(session, answer)).toEqual([answer, again]);
  expect(store.messageSiblings(session, question)).toEqual([question]);
  expect(store.newestBelow(session, question)).toBe(follow);
  expect(store.newestBelow(session, answer)).toBe(answer);
  expect(store.newestBelow('ses_other' as SessionId, question)).toBeUndefined();
  expect(store.sessionTitles().map((row) => row.sessionId)).toEqual([session]);

  // An erased session's words leave the index with the same update.
  store.eraseSession(session);
  expect(store.searchMessages(['quokk'], 10)).toEqual([]);
});

for (const withAssistantIndex of [true, false]) {
  it(`an older database ${withAssistantIndex ? 'with' : 'without'} the assistant's index: upgraded, every message found once`, async () => {
    const file = await emptyFile();
    const old = openDatabase(file, { vectors: false });
    olderDatabase(old, withAssistantIndex);
    old.close();

    const db = openDatabase(file, { vectors: false });
    cleanups.unshift(async () => {
      db.close();
    });
    const store = new RunStore(db);
    const versions = (namespace: string) =>
      (
        db
          .prepare('select version from schema_migrations where namespace = ? order by version')
          .all(namespace) as Array<{ version: number }>
      ).map((row) => row.version);
    expect(versions('runtime')).toEqual([1, 2, 3, 4]);
    // Installed (and filled) by the first search, or already there.
    expect(store.searchMessages(['platypus'], 10).map((hit) => hit.messageId)).toEqual([
      'msg_0001',
    ]);
    expect(versions('chat_search')).toEqual([1]);

    const newer = store.addMessage(
      'ses_old' as SessionId,
      'msg_0001' as MessageId,
      null,
      reply('Platypuses live in eastern Australia.'),
    );
    expect(store.searchMessages(['platypus'], 10).map((hit) => hit.messageId)).toEqual([
      newer,
      'msg_0001',
    ]);
    const indexed = db.prepare('select count(*) as n from chat_search').get() as { n: number };
    expect(indexed.n).toBe(2);
    expect(store.messageSiblings('ses_old' as SessionId, newer)).toEqual([newer]);
    expect(store.newestBelow('ses_old' as SessionId, 'msg_0001' as MessageId)).toBe(newer);
  });
}
