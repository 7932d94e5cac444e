/**
 * The memory store on a real SQLite file with real sqlite-vec, embedding with the tiny GGUF
 * through node-llama-cpp (random weights: vectors mean nothing, but equal texts embed equally,
 * so a query equal to a chunk is that chunk's nearest neighbour).
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, open, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../../../src/main/core/local/embeddings.js';
import { MemoryError } from '../../../src/main/core/memory/errors.js';
import { openMemoryDatabase } from '../../../src/main/core/memory/open.js';
import { MemoryStore } from '../../../src/main/core/memory/store.js';
import { type Db, openDatabase } from '../../../src/main/core/storage/database.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';

let dir = '';
let embedder: LocalEmbedder;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-memory-'));
  const model = path.join(dir, 'embed.gguf');
  await writeTinyGguf(model, { tokenizer: 'bpe', embedding: 64, seed: 9 });
  embedder = await LocalEmbedder.open({ modelPath: model, runtime: { gpu: false, threads: 2 } });
}, 60_000);

afterAll(async () => {
  await embedder?.dispose();
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function fresh(): Promise<{ db: Db; file: string; docs: string }> {
  n += 1;
  const file = path.join(dir, `db${n}`, 'pincer.db');
  const docs = path.join(dir, `docs${n}`);
  await mkdir(docs, { recursive: true });
  return { db: openDatabase(file), file, docs };
}

const GUIDE = [
  '# Garden',
  'The tomatoes are watered every morning at seven.',
  '## Pests',
  'Aphids on the roses: spray soapy water.',
  '# Car',
  'The car service is due in March; the garage is Miller & Sons.',
].join('\n');

describe('MemoryStore with the tiny GGUF embedder', () => {
  it('indexes Markdown by headings and finds a chunk by keywords and by vector, with its lines', async () => {
    const { db, docs } = await fresh();
    const store = MemoryStore.open(db, { embedder });
    await writeFile(path.join(docs, 'notes.md'), GUIDE);
    const { outcomes, errors } = await store.indexPath(docs);
    expect(errors).toEqual([]);
    expect(outcomes).toEqual([
      { source: path.join(docs, 'notes.md'), status: 'indexed', chunks: 3 },
    ]);
    expect(store.stats()).toMatchObject({ documents: 1, chunks: 3, embedded: 3 });

    const result = await store.search('when is the car service due at the garage');
    expect(result.mode).toBe('hybrid');
    expect(result.notice).toBeUndefined();
    // Random weights make the vector ranking noise, so look for the keyword winner in the fused list.
    const top = result.hits.find((h) => h.ranks.fts === 1);
    expect(top).toMatchObject({
      source: path.join(docs, 'notes.md'),
      heading: 'Car',
      startLine: 5,
      endLine: 6,
    });
    expect(top?.score).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(top?.updatedAt ?? ''))).toBe(false);

    // The exact text of a chunk is its own nearest vector, whatever the random weights.
    const exact = await store.search('Aphids on the roses: spray soapy water.');
    const pests = exact.hits.find((h) => h.heading === 'Garden > Pests');
    expect(pests?.ranks.vector).toBe(1);
    db.close();
  });

  it('skips unchanged files on reindex, re-chunks changed ones, drops deleted ones', async () => {
    const { db, docs } = await fresh();
    const store = MemoryStore.open(db, { embedder });
    const a = path.join(docs, 'a.md');
    const b = path.join(docs, 'b.md');
    await writeFile(a, GUIDE);
    await writeFile(b, '# B\nbeta text');
    await store.indexPath(docs);
    await writeFile(b, '# B\nbeta text, changed\n# C\ngamma');
    let report = await store.reindex();
    expect(report.outcomes).toEqual([
      { source: a, status: 'unchanged', chunks: 3 },
      { source: b, status: 'indexed', chunks: 2 },
    ]);
    expect((await store.search('gamma')).hits[0]?.heading).toBe('C');
    await rm(b);
    report = await store.reindex();
    expect(report.removed).toEqual([b]);
    expect((await store.search('gamma')).hits.some((h) => h.source === b)).toBe(false);
    expect(store.stats().chunks).toBe(3);
    db.close();
  });

  it('notes are searchable, forgettable, and kept by retention up to age and count', async () => {
    const { db } = await fresh();
    let clock = new Date('2026-01-01T00:00:00Z');
    const store = MemoryStore.open(db, { embedder, now: () => clock });
    const old = await store.addNote('The wifi password hint is the dog name.');
    clock = new Date('2026-03-01T00:00:00Z');
    const mid = await store.addNote('Dentist appointment on Friday.');
    const recent = await store.addNote('Pay the electricity bill.');
    expect((await store.search('wifi password')).hits[0]?.source).toBe(old.source);

    expect(store.applyRetention({ maxAgeMs: 30 * 86_400_000 })).toBe(1);
    expect((await store.search('wifi password')).hits.some((h) => h.source === old.source)).toBe(
      false,
    );
    expect(store.applyRetention({ maxEntries: 1 })).toBe(1);
    const left = (await store.search('dentist electricity')).hits.map((h) => h.source);
    expect(left).toContain(recent.source);
    expect(left).not.toContain(mid.source);

    expect(store.forget(recent.source)).toBe(1);
    expect(store.forget(recent.source)).toBe(0);
    expect(store.stats().notes).toBe(0);
    db.close();
  });

  it('without an embedder search is FTS5 only and says so; the vectors are added later', async () => {
    const { db, file } = await fresh();
    const plain = MemoryStore.open(db);
    await plain.addNote('Grandma birthday is on the ninth of June.');
    const result = await plain.search('grandma birthday');
    expect(result.mode).toBe('fts');
    expect(result.notice).toMatch(/no embedding model/);
    expect(result.hits[0]?.text).toContain('ninth of June');
    db.close();

    const db2 = openDatabase(file);
    const hybrid = MemoryStore.open(db2, { embedder });
    expect((await hybrid.search('grandma')).notice).toMatch(/reindex/);
    expect((await hybrid.reindex()).embedded).toBe(1);
    const after = await hybrid.search('Grandma birthday is on the ninth of June.');
    expect(after.notice).toBeUndefined();
    expect(after.hits[0]?.ranks).toEqual({ fts: 1, vector: 1 });
    db2.close();
  });

  it('leaves words found in over a tenth of the chunks out of keyword search', async () => {
    const { db } = await fresh();
    const store = MemoryStore.open(db);
    for (let i = 0; i < 1200; i++) {
      const text = `weather report ${i}${i % 500 === 0 ? ' tornado' : ''}`;
      await store.addNote(text, { source: `note:${i}` });
    }
    expect(store.stats().notes).toBe(1200);
    const hits = (await store.search('weather tornado', { limit: 10 })).hits;
    // Only the three tornado notes match: "weather" (in every chunk) was not searched.
    expect(hits.map((h) => h.source).sort()).toEqual(['note:0', 'note:1000', 'note:500']);
    db.close();
  });

  it('facts are scoped global, per identity and per channel', async () => {
    const { db } = await fresh();
    const store = MemoryStore.open(db);
    store.facts.set({ kind: 'global' }, 'timezone', 'Europe/Paris');
    store.facts.set({ kind: 'identity', id: 'ana' }, 'timezone', 'America/Lima');
    store.facts.set({ kind: 'channel', id: 'telegram' }, 'tone', 'brief');
    expect(store.facts.get({ kind: 'global' }, 'timezone')).toBe('Europe/Paris');
    expect(store.facts.get({ kind: 'identity', id: 'ana' }, 'timezone')).toBe('America/Lima');
    expect(store.facts.get({ kind: 'identity', id: 'bob' }, 'timezone')).toBeUndefined();
    store.facts.set({ kind: 'global' }, 'timezone', 'UTC');
    expect(store.facts.list([{ kind: 'global' }]).map((f) => f.value)).toEqual(['UTC']);
    expect(store.facts.delete({ kind: 'channel', id: 'telegram' }, 'tone')).toBe(true);
    expect(store.facts.list()).toHaveLength(2);
    db.close();
  });
});

describe('bad input: clear errors, nothing lost', () => {
  it('a chunk longer than the embedding window is embedded by its head, kept whole in FTS5', async () => {
    const narrow = await LocalEmbedder.open({
      modelPath: path.join(dir, 'embed.gguf'),
      runtime: { gpu: false, threads: 2 },
      contextSize: 64,
    });
    try {
      const { db } = await fresh();
      const store = MemoryStore.open(db, { embedder: narrow });
      const long = `${'lorem ipsum dolor sit amet '.repeat(40)}zebra`;
      await expect(narrow.embed([long])).rejects.toThrow();
      await store.addNote(long);
      expect(store.stats()).toMatchObject({ chunks: 1, embedded: 1 });
      const hit = (await store.search('zebra')).hits[0];
      expect(hit?.text).toBe(long);
      expect(hit?.ranks.fts).toBe(1);
      db.close();
    } finally {
      await narrow.dispose();
    }
  });

  it('refuses a 50 MB file and a binary file without touching what is indexed', async () => {
    const { db, docs } = await fresh();
    const store = MemoryStore.open(db, { embedder });
    await writeFile(path.join(docs, 'good.md'), GUIDE);
    await store.indexPath(docs);
    const big = path.join(docs, 'big.md');
    await writeFile(big, '');
    await truncate(big, 50 * 1024 * 1024);
    const bin = path.join(docs, 'photo.txt');
    await writeFile(bin, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    const latin1 = path.join(docs, 'latin1.txt');
    await writeFile(latin1, Buffer.from([0x63, 0x61, 0x66, 0xe9]));

    await expect(store.indexFile(big)).rejects.toMatchObject({ code: 'too_large' });
    await expect(store.indexFile(bin)).rejects.toMatchObject({ code: 'binary' });
    await expect(store.indexFile(latin1)).rejects.toMatchObject({ code: 'binary' });
    const report = await store.indexPath(docs);
    expect(report.errors.map((e) => [path.basename(e.source), e.error.code]).sort()).toEqual([
      ['big.md', 'too_large'],
      ['latin1.txt', 'binary'],
      ['photo.txt', 'binary'],
    ]);
    expect(report.errors[0]?.error).toBeInstanceOf(MemoryError);
    expect(store.stats()).toMatchObject({ documents: 1, chunks: 3 });
    const tomatoes = (await store.search('tomatoes')).hits.filter((h) => h.ranks.fts);
    expect(tomatoes.map((h) => h.heading)).toEqual(['Garden']);
    db.close();
  });

  it('reports a corrupt database (integrity_check) and leaves the file byte for byte', async () => {
    const { db, file } = await fresh();
    const store = MemoryStore.open(db);
    for (let i = 0; i < 200; i++) await store.addNote(`note ${i} ${'lorem ipsum '.repeat(40)}`);
    db.close();
    // Scribble over a page in the middle of the file (a b-tree page, not the header).
    const handle = await open(file, 'r+');
    const size = (await handle.stat()).size;
    const page = 4096;
    const at = Math.floor(size / page / 2) * page;
    await handle.write(Buffer.alloc(page, 0x5a), 0, page, at);
    await handle.close();
    const before = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');

    let failure: unknown;
    try {
      const reopened = openMemoryDatabase(file);
      try {
        MemoryStore.open(reopened);
      } finally {
        reopened.close();
      }
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(MemoryError);
    expect((failure as MemoryError).code).toBe('corrupt_database');
    expect((failure as MemoryError).message).toMatch(/left untouched/);
    const after = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
    expect(after).toBe(before);
  });
});
