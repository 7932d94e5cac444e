/**
 * The run store keeps recent branches in memory so a turn does not read its whole conversation
 * back from SQLite. What it hands out must always equal what the database holds: after its own
 * writes, after an erase, and after another process (another connection) changed the file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunStore } from '../../../src/main/core/runtime/store.js';
import { type Db, openDatabase } from '../../../src/main/core/storage/database.js';
import type { MessageId } from '../../../src/main/core/terms.js';

let dir = '';
const open: Db[] = [];
const store = () => {
  const db = openDatabase(path.join(dir, 'pincer.db'), { vectors: false });
  open.push(db);
  return new RunStore(db);
};
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-branch-'));
});
afterEach(async () => {
  for (const db of open.splice(0)) db.close();
  await rm(dir, { recursive: true, force: true });
});

const say = (role: 'user' | 'assistant', text: string) => ({
  role,
  content: [{ type: 'text' as const, text }],
});

function conversation(runs: RunStore, turns: number) {
  const session = runs.createSession('chat');
  let leaf: MessageId | null = null;
  for (let i = 0; i < turns; i++) {
    leaf = runs.addMessage(session, leaf, null, say('user', `question ${i}`));
    leaf = runs.addMessage(session, leaf, null, say('assistant', `answer ${i}`));
  }
  return { session, leaf };
}

describe('branches held in memory', () => {
  it('equal what a fresh read of the database gives, turn after turn', () => {
    const runs = store();
    const { session, leaf } = conversation(runs, 3);
    runs.branch(leaf); // now held
    let tip = leaf;
    for (let i = 0; i < 5; i++) {
      tip = runs.addMessage(session, tip, null, say('user', `more ${i}`));
      expect(runs.branch(tip)).toEqual(store().branch(tip));
    }
    expect(runs.branch(tip).map((m) => m.message.content[0])).toContainEqual({
      type: 'text',
      text: 'more 4',
    });
    expect(runs.branch(tip)).toHaveLength(11);
  });

  it('are never edited through what they hand out', () => {
    const runs = store();
    const { leaf } = conversation(runs, 1);
    const [first] = runs.branch(leaf);
    const part = first?.message.content[0] as { text: string } | undefined;
    expect(part?.text).toBe('question 0');
    expect(() => {
      if (part) part.text = 'changed';
    }).toThrow(TypeError);
    expect(runs.branch(leaf)[0]?.message.content[0]).toMatchObject({ text: 'question 0' });
    // A caller may reorder or extend its own array.
    const mine = runs.branch(leaf);
    mine.reverse();
    expect(runs.branch(leaf)[0]?.message.role).toBe('user');
  });

  it('show an erase made here, and one made by another process', () => {
    const here = store();
    const { session, leaf } = conversation(here, 2);
    expect(here.branch(leaf)[0]?.message.content).toHaveLength(1);
    here.eraseSession(session);
    expect(here.branch(leaf).every((m) => m.message.content.length === 0)).toBe(true);

    const other = conversation(here, 2);
    expect(here.branch(other.leaf)[0]?.message.content).toHaveLength(1);
    store().eraseSession(other.session); // another connection, as another Pincer process
    expect(here.branch(other.leaf).every((m) => m.message.content.length === 0)).toBe(true);
  });
});
