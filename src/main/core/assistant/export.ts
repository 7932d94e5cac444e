/** A conversation as a file: Markdown for people, JSON (the history as the app sees it) for tools. */
import { base64Size } from '../../../shared/images.js';
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
      content: `${JSON.stringify({ format: 'pincer.conversation/1', ...withoutImageBytes(history) }, null, 2)}\n`,
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
      return imagePlaceholder(block);
    case 'reasoning':
      return '';
  }
}

/** An image is exported as a line naming it, never as its bytes. */
function imagePlaceholder(block: Extract<ChatBlock, { type: 'image' }>): string {
  const size = block.data === undefined ? '' : `, ${kib(base64Size(block.data))}`;
  return `_[image: ${block.mediaType}${size}]_`;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** The history with each image's bytes left out (JSON export): its type and size stay. */
function withoutImageBytes(history: SessionHistory): SessionHistory {
  return {
    ...history,
    messages: history.messages.map((message) => ({
      ...message,
      blocks: message.blocks.map((block) =>
        block.type === 'image' ? { type: 'image', mediaType: block.mediaType } : block,
      ),
    })),
  };
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
