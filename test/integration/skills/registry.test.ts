/** The skills registry on a real SQLite file, embeddings from the tiny GGUF. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../../../src/main/core/local/embeddings.js';
import { SkillRegistry } from '../../../src/main/core/skills/registry.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';

let dir = '';
let embedder: LocalEmbedder;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-skills-'));
  const model = path.join(dir, 'embed.gguf');
  await writeTinyGguf(model, { tokenizer: 'bpe', embedding: 64, seed: 9 });
  embedder = await LocalEmbedder.open({ modelPath: model, runtime: { gpu: false, threads: 2 } });
}, 60_000);
afterAll(async () => {
  await embedder?.dispose();
  await rm(dir, { recursive: true, force: true });
});

async function skill(folder: string, front: string, body = 'Do it carefully.'): Promise<string> {
  const at = path.join(dir, folder);
  await mkdir(at, { recursive: true });
  await writeFile(path.join(at, 'SKILL.md'), `---\n${front}\n---\n${body}\n`);
  return at;
}

describe('SkillRegistry', () => {
  it('adds, finds by FTS, enables/disables, tracks trust and content hash, refuses duplicates', async () => {
    const db = openDatabase(path.join(dir, 'a.db'));
    const registry = SkillRegistry.open(db, { embedder });
    const csv = await skill(
      'csv',
      'name: csv-report\ndescription: Summarise a CSV spreadsheet into a report\ntags: [data]\nrequires:\n  tools: [fs/read, fs/write]',
    );
    const web = await skill(
      'web',
      'name: web-digest\ndescription: Fetch a web page and digest the article\nrequires:\n  tools: [net/fetch]',
    );
    const added = await registry.add(csv);
    expect(added.status).toBe('added');
    expect(added.skill).toMatchObject({ name: 'csv-report', trust: 'unverified', enabled: true });
    expect(added.skill.contentHash).toMatch(/^[0-9a-f]{64}$/);
    await registry.add(web, { trust: 'community' });
    expect((await registry.add(csv)).status).toBe('unchanged');

    expect(registry.search('spreadsheet').map((s) => s.name)).toEqual(['csv-report']);
    expect(registry.search('article page').map((s) => s.name)).toEqual(['web-digest']);

    // Same name from another place: refused, the registered one untouched.
    const impostor = await skill(
      'impostor',
      'name: csv-report\ndescription: something else entirely',
    );
    await expect(registry.add(impostor)).rejects.toMatchObject({
      code: 'duplicate',
      message: expect.stringContaining(`already registered from ${path.join(csv, 'SKILL.md')}`),
    });
    expect(registry.get('csv-report')?.description).toBe(
      'Summarise a CSV spreadsheet into a report',
    );

    // Malformed front matter: refused, nothing registered.
    const broken = await skill('broken', 'name: broken\ndescription: [oops');
    await expect(registry.add(broken)).rejects.toMatchObject({ code: 'malformed' });
    expect(registry.list().map((s) => s.name)).toEqual(['csv-report', 'web-digest']);

    // Editing the file updates the same entry with a new hash.
    await writeFile(
      path.join(csv, 'SKILL.md'),
      '---\nname: csv-report\ndescription: Summarise a CSV spreadsheet into a report, with charts\nrequires:\n  tools: [fs/read, fs/write]\n---\nNew steps.\n',
    );
    const updated = await registry.add(csv);
    expect(updated.status).toBe('updated');
    expect(updated.skill.contentHash).not.toBe(added.skill.contentHash);
    expect(registry.search('charts').map((s) => s.name)).toEqual(['csv-report']);

    expect(registry.setEnabled('web-digest', false).enabled).toBe(false);
    expect(registry.setTrust('web-digest', 'verified').trust).toBe('verified');
    expect(() => registry.setEnabled('nope', true)).toThrow(/no skill named "nope"/);
    db.close();
  });

  it('matches by keyword overlap, top 3, never offering disabled skills or ones needing disallowed tools', async () => {
    const db = openDatabase(path.join(dir, 'b.db'));
    const registry = SkillRegistry.open(db, { embedder });
    const names = ['alpha', 'beta', 'gamma', 'delta'];
    for (const [i, name] of names.entries()) {
      await registry.add(
        await skill(
          `m-${name}`,
          `name: ${name}-report\ndescription: write a quarterly report ${'about sales '.repeat(i)}\nrequires:\n  tools: [fs/write]`,
        ),
      );
    }
    await registry.add(
      await skill(
        'm-shell',
        'name: shell-report\ndescription: write a quarterly sales report using the shell\nrequires:\n  tools: [sys/exec]',
      ),
    );
    const allowed = (tool: string) => tool.startsWith('fs/');
    const matches = await registry.match('please write the quarterly sales report', {
      isToolAllowed: allowed,
      minSimilarity: 2, // keyword overlap only: the tiny model's similarities are noise
    });
    expect(matches).toHaveLength(3);
    expect(matches.map((m) => m.skill.name)).not.toContain('shell-report');
    // alpha shares no "sales": it ranks after the others.
    expect(matches.map((m) => m.skill.name)).not.toContain('alpha-report');
    expect(matches[0]?.overlap.sort()).toEqual(['quarterly', 'report', 'sales', 'write']);

    registry.setEnabled('beta-report', false);
    const after = await registry.match('quarterly sales report', {
      isToolAllowed: allowed,
      minSimilarity: 2,
    });
    expect(after.map((m) => m.skill.name)).not.toContain('beta-report');
    expect(
      await registry.match('nothing in common', { isToolAllowed: allowed, minSimilarity: 2 }),
    ).toEqual([]);

    // With the embedder, similarity is computed for every offered skill (equal text: similarity 1).
    const near = await registry.match(
      'gamma-report: write a quarterly report about sales about sales',
      {
        isToolAllowed: allowed,
      },
    );
    expect(near.find((m) => m.skill.name === 'gamma-report')?.similarity).toBeCloseTo(1, 3);
    db.close();
  });
});
