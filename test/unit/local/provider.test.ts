import { describe, expect, it } from 'vitest';
import type { LocalEngine } from '../../../src/main/core/local/engine.js';
import { LocalModelProvider, toLocalMessages } from '../../../src/main/core/local/provider.js';
import type { GenerateRequest } from '../../../src/main/core/local/types.js';
import type { ModelRequest } from '../../../src/main/core/models/index.js';

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

describe('the local provider', () => {
  /** An engine that answers at once and keeps what it was asked. */
  function recordingEngine() {
    const asked: Array<{ conversation: string; request: GenerateRequest }> = [];
    const engine: Pick<LocalEngine, 'generate'> = {
      generate: async (conversation, request) => {
        asked.push({ conversation, request });
        return {
          text: 'ok',
          toolCalls: [],
          stopReason: 'end',
          usage: { inputTokens: 1, evaluatedInputTokens: 1, outputTokens: 1 },
        };
      },
    };
    return { asked, engine };
  }
  const drain = async (events: AsyncIterable<unknown>) => {
    for await (const _ of events);
  };
  const hello: ModelRequest = {
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  };

  it('reads only its own provider options', async () => {
    const { asked, engine } = recordingEngine();
    const provider = new LocalModelProvider(engine);
    await drain(
      provider.stream('m', {
        ...hello,
        providerOptions: {
          local: { conversationId: 'session-1', gbnf: 'root ::= "ok"' },
          responses: { previousResponseId: 'resp_1' },
        },
      }),
    );
    // Another kind's options alone: the engine's defaults.
    await drain(
      provider.stream('m', {
        ...hello,
        providerOptions: { responses: { previousResponseId: 'r' } },
      }),
    );
    expect(asked.map((a) => [a.conversation, a.request.gbnf])).toEqual([
      ['session-1', 'root ::= "ok"'],
      ['default', undefined],
    ]);
    expect(JSON.stringify(asked)).not.toContain('resp_');
  });

  it('narrows the canonical tool schemas for its grammar, with its bounds', async () => {
    const { asked, engine } = recordingEngine();
    const provider = new LocalModelProvider(engine, { grammar: { maxString: 4 } });
    const parameters = {
      type: 'object',
      properties: {
        path: { type: 'string' },
        limit: { type: 'integer', minimum: 1, maximum: 3 },
      },
      required: ['path', 'limit'],
      additionalProperties: false,
    };
    await drain(
      provider.stream('m', {
        ...hello,
        tools: [{ name: 'fs/read', description: 'Read', parameters }],
      }),
    );
    expect(asked[0]?.request.tools).toEqual([
      {
        name: 'fs__read',
        description: 'Read',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string', maxLength: 4 }, limit: { enum: [1, 2, 3] } },
          additionalProperties: false,
        },
      },
    ]);
  });
});
