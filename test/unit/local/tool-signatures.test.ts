import { describe, expect, it } from 'vitest';
import { toolSignature } from '../../../src/main/core/local/tool-signatures.js';

describe('toolSignature', () => {
  it('merges the grammar’s object alternatives: a property in every one is required', () => {
    const params = {
      oneOf: [
        { type: 'object', properties: { path: { type: 'string' } } },
        {
          type: 'object',
          properties: {
            path: { type: 'string' },
            offset: { enum: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
            mode: { enum: ['text', 'lines'] },
            tags: { type: 'array', items: { type: 'string' } },
          },
        },
      ],
    };
    expect(toolSignature('fs_read', 'Read a file.\n Lines too.', params)).toBe(
      'fs_read({path: string, offset?: int, mode?: "text"|"lines", tags?: string[]}) - Read a file. Lines too.',
    );
  });

  it('writes a tool without arguments as an empty call', () => {
    expect(toolSignature('clock_now', 'The time.', { type: 'object', properties: {} })).toBe(
      'clock_now() - The time.',
    );
    expect(toolSignature('x', undefined, undefined)).toBe('x()');
  });

  it('keeps nested objects, maps and unions readable', () => {
    const params = {
      type: 'object',
      properties: {
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        body: { type: ['string', 'null'] },
        flag: { type: 'boolean' },
        count: { type: 'integer' },
      },
    };
    expect(toolSignature('net_post', '', params)).toBe(
      'net_post({headers: {[key: string]: string}, body: string|null, flag: bool, count: int})',
    );
  });
});
