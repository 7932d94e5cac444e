/** Compaction on a real database: threshold, epochs, a stale summary never wins, originals kept. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Compactor,
  compactingHistory,
  type HistoryEntry,
  summarizeWith,
} from '../../../src/main/core/memory/compaction.js';
import { MemoryStore } from '../../../src/main/core/memory/store.js';
import { viaProvider } from '../../../src/main/core/models/access.js';
import { IMAGE_TOKEN_ESTIMATE } from '../../../src/main/core/models/limits.js';
import { AgentRuntime } from '../../../src/main/core/runtime/runtime.js';
import { RunStore } from '../../../src/main/core/runtime/store.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import { textOf, userText, userTurn } from '../../../src/shared/messages.js';
import { noTools, UNGOVERNED } from '../../support/runtime-hooks.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function db() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-compact-'));
  dirs.push(dir);
  const database = openDatabase(path.join(dir, 'pincer.db'));
  MemoryStore.open(database); // applies the memory migrations
  return database;
}

const history = (n: number): HistoryEntry[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `m${i + 1}`,
    message: userText(`turn ${i + 1} ${'x'.repeat(200)}`),
  }));

describe('Compactor', () => {
  it('counts an image at a fixed estimate, and the summarizer reads a placeholder, never its bytes', async () => {
    const database = await db();
    const provider = new ScriptedProvider([{ text: 'A photo was shared.' }]);
    const compactor = new Compactor(database, {
      summarize: summarizeWith(viaProvider(provider, 'm')),
      keepRecent: 1,
    });
    const photo = Buffer.alloc(300_000, 7).toString('base64'); // 400k characters of base64
    const image = userTurn('look', [{ type: 'image', mediaType: 'image/png', data: photo }]);
    expect(compactor.tokens([image])).toBe(
      compactor.tokens([userText('look')]) + IMAGE_TOKEN_ESTIMATE,
    );
    // Over a small window it still compacts, and what the summarizer saw holds no base64.
    const turns: HistoryEntry[] = [
      { id: 'm1', message: image },
      { id: 'm2', message: userText('and then?') },
    ];
    expect(await compactor.maybeCompact('s-img', turns, 1000)).toMatchObject({
      status: 'compacted',
    });
    const asked = JSON.stringify(provider.requests[0]?.messages);
    expect(asked).toContain('[1 image(s)] look');
    expect(asked).not.toContain(photo.slice(0, 40));
  });

  it('summarizes older turns with the model past 85% of the window, keeping the recent ones', async () => {
    const database = await db();
    const provider = new ScriptedProvider([{ text: 'Ana wants a trip to Lyon.' }]);
    const compactor = new Compactor(database, {
      summarize: summarizeWith(viaProvider(provider, 'm')),
      keepRecent: 2,
    });
    const turns = history(10); // about 10 x 60 tokens
    expect(await compactor.maybeCompact('s1', turns, 4096)).toMatchObject({ status: 'not_needed' });
    const outcome = await compactor.maybeCompact('s1', turns, 600);
    expect(outcome).toMatchObject({
      status: 'compacted',
      summary: { epoch: 1, coversUntil: 'm8', covered: 8, summary: 'Ana wants a trip to Lyon.' },
    });
    expect(textOf(provider.requests[0]?.messages[0] ?? userText(''))).toContain('turn 1 ');
    const view = compactor.view('s1', turns);
    expect(view).toHaveLength(3);
    expect(textOf(view[0] ?? userText(''))).toContain('Ana wants a trip to Lyon.');
    expect(view.slice(1)).toEqual(turns.slice(8).map((t) => t.message));
    // The originals are untouched and still retrievable from the history itself.
    expect(turns).toHaveLength(10);
    database.close();
  });

  it('a summary started before another one committed is dropped as stale', async () => {
    const database = await db();
    let release: () => void = () => {};
    const slowGate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = new Compactor(database, {
      summarize: async () => {
        await slowGate;
        return 'stale summary';
      },
      keepRecent: 2,
    });
    const fast = new Compactor(database, { summarize: async () => 'fresh summary', keepRecent: 2 });
    const turns = history(10);
    const pending = slow.maybeCompact('s2', turns, 600);
    const newer = [...turns, ...history(14).slice(10)];
    expect(await fast.maybeCompact('s2', newer, 600)).toMatchObject({
      status: 'compacted',
      summary: { epoch: 1, coversUntil: 'm12' },
    });
    release();
    expect(await pending).toEqual({ status: 'stale', startedAt: 0, now: 1 });
    expect(fast.latest('s2')?.summary).toBe('fresh summary');
    expect(slow.epoch('s2')).toBe(1);
    database.close();
  });
});

describe('compaction in the agent runtime', () => {
  it('summarizes in the background after a reply; the next run sees the summary, not the old turns', async () => {
    const database = await db();
    const summarizer = new ScriptedProvider([{ text: 'Ana plans a trip to Lyon in May.' }]);
    const chat = new ScriptedProvider([{ text: 'Noted.' }, { text: 'Lyon, in May.' }]);
    const outcomes: string[] = [];
    const history = compactingHistory(
      new Compactor(database, {
        summarize: summarizeWith(viaProvider(summarizer, 's')),
        keepRecent: 1,
      }),
      // A tiny window: the first exchange already passes 85% of it.
      40,
      (_session, outcome) => outcomes.push(outcome.status),
    );
    const runtime = new AgentRuntime({
      ...UNGOVERNED,
      tools: noTools,
      store: new RunStore(database),
      model: viaProvider(chat, 'm'),
      history,
    });
    const first = runtime.start({
      text: `I plan a trip to Lyon in May. ${'Details. '.repeat(20)}`,
    });
    await first.done;
    await expect.poll(() => outcomes).toEqual(['compacted']);
    const second = runtime.start({ text: 'Where am I going?', sessionId: first.sessionId });
    await second.done;
    const sent = chat.requests[1]?.messages ?? [];
    expect(textOf(sent[0] as (typeof sent)[0])).toBe(
      '[Summary of the earlier conversation]\nAna plans a trip to Lyon in May.',
    );
    // Only what the summary does not cover follows it; the store still has every message.
    expect(sent.map((m) => textOf(m))).toEqual([
      '[Summary of the earlier conversation]\nAna plans a trip to Lyon in May.',
      'Noted.',
      'Where am I going?',
    ]);
    const store = new RunStore(database);
    expect(store.branch(store.latestMessage(first.sessionId)).length).toBe(4);
  });
});
