import { describe, expect, it } from 'vitest';
import { toLocalMessages } from '../../../src/main/core/local/provider.js';

describe('content blocks to local messages', () => {
  it('maps text, tool_use and tool_result blocks in order', () => {
    expect(
      toLocalMessages([
        { role: 'user', content: [{ type: 'text', text: 'read it' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading.' },
            { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: 'hello' }] },
      ]),
    ).toEqual([
      { role: 'user', text: 'read it' },
      {
        role: 'assistant',
        text: 'Reading.',
        toolCalls: [{ id: 't1', name: 'read_file', arguments: { path: 'a' } }],
      },
      { role: 'tool', toolCallId: 't1', name: 'read_file', result: 'hello' },
    ]);
  });

  it('refuses images with a typed error', () => {
    expect(() =>
      toLocalMessages([
        { role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: '' }] },
      ]),
    ).toThrow(/does not read images/);
  });
});
