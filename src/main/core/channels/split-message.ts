/**
 * Splits a reply into pieces a platform takes (Telegram: 4096 characters), at paragraph, line
 * or word boundaries where it can, and never leaving a code fence open across pieces: a piece
 * that ends inside one closes it, and the next piece reopens it.
 */
export const TELEGRAM_MESSAGE_LIMIT = 4096;
const FENCE = '```';

export function splitMessage(text: string, limit = TELEGRAM_MESSAGE_LIMIT): string[] {
  const pieces: string[] = [];
  let rest = text;
  let reopen = '';
  while (rest.length > 0) {
    const room = limit - reopen.length - (FENCE.length + 1);
    let piece = rest;
    if (reopen.length + rest.length > limit) {
      const window = rest.slice(0, room);
      const cut = Math.max(
        window.lastIndexOf('\n\n'),
        window.lastIndexOf('\n'),
        window.lastIndexOf(' '),
      );
      piece = rest.slice(0, cut > room / 2 ? cut : room);
    }
    rest = rest.slice(piece.length).replace(/^\n+/, '');
    let out = reopen + piece;
    const fences = (out.match(/```/g) ?? []).length;
    if (fences % 2 === 1 && rest.length > 0) {
      // Inside a fence: close it here, reopen it (with its language) in the next piece.
      const opening = out.slice(out.lastIndexOf(FENCE)).split('\n')[0] ?? FENCE;
      out = `${out.replace(/\n?$/, '\n')}${FENCE}`;
      reopen = `${opening}\n`;
    } else {
      reopen = '';
    }
    pieces.push(out);
  }
  return pieces;
}
