/** The shared streaming parts: SSE framing and bounds, the assembler, Retry-After parsing. */
import { describe, expect, it } from 'vitest';
import {
  MAX_TOOL_ARGUMENT_BYTES,
  StreamAssembler,
} from '../../../src/main/core/models/assembler.js';
import { isModelError, ModelError } from '../../../src/main/core/models/errors.js';
import { retryAfter, vendorMessage } from '../../../src/main/core/models/http.js';
import { providerId } from '../../../src/main/core/models/ids.js';
import { type SseEvent, sseEvents } from '../../../src/main/core/models/sse.js';

const p = providerId('p');

async function* bytes(...parts: (string | Uint8Array)[]) {
  for (const part of parts) yield typeof part === 'string' ? new TextEncoder().encode(part) : part;
}

async function events(source: AsyncIterable<Uint8Array>, max?: number): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of sseEvents(source, p, max)) out.push(event);
  return out;
}

describe('sseEvents', () => {
  it('joins multi-line data, keeps event names, handles CRLF and a character split across chunks', async () => {
    const euro = new TextEncoder().encode('€'); // three bytes
    const got = await events(
      bytes(
        'event: a\r\ndata: one\r\ndata: two\r\n\r\n',
        'data: x',
        euro.subarray(0, 1),
        euro.subarray(1),
        'y\n\n',
      ),
    );
    expect(got).toEqual([
      { event: 'a', data: 'one\ntwo' },
      { event: undefined, data: 'x€y' },
    ]);
  });

  it('drops an event cut off before its blank line', async () => {
    expect(await events(bytes('data: whole\n\n', 'data: {"half'))).toEqual([
      { event: undefined, data: 'whole' },
    ]);
  });

  it('refuses an event larger than the bound instead of buffering it', async () => {
    const error = await events(bytes(`data: ${'x'.repeat(5000)}`, 'x'.repeat(5000)), 4096).catch(
      (e: unknown) => e,
    );
    expect(isModelError(error, 'bad_response')).toBe(true);
    expect(String(error)).toContain('exceeded 4096 bytes');
  });
});

describe('StreamAssembler', () => {
  it('keeps block order: reasoning, text, tool calls by slot', () => {
    const a = new StreamAssembler(p);
    a.reasoning('hm', 'sig');
    a.text('Hi ');
    a.toolStart(1, 'c1', 'x');
    a.text('there');
    a.toolArguments(1, '{"a":');
    a.toolArguments(1, '1}');
    const end = a.finish('tool_use');
    expect(end).toMatchObject({
      type: 'finish',
      message: {
        content: [
          { type: 'reasoning', text: 'hm', signature: 'sig' },
          { type: 'text', text: 'Hi ' },
          { type: 'tool_use', id: 'c1', name: 'x', input: { a: 1 } },
          { type: 'text', text: 'there' },
        ],
      },
    });
  });

  it('keeps a call whose arguments cannot be read, with the reason, for invalid_arguments', () => {
    const cases: Array<[string, RegExp]> = [
      ['[1, 2]', /not a JSON object/],
      ['{"path": "a', /not valid JSON/],
      [`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, /nested deeper than 64 levels/],
    ];
    for (const [text, problem] of cases) {
      const a = new StreamAssembler(p);
      a.toolStart(0, 'c1', 'fs_read');
      a.toolArguments(0, text);
      const end = a.finish('tool_use');
      const block = end.type === 'finish' ? end.message.content[0] : undefined;
      expect(block).toMatchObject({ type: 'tool_use', id: 'c1', name: 'fs_read', input: {} });
      expect(block?.type === 'tool_use' && block.invalidArguments).toMatch(problem);
    }
    const parsed = new StreamAssembler(p);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = { d: deep };
    parsed.toolComplete(0, 'c2', 'fs_read', deep);
    const end = parsed.finish('tool_use');
    expect(end.type === 'finish' && end.message.content[0]).toMatchObject({
      invalidArguments: expect.stringMatching(/nested deeper/),
    });
  });

  it('keeps complete parts but drops an unfinished tool call when the stream is lost', () => {
    const a = new StreamAssembler(p);
    a.text('so far');
    a.toolStart(0, 'c1', 'x');
    a.toolArguments(0, '{"a": "unfini');
    const lost = a.lost(new ModelError('truncated', 'cut', { provider: p }));
    expect(lost).toMatchObject({
      type: 'connection_lost',
      partial: { content: [{ type: 'text', text: 'so far' }] },
    });
  });

  it('stops buffering arguments beyond the bound, and refuses deltas for a call that never started', () => {
    const a = new StreamAssembler(p);
    expect(() => a.toolArguments(3, '{}')).toThrow(/before it started/);
    a.toolStart(0, 'c', 'x');
    a.toolArguments(0, 'x'.repeat(MAX_TOOL_ARGUMENT_BYTES + 1));
    a.toolArguments(0, 'more');
    const end = a.finish('tool_use');
    expect(end.type === 'finish' && end.message.content[0]).toMatchObject({
      input: {},
      invalidArguments: `the arguments are larger than ${MAX_TOOL_ARGUMENT_BYTES} bytes`,
    });
  });

  it('is not started by usage alone', () => {
    const a = new StreamAssembler(p);
    a.setUsage({ inputTokens: 5 });
    expect(a.started).toBe(false);
    a.text('x');
    expect(a.started).toBe(true);
  });
});

describe('HTTP helpers', () => {
  const h = (init: Record<string, string>) => new Headers(init);

  it('reads Retry-After as seconds, as an HTTP date, as retry-after-ms and from Gemini RetryInfo', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(retryAfter(h({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfter(h({ 'retry-after': 'Mon, 23 Nov 2026 10:00:05 GMT' }), '', now)).toBe(5000);
    expect(retryAfter(h({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfter(h({}), '{"error":{"details":[{"retryDelay":"1.5s"}]}}')).toBe(1500);
    expect(retryAfter(h({ 'retry-after': 'soon' }))).toBeUndefined();
  });

  it('finds the human message in each vendor error body', () => {
    expect(vendorMessage('{"error":{"message":"openai says"}}')).toBe('openai says');
    expect(vendorMessage('{"type":"error","error":{"type":"x","message":"anthropic says"}}')).toBe(
      'anthropic says',
    );
    expect(
      vendorMessage('{"error":{"code":400,"message":"gemini says","status":"INVALID_ARGUMENT"}}'),
    ).toBe('gemini says');
    expect(vendorMessage('  plain text  ')).toBe('plain text');
  });
});
