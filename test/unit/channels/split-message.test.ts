import { expect, it } from 'vitest';
import { splitMessage } from '../../../src/main/core/channels/split-message.js';

it('keeps a short message whole', () => {
  expect(splitMessage('hello')).toEqual(['hello']);
});

it('splits at line boundaries within the limit, losing no text', () => {
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`);
  const pieces = splitMessage(lines.join('\n'), 100);
  for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(100);
  expect(pieces.join('\n').split('\n')).toEqual(lines);
});

it('closes a code fence at a cut and reopens it, with its language, in the next piece', () => {
  const code = Array.from({ length: 30 }, (_, i) => `const v${i} = ${i};`).join('\n');
  const pieces = splitMessage(`Here:\n\`\`\`ts\n${code}\n\`\`\`\nDone.`, 200);
  expect(pieces.length).toBeGreaterThan(2);
  for (const piece of pieces) {
    expect(piece.length).toBeLessThanOrEqual(200);
    expect((piece.match(/```/g) ?? []).length % 2).toBe(0);
  }
  expect(pieces[1]?.startsWith('```ts\n')).toBe(true);
});

it('cuts a word longer than the limit', () => {
  const pieces = splitMessage('x'.repeat(250), 100);
  expect(pieces.join('')).toBe('x'.repeat(250));
});
