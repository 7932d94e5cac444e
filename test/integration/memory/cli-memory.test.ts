/** `pincer memory ...` in-process against a temp data dir, embeddings from the tiny GGUF. */
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { repoRoot, runCliInProcess } from '../../support/cli-run.js';

let dir = '';
let dataDir = '';
let model = '';

beforeAll(async () => {
  vi.stubEnv('PINCER_EMBEDDING_MODEL', '');
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-memcli-'));
  dataDir = path.join(dir, 'data');
  model = path.join(dir, 'embed.gguf');
  await writeTinyGguf(model, { tokenizer: 'bpe', embedding: 64, seed: 9 });
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

const pincer = (...argv: string[]) => runCliInProcess(argv, { dataDir, appDir: repoRoot });

describe('pincer memory', () => {
  it('add, search (hybrid and keyword-only), reindex, forget; bad files are refused', async () => {
    const withModel = ['--embedding-model', model, '--threads', '2'];
    const note = await pincer(
      'memory',
      'add',
      'The',
      'spare',
      'key',
      'is',
      'under',
      'the',
      'blue',
      'pot',
      ...withModel,
    );
    expect(note.code).toBe(0);
    const source = /remembered (note:\S+)/.exec(note.stdout)?.[1] ?? '';
    expect(source).toMatch(/^note:/);

    const docs = path.join(dir, 'docs');
    await mkdir(docs);
    await writeFile(path.join(docs, 'trip.md'), '# Trip\nThe ferry leaves at 06:40 from pier 3.\n');
    const big = path.join(docs, 'huge.txt');
    await writeFile(big, '');
    await truncate(big, 50 * 1024 * 1024);
    const added = await pincer('memory', 'add', '--file', docs, ...withModel);
    expect(added.code).toBe(1);
    expect(added.stdout).toContain(`indexed ${path.join(docs, 'trip.md')} (1 chunks)`);
    expect(added.stderr).toMatch(
      /skipped .*huge\.txt: .* is 52428800 bytes; memory indexes files up to/,
    );

    const hybrid = await pincer('memory', 'search', 'ferry', 'pier', '--json', ...withModel);
    expect(hybrid.code).toBe(0);
    const parsed = JSON.parse(hybrid.stdout) as {
      mode: string;
      hits: Array<{ source: string; startLine: number; ranks: { fts?: number } }>;
    };
    expect(parsed.mode).toBe('hybrid');
    expect(parsed.hits.find((h) => h.ranks.fts === 1)).toMatchObject({
      source: path.join(docs, 'trip.md'),
      startLine: 1,
    });

    const keywords = await pincer('memory', 'search', 'spare', 'key');
    expect(keywords.code).toBe(0);
    expect(keywords.stderr).toContain('keyword (FTS5) search only');
    expect(keywords.stdout).toContain('The spare key is under the blue pot');

    await writeFile(path.join(docs, 'trip.md'), '# Trip\nThe ferry now leaves at 07:10.\n');
    const re = await pincer('memory', 'reindex', ...withModel);
    expect(re.stdout).toContain('1 files: 1 re-indexed, 0 unchanged, 0 removed');
    expect((await pincer('memory', 'search', '07:10')).stdout).toContain('07:10');

    expect((await pincer('memory', 'forget', source)).code).toBe(0);
    const gone = await pincer('memory', 'search', 'spare', 'key');
    expect(gone.stdout).not.toContain('blue pot');
    const again = await pincer('memory', 'forget', source);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('nothing remembered');
    expect((await pincer('memory', 'add')).code).toBe(2);

    expect((await pincer('memory', 'fact', 'set', 'timezone', 'Europe/Paris')).code).toBe(0);
    await pincer('memory', 'fact', 'set', 'tone', 'brief', '--scope', 'channel:telegram');
    expect((await pincer('memory', 'fact', 'list')).stdout).toBe(
      'channel:telegram  tone = brief\nglobal  timezone = Europe/Paris\n',
    );
    const badScope = await pincer('memory', 'fact', 'list', '--scope', 'planet:mars');
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toContain('is not a scope');
    expect((await pincer('memory', 'fact', 'delete', 'timezone')).code).toBe(0);
    expect((await pincer('memory', 'fact', 'delete', 'timezone')).code).toBe(1);
  });
});
