/** A conversation as a file: Markdown for people, JSON (the history as the app sees it) for tools. */
import type { ChatBlock, SessionHistory } from '../../../shared/ipc-schemas.js';

export interface ExportedFile {
  fileName: string;
  mediaType: string;
  content: string;
}

export function exportConversation(
  history: SessionHistory,
  format: 'markdown' | 'json',
): ExportedFile {
  const base = fileBase(history.session.title);
  if (format === 'json') {
    return {
      fileName: `${base}.json`,
      mediaType: 'application/json',
      content: `${JSON.stringify({ format: 'pincer.conversation/1', ...history }, null, 2)}\n`,
    };
  }
  const parts = [`# ${history.session.title}`, '', `_Exported from Pincer, ${history.session.id}_`];
  for (const message of history.messages) {
    const body = message.blocks.map(blockMarkdown).filter(Boolean).join('\n\n');
    if (!body) continue;
    parts.push(
      '',
      `## ${message.role === 'user' ? 'You' : 'Pincer'} · ${message.createdAt}`,
      '',
      body,
    );
  }
  return { fileName: `${base}.md`, mediaType: 'text/markdown', content: `${parts.join('\n')}\n` };
}

function blockMarkdown(block: ChatBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return `Tool call \`${block.name}\`:\n\n${fence(JSON.stringify(block.input, null, 2), 'json')}`;
    case 'tool_result':
      return `Tool result${block.isError ? ' (error)' : ''}:\n\n${fence(block.content, '')}`;
    case 'image':
      return `_[image: ${block.mediaType}]_`;
    case 'reasoning':
      return '';
  }
}

/** A fence longer than any run of backticks inside, so the content cannot close it. */
function fence(text: string, lang: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

function fileBase(title: string): string {
  const safe = title
    .replace(/[^\p{L}\p{N} _-]+/gu, ' ')
    .trim()
    .replace(/\s+/g, '-')
    .slice(0, 60);
  return safe || 'conversation';
}
