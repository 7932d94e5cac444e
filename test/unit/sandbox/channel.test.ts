import { describe, expect, it } from 'vitest';
import {
  encodeLine,
  LineSplitter,
  LineTooLongError,
} from '../../../src/main/core/sandbox/channel.js';
import { parseFromWorker } from '../../../src/main/core/sandbox/from-worker.js';

describe('LineSplitter', () => {
  it('joins lines split across chunks, multi-byte characters included', () => {
    const splitter = new LineSplitter(1024);
    const bytes = Buffer.from(`${encodeLine({ a: 'é🙂' })}${encodeLine({ b: 'x\ny' })}`);
    const lines: string[] = [];
    // One byte at a time: every boundary, including inside a UTF-8 sequence, is crossed.
    for (const byte of bytes) lines.push(...splitter.push(Buffer.from([byte])));
    expect(lines.map((line) => JSON.parse(line))).toEqual([{ a: 'é🙂' }, { b: 'x\ny' }]);
  });

  it('returns every line a chunk completes and keeps the rest', () => {
    const splitter = new LineSplitter(1024);
    expect(splitter.push(Buffer.from('one\ntwo\nthr'))).toEqual(['one', 'two']);
    expect(splitter.push(Buffer.from('ee\n'))).toEqual(['three']);
  });

  it('throws as soon as an unfinished line passes the bound, before its newline comes', () => {
    const splitter = new LineSplitter(10);
    expect(splitter.push(Buffer.from('12345'))).toEqual([]);
    expect(() => splitter.push(Buffer.from('678901'))).toThrow(LineTooLongError);
  });

  it('throws for a line over the bound that arrives whole, and accepts one at the bound', () => {
    expect(() => new LineSplitter(10).push(Buffer.from('12345678901\n'))).toThrow(
      /longer than 10 bytes/,
    );
    expect(new LineSplitter(10).push(Buffer.from('1234567890\n'))).toEqual(['1234567890']);
  });
});

describe('parseFromWorker', () => {
  it('accepts the shapes the worker sends', () => {
    for (const message of [
      { type: 'ready', tools: ['fs/read'] },
      { type: 'result', id: 3, output: { content: 'ok' } },
      { type: 'result', id: 3, output: { content: 'no', isError: true, code: -32014 } },
      { type: 'failed', id: 4, message: 'boom', toolError: false, code: -32010 },
    ])
      expect(parseFromWorker(JSON.stringify(message))).toEqual({ message });
  });

  it('names what is wrong with anything else, without throwing', () => {
    const problems = [
      '',
      'garbage',
      '{"type":"result"',
      'null',
      '42',
      '"ready"',
      '{"type":"ready","tools":"fs/read"}',
      '{"type":"result","id":1,"output":{"content":{"forged":true}}}',
      '{"type":"result","id":-1,"output":{"content":"x"}}',
      '{"type":"result","id":1.5,"output":{"content":"x"}}',
      '{"type":"result","id":1,"output":{"content":"x"},"extra":1}',
      '{"type":"failed","id":1,"message":"x"}',
      '{"type":"run","id":1}',
      '{"__proto__":{"type":"ready"}}',
    ].map((line) => parseFromWorker(line));
    for (const parsed of problems) expect(parsed).toEqual({ problem: expect.any(String) });
    expect(problems[1]).toEqual({ problem: expect.stringContaining('not JSON') });
    expect(problems[7]).toEqual({ problem: expect.stringContaining('wrong shape') });
  });
});
