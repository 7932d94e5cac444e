/**
 * The parsed-manifest cache: texts keyed by content hash, so an unchanged manifest is not parsed
 * again; an edited one is; problems point at the same lines either way; a bad cache file costs
 * only the parse.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachePath, HashCache } from '../../../src/main/core/ckp/cache-file.js';
import { loadActiveClaw, MANIFEST_SOURCES } from '../../../src/main/core/ckp/default-manifest.js';
import { checkClaw } from '../../../src/main/core/ckp/loader.js';
import {
  isParsedDocuments,
  readSource,
  sourceKey,
} from '../../../src/main/core/ckp/yaml-source.js';
import { RESOURCES } from './fixtures.js';

let dir = '';
const openSources = (file: string) => HashCache.open(file, { max: 64, valid: isParsedDocuments });
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-sources-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const manifest = (name: string, extra = '') => `claw: "0.2.0"
kind: Claw
metadata:
  name: "${name}"
spec:
  identity:
    inline:
      personality: "Helpful."
      autonomy: "supervised"
${extra}`;

describe('parsed-manifest cache', () => {
  it('answers an unchanged text from the cache and parses an edited one', async () => {
    const file = path.join(dir, 'claw.yaml');
    const text = manifest('first');
    await writeFile(file, text);
    const cache = await openSources(path.join(dir, 'cache.json'));
    expect((await readSource(file, cache)).documents[0]?.data).toMatchObject({
      metadata: { name: 'first' },
    });
    await cache.save();
    // Shown by a cache entry changed behind the loader's back: the next read is the cache's.
    const stored = JSON.parse(await readFile(cache.file, 'utf8'));
    stored[sourceKey(text)][0].data.metadata.name = 'from-cache';
    await writeFile(cache.file, JSON.stringify(stored));
    const reopened = await openSources(cache.file);
    expect((await readSource(file, reopened)).documents[0]?.data).toMatchObject({
      metadata: { name: 'from-cache' },
    });
    // An edit is another hash: parsed again.
    await writeFile(file, manifest('edited'));
    expect((await readSource(file, reopened)).documents[0]?.data).toMatchObject({
      metadata: { name: 'edited' },
    });
  });

  it('hands out fresh data each time, so what a load changes never reaches the cache', async () => {
    const file = path.join(dir, 'claw.yaml');
    await writeFile(file, manifest('fresh'));
    const cache = await openSources(path.join(dir, 'cache.json'));
    const first = (await readSource(file, cache)).documents[0]?.data as {
      metadata: { name: string };
    };
    first.metadata.name = 'changed by a load';
    const second = (await readSource(file, cache)).documents[0]?.data;
    expect(second).toMatchObject({ metadata: { name: 'fresh' } });
  });

  it('points problems at the same lines and columns from the cache as from the parser', async () => {
    const file = path.join(dir, 'claw.yaml');
    await writeFile(
      file,
      manifest('bad', '  tools:\n    - inline:\n        name: "x/y"\n        surprise: true\n'),
    );
    const cache = await openSources(path.join(dir, 'cache.json'));
    const parsed = await checkClaw(file, { sourceCache: cache });
    expect(parsed.claw).toBeUndefined();
    const located = parsed.issues.filter((issue) => issue.line !== undefined);
    expect(located.length).toBeGreaterThan(0);
    const cached = await checkClaw(file, { sourceCache: cache });
    expect(cached.issues).toEqual(parsed.issues);
    expect(await checkClaw(file)).toEqual(parsed);
  });

  it('keeps no text with a syntax error, or with values JSON cannot carry', async () => {
    const cache = await openSources(path.join(dir, 'cache.json'));
    const broken = path.join(dir, 'broken.yaml');
    await writeFile(broken, 'a: [1, 2\n');
    expect((await readSource(broken, cache)).issues[0]).toMatchObject({
      rule: 'yaml.syntax',
      line: 2,
    });
    const infinite = path.join(dir, 'inf.yaml');
    await writeFile(infinite, 'limit: .inf\n');
    expect((await readSource(infinite, cache)).documents[0]?.data).toEqual({ limit: Infinity });
    await cache.save();
    await expect(stat(cache.file)).rejects.toThrow(); // nothing kept, nothing written
  });

  it('survives a file it cannot read and ignores entries that are not its own', async () => {
    const file = path.join(dir, 'claw.yaml');
    await writeFile(file, manifest('sound'));
    const cacheFile = path.join(dir, 'cache.json');
    await writeFile(cacheFile, '{ not json');
    const cache = await openSources(cacheFile);
    expect((await readSource(file, cache)).documents[0]?.data).toMatchObject({
      metadata: { name: 'sound' },
    });
    await writeFile(
      cacheFile,
      JSON.stringify({
        '../../etc/passwd': [{ index: 0, data: {}, positions: {} }],
        [sourceKey(manifest('sound'))]: [{ index: 0, data: 'no positions' }],
      }),
    );
    const hostile = await openSources(cacheFile);
    expect((await readSource(file, hostile)).documents[0]?.data).toMatchObject({
      metadata: { name: 'sound' },
    });
  });

  it('is filled by the first load of the active manifest and not rewritten by the next', async () => {
    const places = { dataDir: dir, resourcesDir: RESOURCES };
    const first = await loadActiveClaw(places);
    const file = cachePath(dir, MANIFEST_SOURCES);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(path.join(RESOURCES, 'claw.yaml'), 'utf8');
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')))).toContain(sourceKey(text));
    const before = (await stat(file)).mtimeMs;
    const second = await loadActiveClaw(places);
    expect(second.claw).toEqual(first.claw);
    expect((await stat(file)).mtimeMs).toBe(before);
  });
});
