/**
 * The cache of specs zod already validated: keyed by content and schema revision, only clean
 * parses kept, the active manifest's primitives typed the same from it, and a revision that
 * must change whenever a spec schema does.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cachePath } from '../../../src/main/core/ckp/cache-file.js';
import { loadActiveClaw, SPEC_PARSES } from '../../../src/main/core/ckp/default-manifest.js';
import { loadClaw } from '../../../src/main/core/ckp/loader.js';
import { SPEC_SCHEMA_REVISION, SPEC_SCHEMAS } from '../../../src/main/core/ckp/schemas.js';
import { keepSpec, specKey } from '../../../src/main/core/ckp/spec-parses.js';
import { RESOURCES } from './fixtures.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-specs-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** A map standing in for the cache file. */
const memory = () => {
  const entries = new Map<string, unknown>();
  return { entries, get: (key: string) => entries.get(key), set: entries.set.bind(entries) };
};

describe('spec parses', () => {
  it('fills from the first load of the active manifest and types every primitive the same from it', async () => {
    const places = { dataDir: dir, resourcesDir: RESOURCES };
    const first = await loadActiveClaw(places);
    const saved = JSON.parse(await readFile(cachePath(dir, SPEC_PARSES), 'utf8'));
    expect(Object.keys(saved).length).toBeGreaterThan(3);
    const second = await loadActiveClaw(places);
    expect(second.claw).toEqual(first.claw);
  });

  it('serves a known spec without parsing it again, and parses a changed one', async () => {
    const manifest = path.join(dir, 'claw.yaml');
    await writeFile(
      manifest,
      [
        'claw: "0.2.0"',
        'kind: Claw',
        'metadata: { name: cached }',
        'spec:',
        '  identity: { inline: { personality: "Terse." } }',
        '  providers: [{ inline: { protocol: openai-compatible, endpoint: "http://127.0.0.1:9/v1", model: m, auth: { type: none } } }]',
        '',
      ].join('\n'),
    );
    const parses = memory();
    const first = await loadClaw(manifest, { specParses: parses });
    expect(parses.entries.size).toBe(2);
    // What the cache holds is what the next load uses: shown by planting another typed spec.
    const [providerKey] =
      [...parses.entries].find(([, spec]) => 'protocol' in (spec as object)) ?? [];
    parses.set(providerKey as string, { protocol: 'openai-compatible', model: 'planted' });
    const second = await loadClaw(manifest, { specParses: parses });
    expect(second.providers[0]?.spec).toMatchObject({ model: 'planted' });
    expect(first.providers[0]?.spec).toMatchObject({ model: 'm' });
    // An edited spec has another key: parsed (and checked) again.
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('model: m', 'model: n'));
    const third = await loadClaw(manifest, { specParses: parses });
    expect(third.providers[0]?.spec).toMatchObject({ model: 'n' });
  });

  it('never keeps a spec with problems, nor one JSON would not give back unchanged', async () => {
    const manifest = path.join(dir, 'claw.yaml');
    await writeFile(
      manifest,
      [
        'claw: "0.2.0"',
        'kind: Claw',
        'metadata: { name: broken }',
        'spec:',
        '  identity: { inline: { personality: "Terse.", mood: 3 } }',
        '',
      ].join('\n'),
    );
    const parses = memory();
    await expect(loadClaw(manifest, { specParses: parses })).rejects.toThrow(/mood/);
    expect(parses.entries.size).toBe(0);
    keepSpec(parses, 'a', { fine: true, gone: undefined });
    keepSpec(parses, 'b', { count: Number.NaN });
    keepSpec(parses, 'c', { fine: true, list: [1, 'two'] });
    expect([...parses.entries.keys()]).toEqual(['c']);
  });

  it('keys by kind, content and schema revision', () => {
    const spec = { personality: 'Terse.' };
    expect(specKey('Identity', spec)).toBe(specKey('Identity', { personality: 'Terse.' }));
    expect(specKey('Identity', spec)).not.toBe(specKey('Skill', spec));
    expect(specKey('Identity', spec)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('has a revision for exactly what the spec schemas accept and output', () => {
    // Each revision's fingerprint of the schemas (as JSON Schema, input and output). A failure
    // here means a spec schema changed: cached parses of the old one must not be served, so
    // bump SPEC_SCHEMA_REVISION and add the new fingerprint under it; never edit an old one.
    const FINGERPRINTS: Record<number, string> = {
      1: '9fe2ca3bf91352184e2eb4e7edb0cc382780dacfd48b2a7b201c51cc670d63db',
      2: '3d893d779666a44b7eecb7cb4c450d527a6f4bf908214058ef8d5ab709e4ec60',
    };
    const fingerprint = createHash('sha256')
      .update(
        JSON.stringify(
          Object.entries(SPEC_SCHEMAS).map(([kind, schema]) => [
            kind,
            z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }),
            z.toJSONSchema(schema, { unrepresentable: 'any', io: 'output' }),
          ]),
        ),
      )
      .digest('hex');
    expect(FINGERPRINTS[SPEC_SCHEMA_REVISION]).toBe(fingerprint);
    expect(new Set(Object.values(FINGERPRINTS)).size).toBe(Object.keys(FINGERPRINTS).length);
  });
});
