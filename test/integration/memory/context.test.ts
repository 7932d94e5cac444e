/** The context builder over a real workspace and profile database (keyword search only). */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextBuilder, describeContext } from '../../../src/main/core/memory/context.js';
import { MemoryStore } from '../../../src/main/core/memory/store.js';
import { SkillRegistry } from '../../../src/main/core/skills/registry.js';
import { type Db, openDatabase } from '../../../src/main/core/storage/database.js';

let dir = '';
let workspace = '';
let db: Db;
let memory: MemoryStore;
let skills: SkillRegistry;
const today = new Date(2026, 10, 23, 12, 0);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-context-'));
  workspace = path.join(dir, 'ws');
  await mkdir(path.join(workspace, 'threads', 'daily'), { recursive: true });
  await mkdir(path.join(workspace, 'threads', 'weekly'), { recursive: true });
  await writeFile(path.join(workspace, 'SOUL.md'), 'I am Pincer, calm and exact.');
  await writeFile(path.join(workspace, 'USER.md'), 'Ana, prefers metric units.');
  await writeFile(
    path.join(workspace, 'threads/daily/2026-11-23.md'),
    '# 2026-11-23\nToday: dentist.',
  );
  await writeFile(
    path.join(workspace, 'threads/daily/2026-11-22.md'),
    '# 2026-11-22\nYesterday: gym.',
  );
  await writeFile(path.join(workspace, 'threads/daily/2026-11-19.md'), '# 2026-11-19\nToo old.');
  await writeFile(
    path.join(workspace, 'threads/weekly/2026-W48.md'),
    '# W48\nPattern: tired on Mondays.',
  );
  db = openDatabase(path.join(dir, 'pincer.db'));
  memory = MemoryStore.open(db);
  skills = SkillRegistry.open(db);
  await memory.addNote('The passport expires in May 2027.');
  memory.facts.set({ kind: 'global' }, 'home town', 'Lyon');
  memory.facts.set({ kind: 'channel', id: 'telegram' }, 'tone', 'terse');
  for (const [name, tools] of [
    ['travel-prep', '[fs/read]'],
    ['travel-shell', '[sys/exec]'],
  ] as const) {
    const folder = path.join(dir, name);
    await mkdir(folder);
    await writeFile(
      path.join(folder, 'SKILL.md'),
      `---\nname: ${name}\ndescription: prepare travel documents like a passport\nrequires:\n  tools: ${tools}\n---\nCheck expiry dates first.\n`,
    );
    await skills.add(folder);
  }
});
afterAll(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

function builder(budgetTokens: number) {
  return new ContextBuilder({
    workspace,
    preamble: 'You are Pincer.',
    personality: 'unused: SOUL.md wins',
    memory,
    skills,
    isToolAllowed: (name) => name === 'fs/read',
    budgetTokens,
    now: () => today,
  });
}

describe('ContextBuilder', () => {
  it('loads identity, user, recent threads, matching skills and memories in order', async () => {
    const built = await builder(10_000).build({ text: 'when does my passport expire for travel?' });
    expect(built.included.map((s) => s.name)).toEqual([
      'preamble',
      'SOUL.md',
      'USER.md',
      'facts',
      'threads/daily/2026-11-23.md',
      'threads/daily/2026-11-22.md',
      'threads/weekly/2026-W48.md',
      'skill travel-prep',
      expect.stringMatching(/^note:/),
    ]);
    expect(built.text).toContain('I am Pincer, calm and exact.');
    expect(built.text).toContain('# Known facts\n- home town: Lyon');
    expect(built.text).not.toContain('terse');
    expect(built.text).not.toContain('unused: SOUL.md wins');
    expect(built.text).not.toContain('Too old.');
    expect(built.text).toContain('Check expiry dates first.');
    expect(built.text).not.toContain('travel-shell');
    expect(built.text).toContain('The passport expires in May 2027.');
    expect(built.tokens).toBe(built.included.reduce((n, s) => n + s.tokens, 0));
    expect(built.dropped).toContainEqual({
      name: 'vector search',
      reason: 'no embedding model configured: keyword (FTS5) search only',
    });
  });

  it('drops the least important sections first when over budget, and says why', async () => {
    const full = await builder(10_000).build({ text: 'passport travel' });
    const size = (name: string) => full.included.find((s) => s.name === name)?.tokens ?? 0;
    const essentials = size('preamble') + size('SOUL.md') + size('USER.md') + size('facts');
    const budget = essentials + size('threads/daily/2026-11-23.md');
    const tight = await builder(budget).build({ text: 'passport travel' });
    expect(tight.included.map((s) => s.name)).toEqual([
      'preamble',
      'SOUL.md',
      'USER.md',
      'facts',
      'threads/daily/2026-11-23.md',
    ]);
    expect(tight.tokens).toBeLessThanOrEqual(budget);
    const reasons = Object.fromEntries(tight.dropped.map((d) => [d.name, d.reason]));
    expect(reasons['skill travel-prep']).toMatch(
      /over the token budget \(needs \d+, 0 of \d+ left\)/,
    );
    expect(reasons['threads/weekly/2026-W48.md']).toMatch(/over the token budget/);
    expect(Object.keys(reasons).some((name) => name.startsWith('note:'))).toBe(true);
    const described = describeContext(tight);
    expect(described).toMatch(new RegExp(`^context: ${tight.tokens} of ${budget} tokens\n`));
    expect(described).toContain('  + SOUL.md (');
    expect(described).toMatch(/ {2}- skill travel-prep: over the token budget/);
  });

  it('a memory search that fails costs the turn its memories, not the turn', async () => {
    const other = openDatabase(path.join(dir, 'broken-embedder.db'));
    // The note is embedded; the model crashes on the query (a store with no vectors would not
    // embed the query at all).
    let calls = 0;
    const failing = MemoryStore.open(other, {
      embedder: {
        id: 'always-fails',
        dimensions: 8,
        embed: async (texts) => {
          if (calls++ === 0) return texts.map(() => new Float32Array(8).fill(0.5));
          throw new Error('model crashed');
        },
      },
    });
    await failing.addNote('passport renewal is due');
    const built = await new ContextBuilder({
      workspace,
      memory: failing,
      budgetTokens: 10_000,
      now: () => today,
    }).build({ text: 'passport' });
    expect(built.included.map((s) => s.name)).toContain('SOUL.md');
    expect(built.dropped).toContainEqual({
      name: 'memories',
      reason: 'search failed: embedding with always-fails failed: model crashed',
    });
    other.close();
  });
});
