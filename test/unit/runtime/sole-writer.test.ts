/**
 * The runtime owns its tables: every statement that writes sessions, messages, runs, steps or
 * tool calls lives in its run store, so no other module can put them in a state the loop does
 * not know about. Reads elsewhere (search, versions) are allowed.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const OWNER = 'src/main/core/runtime/store.ts';
const TABLES = 'sessions|messages|runs|steps|tool_calls';
/** INSERT [OR …] INTO, UPDATE, DELETE FROM, REPLACE INTO on one of the runtime's tables. */
const WRITE = new RegExp(
  `\\b(?:insert(?:\\s+or\\s+\\w+)?\\s+into|replace\\s+into|update|delete\\s+from)\\s+["\`]?(?:${TABLES})\\b`,
  'i',
);

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(full)));
    else if (/\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

it('only the run store writes the runtime tables', async () => {
  const writers: string[] = [];
  for (const file of await sources(path.join(ROOT, 'src'))) {
    const rel = path.relative(ROOT, file).split(path.sep).join('/');
    const text = await readFile(file, 'utf8');
    // The whole text, not line by line: a statement may break after UPDATE or INTO.
    for (const match of text.matchAll(new RegExp(WRITE.source, 'gi')))
      writers.push(`${rel}:${text.slice(0, match.index).split('\n').length}`);
  }
  expect(writers.length, 'the run store itself writes them').toBeGreaterThan(0);
  expect(writers.filter((at) => !at.startsWith(`${OWNER}:`))).toEqual([]);
});

it('the check sees a write outside the store', () => {
  expect(WRITE.test('db.prepare("UPDATE runs SET state = ?")')).toBe(true);
  expect(WRITE.test('INSERT OR IGNORE INTO messages (id) VALUES (?)')).toBe(true);
  expect(WRITE.test('DELETE FROM tool_calls WHERE run_id = ?')).toBe(true);
  expect(WRITE.test('SELECT * FROM messages')).toBe(false);
  expect(WRITE.test('UPDATE memory_notes SET body = ?')).toBe(false);
  expect(WRITE.test('`\n  UPDATE\n    sessions SET title = ?`')).toBe(true);
});
