import { describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../../../src/main/core/memory/chunker.js';
import { ftsQuery } from '../../../src/main/core/memory/keyword-search.js';
import { fuse } from '../../../src/main/core/memory/rank-fusion.js';

describe('chunkMarkdown', () => {
  it('cuts at headings, keeps the heading path and 1-based line ranges', () => {
    const text = [
      'intro line',
      '# Setup',
      'install it',
      '## Linux',
      'apt-get install pincer',
      '```sh',
      '# not a heading inside a fence',
      '```',
      '# Usage',
      'run it',
    ].join('\n');
    const chunks = chunkMarkdown(text);
    expect(chunks.map((c) => [c.heading, c.startLine, c.endLine])).toEqual([
      ['', 1, 1],
      ['Setup', 2, 3],
      ['Setup > Linux', 4, 8],
      ['Usage', 9, 10],
    ]);
    expect(chunks[2]?.text).toContain('# not a heading inside a fence');
  });

  it('falls back to line windows when a section is too long, overlapping by a line', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1} ${'x'.repeat(20)}`);
    const chunks = chunkMarkdown(lines.join('\n'), { maxChars: 200, overlapLines: 1 });
    expect(chunks.length).toBeGreaterThan(4);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(200);
    expect(chunks[0]?.startLine).toBe(1);
    expect(chunks.at(-1)?.endLine).toBe(40);
    // Each window starts on the last line of the one before it.
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i]?.startLine).toBe(chunks[i - 1]?.endLine ?? 0);
    }
  });

  it('skips empty sections', () => {
    expect(chunkMarkdown('\n\n\n')).toEqual([]);
    expect(chunkMarkdown('# A\n\n# B\nbody').map((c) => c.heading)).toEqual(['A', 'B']);
  });
});

describe('hybrid helpers', () => {
  it('quotes every word so FTS5 syntax in a query cannot break it', () => {
    expect(ftsQuery('Where is "the" NEAR(cat)?')).toBe(
      '"where" OR "is" OR "the" OR "near" OR "cat"',
    );
    expect(ftsQuery('?!')).toBeUndefined();
    const common = (term: string) => term === 'the' || term === 'is';
    expect(ftsQuery('where is the cat', common)).toBe('"where" OR "cat"');
    // Nothing but common words: they are kept rather than searching for nothing.
    expect(ftsQuery('the is', common)).toBe('"the" OR "is"');
  });

  it('reciprocal rank fusion favours what both lists found', () => {
    const fused = fuse([
      [1, 2, 3],
      [3, 4, 1],
    ]);
    const order = [...fused.entries()].sort((a, b) => b[1].score - a[1].score).map(([id]) => id);
    expect(order.slice(0, 2)).toEqual([1, 3]);
    expect(fused.get(1)?.ranks).toEqual([1, 3]);
    expect(fused.get(4)?.ranks[0]).toBeUndefined();
  });
});
