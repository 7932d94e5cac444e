import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  grammarSchema,
  grammarToolDefs,
  sampleRange,
} from '../../../src/main/core/local/grammar.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';

type Schema = Record<string, unknown>;
const addFormats =
  (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule;

/** Seeded PRNG, so a failure names a reproducible instance. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random instance of what the grammar admits (node-llama-cpp emits every property). */
function sample(schema: Schema, r: () => number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return pick(schema.enum);
  if (Array.isArray(schema.oneOf)) return sample(pick(schema.oneOf as Schema[]), r);
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([k, v]) => [
          k,
          sample(v, r),
        ]),
      );
    case 'array': {
      const min = (schema.minItems as number | undefined) ?? 0;
      const max = (schema.maxItems as number | undefined) ?? min + 4;
      const n = min + Math.floor(r() * (max - min + 1));
      return Array.from({ length: n }, () =>
        sample((schema.items ?? { type: 'null' }) as Schema, r),
      );
    }
    case 'string': {
      const min = (schema.minLength as number | undefined) ?? 0;
      const max = (schema.maxLength as number | undefined) ?? min + 6;
      const n = min + Math.floor(r() * (max - min + 1));
      return Array.from({ length: n }, () => pick([...'ab/.-~ é"\\'])).join('');
    }
    case 'integer':
      return Math.floor((r() - 0.5) * 2e6);
    case 'number':
      return (r() - 0.5) * 2e6;
    case 'boolean':
      return r() < 0.5;
    default:
      return null;
  }
}

describe('grammarSchema', () => {
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);

  it('admits only valid arguments for every exactly narrowed built-in (5,000 sampled instances)', () => {
    const r = rng(5);
    const exact = BUILTIN_TOOLS.filter((tool) => grammarSchema(tool.inputSchema).exact);
    expect(exact.map((t) => t.name).sort()).toEqual(
      [
        'fs/edit',
        'fs/list',
        'fs/read',
        'fs/search',
        'fs/write',
        'memory/search',
        'sys/exec',
      ].sort(),
    );
    for (const tool of exact) {
      const { schema } = grammarSchema(tool.inputSchema, { maxString: 5, maxArrayItems: 3 });
      const validate = ajv.compile(tool.inputSchema);
      for (let i = 0; i < 5000 / exact.length; i++) {
        const instance = sample(schema, r);
        expect(validate(instance), `${tool.name} ${JSON.stringify(instance)}`).toBe(true);
      }
    }
  });

  it('turns ranges into enums and lets optional properties be left out', () => {
    const fsRead = BUILTIN_TOOLS.find((t) => t.name === 'fs/read');
    const { schema, exact, notes } = grammarSchema(fsRead?.inputSchema ?? {}, { maxEnum: 8 });
    expect(exact).toBe(true);
    expect(notes).toEqual([]);
    const [minimal, all] = (schema.oneOf ?? []) as Schema[];
    expect(Object.keys(minimal?.properties as Schema)).toEqual(['path']);
    expect(all?.properties).toMatchObject({
      offset: { enum: [1, 2, 3, 4, 10, 20, 50, 100] },
      limit: { enum: [1, 2, 3, 4, 10, 20, 50, 10000] },
    });
    expect(all?.additionalProperties).toBe(false);
  });

  it('reports what it cannot express, and leaves out optional properties it cannot make exact', () => {
    const out = grammarSchema({
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri' },
        tag: { type: 'string', pattern: '^[a-z]+$' },
        when: { type: 'string', format: 'date' },
        either: { anyOf: [{ type: 'integer', minimum: 0, maximum: 2 }, { type: 'null' }] },
        kinds: { type: ['string', 'null'], maxLength: 3 },
        mixed: { enum: ['a', 1, { x: 1 }], type: 'string' },
        anything: {},
        clever: { allOf: [{ type: 'string' }] },
      },
      required: ['url', 'anything', 'mixed'],
    });
    expect(out.exact).toBe(false);
    expect(out.notes).toEqual(
      expect.arrayContaining([
        '/url: format uri',
        '/tag: left out',
        '/when: format date (days per month unchecked)',
        '/clever: left out',
        '/anything: any value, offered as a scalar',
      ]),
    );
    const all = (out.schema.oneOf as Schema[])[1]?.properties as Schema;
    expect(all.url).toEqual({ type: 'string' });
    expect(all.tag).toBeUndefined();
    expect(all.either).toEqual({ oneOf: [{ enum: [0, 1, 2] }, { type: 'null' }] });
    expect(all.kinds).toEqual({ oneOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] });
    expect(all.mixed).toEqual({ enum: ['a'] });
  });

  it('bounds strings and arrays for weak models without loosening the original bounds', () => {
    const { schema } = grammarSchema(
      {
        type: 'object',
        properties: {
          s: { type: 'string', minLength: 12, maxLength: 20 },
          t: { type: 'string', maxLength: 2 },
          a: { type: 'array', items: { type: 'boolean' }, minItems: 1 },
        },
        required: ['s', 't', 'a'],
      },
      { maxString: 8, maxArrayItems: 2 },
    );
    expect(schema.properties).toEqual({
      s: { type: 'string', minLength: 12, maxLength: 12 },
      t: { type: 'string', maxLength: 2 },
      a: { type: 'array', items: { type: 'boolean' }, minItems: 1, maxItems: 2 },
    });
  });

  it('samples ranges: all of a small one, a ladder of a large one, never outside', () => {
    expect(sampleRange(3, 5, 8)).toEqual([3, 4, 5]);
    expect(sampleRange(5, 3, 8)).toEqual([]);
    expect(sampleRange(100, 600_000, 12)).toEqual([
      100, 101, 102, 103, 104, 105, 200, 500, 1000, 2000, 5000, 600_000,
    ]);
    expect(sampleRange(1, undefined, 6)).toEqual([1, 2, 3, 10, 20, 50]);
  });

  it('gives the local model wire names and narrowed parameters for the allowed tools only', () => {
    const defs = grammarToolDefs(registry.modelTools(['fs/read', 'net/*']), { maxString: 4 });
    expect(defs.map((d) => d.name)).toEqual(['fs/read', 'net/fetch']);
    expect(JSON.stringify(defs)).not.toContain('minimum');
  });
});
