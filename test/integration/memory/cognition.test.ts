/**
 * CKP 0.3.0's memory extensions on a real SQLite store (keyword search, a clock the test moves):
 * salience reorders tied hits, decay forgets an unused old note and keeps a reused one,
 * summarize folds it instead, merge updates a repeated note, provenance reaches the tool's
 * output; a 0.3.0 manifest's store declares the policy; a database from before opens.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClaw } from '../../../src/main/core/ckp/loader.js';
import {
  DEFAULT_HALF_LIFE_MS,
  type MemoryPolicy,
  memoryPolicyFromManifest,
} from '../../../src/main/core/memory/cognition.js';
import { MEMORY_MIGRATIONS } from '../../../src/main/core/memory/schema.js';
import { type MemoryEffect, MemoryStore } from '../../../src/main/core/memory/store.js';
import { memoryToolAccess } from '../../../src/main/core/memory/tool-access.js';
import { type Db, migrate, openDatabase } from '../../../src/main/core/storage/index.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-cognition-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function fresh(): Promise<Db> {
  n += 1;
  const folder = path.join(dir, `db${n}`);
  await mkdir(folder, { recursive: true });
  return openDatabase(path.join(folder, 'pincer.db'));
}

const DAY = 86_400_000;
function clock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => (t += ms) };
}

// Same length, same matching terms: keyword search ranks them equally (the first added first).
const ALPHA = 'the tomatoes need water at seven alpha';
const BRAVO = 'the tomatoes need water at seven bravo';

async function order(store: MemoryStore, query = 'tomatoes water'): Promise<string[]> {
  return (await store.search(query, { limit: 10 })).hits.map((h) => h.text);
}

describe('salience', () => {
  it('a person’s mark lifts the second of two tied hits, within a bounded factor', async () => {
    const db = await fresh();
    const plain = MemoryStore.open(db);
    // Added by a tool: only the mark below says a person cares.
    await plain.addNote(ALPHA, { source: 'note:alpha', origin: 'tool' });
    await plain.addNote(BRAVO, { source: 'note:bravo', origin: 'tool' });
    expect(await order(plain)).toEqual([ALPHA, BRAVO]);
    plain.mark('note:bravo', true);
    // Without the extension the mark changes nothing.
    expect(await order(plain)).toEqual([ALPHA, BRAVO]);

    const effects: MemoryEffect[] = [];
    const salient = MemoryStore.open(db, {
      verify: false,
      policy: { salience: { reuse: false, recency: false, userPreference: true } },
      onEffect: (e) => effects.push(e),
    });
    const { hits } = await salient.search('tomatoes water');
    expect(hits.map((h) => h.text)).toEqual([BRAVO, ALPHA]);
    expect(hits[0]?.salience).toBeGreaterThan(1);
    expect(hits[0]?.salience).toBeLessThanOrEqual(1.2);
    expect(effects).toContainEqual({ op: 'rank', reordered: 2, boosted: 1, faded: 0 });
  });

  it('reuse: the note searches keep returning ranks above its tied twin', async () => {
    const db = await fresh();
    const c = clock();
    const store = MemoryStore.open(db, {
      now: c.now,
      policy: { salience: { reuse: true, recency: false, userPreference: false } },
    });
    await store.addNote(ALPHA, { source: 'note:alpha' });
    await store.addNote(BRAVO, { source: 'note:bravo' });
    expect(await order(store)).toEqual([ALPHA, BRAVO]);
    // Both were just returned once; bravo is now found three more times on its own.
    for (let i = 0; i < 3; i++) await store.search('bravo');
    expect(await order(store)).toEqual([BRAVO, ALPHA]);
  });
});

describe('forgetting', () => {
  const decay = (mode: 'decay' | 'summarize'): MemoryPolicy => ({
    forgetting: { mode, halfLifeMs: DEFAULT_HALF_LIFE_MS, threshold: 0.05 },
  });

  it('decay removes an old note nobody used and keeps an old one that was reused', async () => {
    const db = await fresh();
    const c = clock();
    const store = MemoryStore.open(db, { now: c.now, policy: decay('decay') });
    await store.addNote('the boiler code is 4417', { source: 'note:unused' });
    await store.addNote('the gate code is 9902', { source: 'note:reused' });
    await store.addNote('my passport number, keep forever', {
      source: 'note:pinned',
      pinned: true,
    });
    c.advance(60 * DAY);
    expect((await store.search('gate')).hits.map((h) => h.source)).toEqual(['note:reused']);
    // Day 100: the unused note has faded to 0.5^(100/30) = 0.10, above the threshold.
    c.advance(40 * DAY);
    expect(await store.applyForgetting()).toEqual({ forgotten: 0, folded: 0 });
    // Day 150: 0.5^5 = 0.03 goes; the reused one is 2 x 0.5^3 = 0.25; the pinned one stays.
    c.advance(50 * DAY);
    expect(await store.applyForgetting()).toEqual({ forgotten: 1, folded: 0 });
    const left = store.documents({}).map((d) => d.source);
    expect(left.sort()).toEqual(['note:pinned', 'note:reused']);
  });

  it('decay lowers the rank of a tied note nobody reused', async () => {
    const c = clock();
    const store = MemoryStore.open(await fresh(), { now: c.now, policy: decay('decay') });
    await store.addNote(ALPHA, { source: 'note:alpha' });
    await store.addNote(BRAVO, { source: 'note:bravo' });
    c.advance(60 * DAY);
    await store.search('bravo');
    c.advance(DAY);
    const { hits } = await store.search('tomatoes water');
    expect(hits.map((h) => h.text)).toEqual([BRAVO, ALPHA]);
    expect(hits[1]?.salience).toBeLessThan(1);
    expect(hits[1]?.salience).toBeGreaterThanOrEqual(0.8);
  });

  it('summarize folds the faded notes into one summary note instead of losing them', async () => {
    const db = await fresh();
    const c = clock();
    const store = MemoryStore.open(db, { now: c.now, policy: decay('summarize') });
    await store.addNote('Dentist is Dr Okafor on Elm Street\nmore detail', { source: 'note:a' });
    c.advance(200 * DAY);
    await store.addNote('a fresh note', { source: 'note:b' });
    const outcome = await store.applyForgetting();
    expect(outcome).toMatchObject({ forgotten: 1, folded: 1 });
    const summary = store.documents({ source: outcome.into });
    expect(summary[0]?.text).toContain('2026-01-01: Dentist is Dr Okafor on Elm Street');
    expect(store.documents({}).map((d) => d.source)).not.toContain('note:a');
    expect((await store.search('Okafor')).hits[0]?.source).toBe(outcome.into);
    // A store without a forgetting policy keeps everything.
    const plain = MemoryStore.open(db, {
      verify: false,
      now: () => new Date(c.now().getTime() + 900 * DAY),
    });
    expect(await plain.applyForgetting()).toEqual({ forgotten: 0, folded: 0 });
  });
});

describe('consolidation: merge', () => {
  it('a repeated note updates the entry it repeats; a different one is added', async () => {
    const db = await fresh();
    const effects: MemoryEffect[] = [];
    const store = MemoryStore.open(db, {
      policy: { merge: { similarity: 0.9 } },
      onEffect: (e) => effects.push(e),
    });
    const first = await store.addNote('Pay the electricity bill on the 5th of every month');
    const again = await store.addNote('pay the electricity bill on the 5th of every month!');
    expect(again).toMatchObject({ status: 'merged', source: first.source });
    expect(store.stats().notes).toBe(1);
    expect(store.documents({ source: first.source })[0]?.text).toBe(
      'pay the electricity bill on the 5th of every month!',
    );
    expect(effects).toEqual([{ op: 'merge', source: first.source, similarity: 1 }]);
    const other = await store.addNote('Pay the water bill on the 20th');
    expect(other.status).toBe('indexed');
    expect(store.stats().notes).toBe(2);

    // Without the policy the same note is stored twice, as before.
    const plain = MemoryStore.open(await fresh());
    await plain.addNote('Pay the electricity bill on the 5th of every month');
    await plain.addNote('pay the electricity bill on the 5th of every month!');
    expect(plain.stats().notes).toBe(2);
  });
});

describe('provenance', () => {
  it('every entry records where it came from, and the memory tool shows it', async () => {
    const db = await fresh();
    const workspace = path.join(dir, `ws${n}`);
    await mkdir(workspace, { recursive: true });
    const store = MemoryStore.open(db, { policy: { provenance: true } });
    await store.addNote('the spare key is under the blue pot');
    await store.addNote('the wifi password is on the fridge', { origin: 'operator' });
    const tools = memoryToolAccess(store, () => new Date('2026-02-03T10:00:00Z'));
    await tools.note(workspace, 'the model noted: the landlord is Ms Varga');
    const hits = (await store.search('spare key wifi landlord Varga')).hits;
    expect(new Set(hits.map((h) => h.origin))).toEqual(new Set(['user', 'operator', 'model']));
    const shown = await tools.search('spare key', 5, workspace);
    expect(shown).toMatch(/\(score [0-9.]+, \d{4}-\d\d-\d\d, from user\)\nthe spare key/);
    expect(await tools.search('landlord Varga', 5, workspace)).toContain('from model');

    // Without source tracking the output is as before.
    const plain = memoryToolAccess(MemoryStore.open(db, { verify: false }));
    expect(await plain.search('spare key', 5, workspace)).not.toContain('from ');
  });
});

describe('a 0.3.0 manifest', () => {
  it('declares the policy of the store memory search reads, and the store follows it', async () => {
    const claw = await loadClaw(
      path.resolve(import.meta.dirname, '../../fixtures/ckp/valid/v0.3.0/claw.yaml'),
    );
    const policy = memoryPolicyFromManifest(claw);
    // forgetting decay + signals [age, access], salience [user-marked], source tracking on.
    expect(policy).toEqual({
      role: 'episodic',
      salience: { reuse: false, recency: false, userPreference: true },
      forgetting: { mode: 'decay', halfLifeMs: DEFAULT_HALF_LIFE_MS, threshold: 0.05 },
      provenance: true,
    });
    const store = MemoryStore.open(await fresh(), { policy });
    await store.addNote(ALPHA, { source: 'note:alpha', origin: 'tool' });
    await store.addNote(BRAVO, { source: 'note:bravo', origin: 'user' });
    const { hits } = await store.search('tomatoes water');
    expect(hits.map((h) => [h.text, h.origin])).toEqual([
      [BRAVO, 'user'],
      [ALPHA, 'tool'],
    ]);
  });
});

describe('a database from before the extensions', () => {
  it('opens, migrates and searches with a policy; old entries count as unused', async () => {
    const db = await fresh();
    migrate(db, 'memory', MEMORY_MIGRATIONS.slice(0, 4));
    db.prepare(
      `insert into memory_documents (id, source, kind, content_hash, bytes, updated_at, indexed_at)
       values (1, 'note:old', 'note', 'x', 10, '2025-12-01T00:00:00.000Z', '2025-12-01T00:00:00.000Z')`,
    ).run();
    db.prepare(
      `insert into memory_chunks (id, document_id, seq, heading, start_line, end_line, text)
       values (1, 1, 0, '', 1, 1, 'an old note about sourdough')`,
    ).run();
    db.prepare(
      "insert into memory_fts (rowid, text, heading) values (1, 'an old note about sourdough', '')",
    ).run();
    const store = MemoryStore.open(db, {
      now: () => new Date('2026-01-01T00:00:00Z'),
      policy: { provenance: true, salience: { reuse: true, recency: true, userPreference: true } },
    });
    const [hit] = (await store.search('sourdough')).hits;
    expect(hit?.source).toBe('note:old');
    expect(hit?.origin).toBeUndefined();
    const row = db
      .prepare("select uses, pinned from memory_documents where source = 'note:old'")
      .get();
    expect(row).toEqual({ uses: 1, pinned: 0 });
  });
});
