import { describe, expect, it } from 'vitest';
import { isModelError } from '../../../src/main/core/models/errors.js';
import {
  describeNotice,
  fitRequestToContext,
  type PromptMeasure,
  smallContextNote,
} from '../../../src/main/core/models/fit-request-to-context.js';
import type { Message, ToolDef } from '../../../src/shared/messages.js';
import { userText } from '../../../src/shared/messages.js';

/** One token per character: the arithmetic of each case is visible in the test. */
const chars: PromptMeasure = {
  prefix: (system, tools) =>
    (system?.length ?? 0) + tools.reduce((n, tool) => n + (tool.description?.length ?? 0), 0),
  message: (message) =>
    message.content.reduce((n, block) => n + (block.type === 'text' ? block.text.length : 10), 0),
};

const tool = (name: string, size: number): ToolDef => ({
  name,
  description: 'd'.repeat(size),
  parameters: { type: 'object', properties: {} },
});

const assistant = (text: string): Message => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});

// Each older turn is 100 + 100 tokens; the newest is 50.
const history: Message[] = [
  userText('a'.repeat(100)),
  assistant('b'.repeat(100)),
  userText('c'.repeat(100)),
  assistant('d'.repeat(100)),
  userText('e'.repeat(50)),
];
const system = 's'.repeat(100);
const tools = [tool('fs/read', 200), tool('fs/write', 200), tool('net/fetch', 200)];

describe('fitRequestToContext', () => {
  it('leaves a request that fits as it is', async () => {
    const request = { system, messages: history, tools, maxTokens: 100 };
    const fitted = await fitRequestToContext(request, { tokens: 2000, measure: chars });
    expect(fitted.request).toBe(request);
    expect(fitted.notice).toBeUndefined();
    expect(fitted.promptTokens).toBe(100 + 600 + 450);
  });

  it('drops older turns, oldest first, before any tool', async () => {
    // 100 system + 600 tools + 50 newest = 750; room 1000 - 50 reply = 950: one older turn fits.
    const fitted = await fitRequestToContext(
      { system, messages: history, tools, maxTokens: 50 },
      { tokens: 1000, measure: chars },
    );
    expect(fitted.request.system).toBe(system);
    expect(fitted.request.tools).toEqual(tools);
    expect(fitted.request.messages).toEqual(history.slice(2));
    expect(fitted.notice).toEqual({
      context_tokens: 1000,
      tools_left_out: [],
      messages_left_out: 2,
    });
  });

  it('leaves out tools from the end of the list when the definitions do not fit, keeping the system text', async () => {
    // room 600 - 50 = 550: 100 system + 50 newest leaves 400, two tools.
    const fitted = await fitRequestToContext(
      { system, messages: history, tools, maxTokens: 50, toolChoice: 'required' as const },
      { tokens: 600, measure: chars },
    );
    expect(fitted.request.system).toBe(system);
    expect(fitted.request.messages).toEqual(history.slice(4));
    expect(fitted.request.tools?.map((t) => t.name)).toEqual(['fs/read', 'fs/write']);
    expect(fitted.request.toolChoice).toBe('required');
    expect(fitted.notice?.tools_left_out).toEqual(['net/fetch']);
    expect(
      describeNotice(
        fitted.notice ?? { context_tokens: 0, tools_left_out: [], messages_left_out: 0 },
      ),
    ).toBe(
      "1 tool left out (net/fetch); 4 older messages not shown to the model: the model's context (600 tokens) is too small for more.",
    );
  });

  it('keeps a tool call with its result: turns start at a message the person wrote', async () => {
    const call: Message = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'c1', name: 'fs/read', input: {} }],
    };
    const result: Message = {
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'c1', content: 'x' }],
    };
    const messages = [userText('a'.repeat(300)), userText('q'), call, result];
    const fitted = await fitRequestToContext(
      { messages, maxTokens: 10 },
      { tokens: 100, measure: chars },
    );
    expect(fitted.request.messages).toEqual([userText('q'), call, result]);
  });

  it('without tools to call, the request no longer requires one', async () => {
    const fitted = await fitRequestToContext(
      { system, messages: [userText('hi')], tools, toolChoice: 'required' as const, maxTokens: 10 },
      { tokens: 150, measure: chars },
    );
    expect(fitted.request.tools).toEqual([]);
    expect(fitted.request.toolChoice).toBeUndefined();
    expect(fitted.notice?.tools_left_out).toEqual(['fs/read', 'fs/write', 'net/fetch']);
  });

  it('a request that cannot fit even bare fails in tokens, naming the way out', async () => {
    const failure = await fitRequestToContext(
      { system: 's'.repeat(500), messages: [userText('hi')], tools, maxTokens: 100 },
      { tokens: 512, measure: chars },
    ).catch((error: unknown) => error);
    expect(isModelError(failure)).toBe(true);
    expect((failure as Error).message).toBe(
      "This model's context holds 512 tokens: the instructions and the newest message take 502 " +
        'even without tools or older turns, leaving no room for a reply of 100. Shorten the ' +
        'message or the instructions, or choose a model (or context size) with more room.',
    );
  });

  it('reserves a quarter of a small window for the reply when no maxTokens is set', async () => {
    // 2048 - 512 = 1536 of room: 1500 fits, 1600 does not.
    const fits = await fitRequestToContext(
      { messages: [userText('x'.repeat(1500))] },
      { tokens: 2048, measure: chars },
    );
    expect(fits.notice).toBeUndefined();
    await expect(
      fitRequestToContext(
        { messages: [userText('x'.repeat(1600))] },
        { tokens: 2048, measure: chars },
      ),
    ).rejects.toThrow(/reply of 512/);
  });

  it('takes maxTokens as a ceiling: a larger one than the window keeps no more room than none', async () => {
    // A run asking for 4,000 tokens of reply on a 2,048-token model still answers; the reply
    // ends where the window does, and no history is given up for room it cannot have.
    const fitted = await fitRequestToContext(
      { messages: [userText('x'.repeat(1500))], maxTokens: 4000 },
      { tokens: 2048, measure: chars },
    );
    expect(fitted.notice).toBeUndefined();
    await expect(
      fitRequestToContext(
        { messages: [userText('x'.repeat(1600))], maxTokens: 4000 },
        { tokens: 2048, measure: chars },
      ),
    ).rejects.toThrow(/reply of 512/);
  });

  it('says what a small context means, and nothing for a large or unknown one', () => {
    expect(smallContextNote(2048)).toBe(
      'This model reads at most 2048 tokens at once, so Pincer will offer it fewer tools and it will remember less of a long chat.',
    );
    expect(smallContextNote(4096)).toBeUndefined();
    expect(smallContextNote(undefined)).toBeUndefined();
  });

  it('sends the request as it is when the window is unknown', async () => {
    const request = { messages: [userText('x'.repeat(100_000))] };
    expect((await fitRequestToContext(request, undefined)).request).toBe(request);
  });

  it('estimates about four characters a token without a measure of the model', async () => {
    const fitted = await fitRequestToContext(
      { messages: [userText('x'.repeat(4000)), userText('y'.repeat(400))], maxTokens: 100 },
      { tokens: 500 },
    );
    expect(fitted.request.messages).toEqual([userText('y'.repeat(400))]);
  });
});
