/**
 * Splits a document into chunks for retrieval: one chunk per Markdown section (a heading and
 * the text up to the next heading, headings inside code fences ignored), and a window of lines
 * where a section, or a document without headings, is too long to embed or to show as a hit.
 */

export interface Chunk {
  /** The section's heading path, e.g. `Setup > Linux`; empty before the first heading. */
  heading: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  text: string;
}

export interface ChunkOptions {
  /** Longest chunk in characters; longer sections are cut into windows of whole lines. */
  maxChars?: number;
  /** Lines repeated at the start of the next window, so a sentence cut at a border is found. */
  overlapLines?: number;
}

export const DEFAULT_MAX_CHUNK_CHARS = 1200;

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)/;

export function chunkMarkdown(text: string, options: ChunkOptions = {}): Chunk[] {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHUNK_CHARS;
  const overlap = options.overlapLines ?? 1;
  const lines = text.split(/\r?\n/);
  const sections: Array<{ heading: string; start: number; end: number }> = [];
  const trail: string[] = [];
  let inFence = false;
  let current = { heading: '', start: 0, end: -1 };
  lines.forEach((line, index) => {
    if (FENCE.test(line)) inFence = !inFence;
    const match = inFence ? null : HEADING.exec(line);
    if (match) {
      if (current.end >= current.start) sections.push(current);
      const level = (match[1] ?? '#').length;
      trail.length = level - 1;
      trail[level - 1] = (match[2] ?? '').trim();
      current = { heading: trail.filter(Boolean).join(' > '), start: index, end: index };
    } else {
      current.end = index;
    }
  });
  if (current.end >= current.start) sections.push(current);

  const chunks: Chunk[] = [];
  for (const section of sections) {
    for (const window of windows(lines, section.start, section.end, maxChars, overlap)) {
      // Blank lines before the next heading belong to no one: the range ends at the last text.
      while (window.end > window.start && (lines[window.end] ?? '').trim() === '') window.end -= 1;
      const body = lines.slice(window.start, window.end + 1).join('\n');
      if (body.trim() === '') continue;
      chunks.push({
        heading: section.heading,
        startLine: window.start + 1,
        endLine: window.end + 1,
        text: body,
      });
    }
  }
  return chunks;
}

/** Line windows of at most maxChars (a single longer line is cut by characters elsewhere). */
function windows(
  lines: readonly string[],
  start: number,
  end: number,
  maxChars: number,
  overlap: number,
): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  let from = start;
  while (from <= end) {
    let size = 0;
    let to = from;
    while (to <= end) {
      const add = (lines[to] ?? '').length + 1;
      if (size + add > maxChars && to > from) break;
      size += add;
      to += 1;
    }
    out.push({ start: from, end: to - 1 });
    if (to > end) break;
    // Step back by the overlap, but always move forward.
    from = Math.max(from + 1, to - overlap);
  }
  return out;
}

/** A chunk's text cut to maxChars (a minified line can be longer than any window). */
export function clip(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : text.slice(0, maxChars);
}
