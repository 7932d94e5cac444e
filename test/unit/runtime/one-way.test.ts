/**
 * A run's facts go one way: the loop states them, the store recorder writes them. No other
 * module calls the run store's writers of run facts, so nothing records a run behind the
 * loop's back or out of order with its events.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const RECORDER = 'src/main/core/runtime/store-recorder.ts';
const WRITERS =
  'createRun|addMessage|updateRun|startStep|endStep|requestToolCalls|markToolStarted|finishToolCall';
/** A call of one of those writers on a store (`store.x(`, `deps.store.x(`, `runStore.x(`). */
const WRITE = new RegExp(`\\b\\w*[sS]tore\\s*\\.\\s*(?:${WRITERS})\\s*\\(`, 'g');

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(full)));
    else if (/\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

it('only the store recorder writes run facts to the run store', async () => {
  const writers: string[] = [];
  for (const file of await sources(path.join(ROOT, 'src'))) {
    const rel = path.relative(ROOT, file).split(path.sep).join('/');
    const text = await readFile(file, 'utf8');
    for (const match of text.matchAll(WRITE))
      writers.push(`${rel}:${text.slice(0, match.index).split('\n').length}`);
  }
  expect(writers.length, 'the recorder itself writes them').toBeGreaterThan(0);
  expect(writers.filter((at) => !at.startsWith(`${RECORDER}:`))).toEqual([]);
});

it('the check sees a write of a run fact', () => {
  const sees = (text: string) => new RegExp(WRITE.source).test(text);
  expect(sees('this.deps.store.updateRun(id, { state })')).toBe(true);
  expect(sees('store\n  .finishToolCall(runId, callId, result)')).toBe(true);
  expect(sees('runStore.addMessage(session, null, null, message)')).toBe(true);
  expect(sees('store.getRun(id)')).toBe(false);
  expect(sees('scope.startStep("tools")')).toBe(false);
});
