/**
 * The cache of tool schemas already found valid: keyed by content, only valid verdicts kept,
 * a bad file costs only the check, and the active manifest's tools fill it on first load.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachePath, HashCache } from '../../../src/main/core/ckp/cache-file.js';
import { loadActiveClaw, SCHEMA_VERDICTS } from '../../../src/main/core/ckp/default-manifest.js';
import {
  checkJsonSchema,
  loadSchemaValidator,
  needsValidator,
  schemaKey,
} from '../../../src/main/core/ckp/json-schema-check.js';
import { RESOURCES } from './fixtures.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-verdicts-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const valid = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
const invalid = { type: 'object', properties: { path: { type: 7 } } };

describe('schema verdicts', () => {
  it('loads the validator only for a schema the verdicts do not vouch for', () => {
    // Runs first, before any test of this file loads the validator.
    const known = new Set([schemaKey(valid)]);
    expect(needsValidator(valid, known)).toBe(false);
    expect(checkJsonSchema(valid, known)).toBeUndefined();
    expect(needsValidator(invalid, known)).toBe(true);
    expect(needsValidator('not an object', known)).toBe(false);
    expect(() => checkJsonSchema(invalid, known)).toThrow(/loadSchemaValidator/);
  });

  it('keeps a valid schema by its content and never an invalid one', async () => {
    await loadSchemaValidator();
    const seen = new Set<string>();
    expect(checkJsonSchema(valid, seen)).toBeUndefined();
    expect([...seen]).toEqual([schemaKey(valid)]);
    expect(checkJsonSchema(invalid, seen)).toMatch(/is not a valid JSON Schema/);
    expect(seen.has(schemaKey(invalid))).toBe(false);
    // The same content in another key order is another key: checked again, then kept too.
    const { required, ...rest } = valid;
    expect(schemaKey({ required, ...rest })).not.toBe(schemaKey(valid));
  });

  it('skips the check for a schema already known (what saves the start-up cost)', async () => {
    await loadSchemaValidator();
    // A known key is trusted without compiling: shown with a schema that would fail the check.
    const trusted = new Set([schemaKey(invalid)]);
    expect(checkJsonSchema(invalid, trusted)).toBeUndefined();
    expect(checkJsonSchema(invalid)).toMatch(/is not a valid JSON Schema/);
  });

  it('reads back what it saved, writes nothing when nothing was added, and survives a bad file', async () => {
    const file = path.join(dir, 'cache', 'verdicts.json');
    const open = () => HashCache.open(file, { max: 8, valid: (v): v is true => v === true });
    const first = await open();
    await first.save();
    await expect(stat(file)).rejects.toThrow(); // nothing added, nothing written
    first.set(schemaKey(valid), true);
    await first.save();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await open()).has(schemaKey(valid))).toBe(true);

    await writeFile(file, '{ not json');
    expect((await open()).has(schemaKey(valid))).toBe(false);
    await writeFile(
      file,
      JSON.stringify({
        '../../etc/passwd': true,
        [schemaKey(invalid)]: 42,
        [schemaKey(valid)]: true,
      }),
    );
    const read = await open();
    expect(read.has(schemaKey(valid))).toBe(true);
    expect(read.has('../../etc/passwd')).toBe(false);
    expect(read.has(schemaKey(invalid))).toBe(false);
  });

  it('keeps the most recently used entries past its bound', async () => {
    const file = path.join(dir, 'cache', 'bounded.json');
    const open = () => HashCache.open(file, { max: 2, valid: (v): v is true => v === true });
    const cache = await open();
    const keys = [1, 2, 3].map((n) => schemaKey({ type: 'string', maxLength: n }));
    for (const key of keys) cache.set(key, true);
    cache.get(keys[0] as string); // used again: survives the trim
    await cache.save();
    const read = await open();
    expect(keys.map((key) => read.has(key))).toEqual([true, false, true]);
  });

  it('is filled by the first load of the active manifest and unchanged by the next', async () => {
    const places = { dataDir: dir, resourcesDir: RESOURCES };
    const first = await loadActiveClaw(places);
    const withSchemas = first.claw.tools.filter((tool) => tool.spec.input_schema !== undefined);
    expect(withSchemas.length).toBeGreaterThan(0);
    const file = cachePath(dir, SCHEMA_VERDICTS);
    const saved = Object.keys(JSON.parse(await readFile(file, 'utf8')));
    expect(new Set(saved)).toEqual(
      new Set(withSchemas.map((tool) => schemaKey(tool.spec.input_schema))),
    );
    const before = (await stat(file)).mtimeMs;
    const second = await loadActiveClaw(places);
    expect(second.claw.tools.map((tool) => tool.spec)).toEqual(
      first.claw.tools.map((tool) => tool.spec),
    );
    expect((await stat(file)).mtimeMs).toBe(before);
  });
});
