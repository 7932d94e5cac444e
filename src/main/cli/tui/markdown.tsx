/**
 * Markdown for the terminal: marked only tokenizes (as in the renderer); each token becomes an
 * Ink element here. Nothing is passed through as markup or escape codes: every piece of text goes
 * through `safe`, links show their address, images their alt text, raw HTML is shown as text.
 */
import { Box, Text } from 'ink';
import { marked, type Token, type Tokens } from 'marked';
import { memo, type ReactNode } from 'react';
import { safe } from './safe-text.js';

function inline(tokens: Token[] | undefined, key = 'i'): ReactNode[] {
  return (tokens ?? []).map((token, index) => {
    const k = `${key}.${index}`;
    switch (token.type) {
      case 'strong':
        return (
          <Text key={k} bold>
            {inline((token as Tokens.Strong).tokens, k)}
          </Text>
        );
      case 'em':
        return (
          <Text key={k} italic>
            {inline((token as Tokens.Em).tokens, k)}
          </Text>
        );
      case 'del':
        return (
          <Text key={k} strikethrough>
            {inline((token as Tokens.Del).tokens, k)}
          </Text>
        );
      case 'codespan':
        return (
          <Text key={k} color="yellow">
            {safe((token as Tokens.Codespan).text)}
          </Text>
        );
      case 'link': {
        const link = token as Tokens.Link;
        return (
          <Text key={k}>
            <Text underline color="cyan">
              {inline(link.tokens, k)}
            </Text>
            {link.text === link.href ? '' : <Text dimColor> ({safe(link.href)})</Text>}
          </Text>
        );
      }
      case 'image':
        return (
          <Text key={k} dimColor>
            [image: {safe((token as Tokens.Image).text || 'no description')}]
          </Text>
        );
      case 'br':
        return '\n';
      case 'text': {
        const text = token as Tokens.Text;
        return text.tokens ? (
          <Text key={k}>{inline(text.tokens, k)}</Text>
        ) : (
          <Text key={k}>{safe(text.text)}</Text>
        );
      }
      default:
        // escape, html and anything newer: its source text, shown as text.
        return <Text key={k}>{safe('text' in token ? String(token.text) : token.raw)}</Text>;
    }
  });
}

function ListBlock({ list, depth }: { list: Tokens.List; depth: number }) {
  const start = typeof list.start === 'number' ? list.start : 1;
  return (
    <Box flexShrink={0} flexDirection="column">
      {list.items.map((item, index) => {
        const marker = item.task
          ? item.checked
            ? '[x]'
            : '[ ]'
          : list.ordered
            ? `${start + index}.`
            : depth % 2 === 0
              ? '•'
              : '◦';
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: list items have no identity but their place
          <Box key={index} flexShrink={0}>
            <Text>{`${marker} `}</Text>
            <Box flexShrink={0} flexDirection="column" flexGrow={1}>
              {blocks(item.tokens, depth + 1)}
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}

function blocks(tokens: Token[], depth = 0): ReactNode[] {
  return tokens.map((token, index) => {
    const key = String(index);
    switch (token.type) {
      case 'space':
        return null;
      case 'heading':
        return (
          <Text key={key} bold color="magenta">
            {inline((token as Tokens.Heading).tokens)}
          </Text>
        );
      case 'paragraph':
        return <Text key={key}>{inline((token as Tokens.Paragraph).tokens)}</Text>;
      case 'text': {
        const text = token as Tokens.Text;
        return <Text key={key}>{text.tokens ? inline(text.tokens) : safe(text.text)}</Text>;
      }
      case 'code': {
        const code = token as Tokens.Code;
        return (
          <Box
            key={key}
            flexShrink={0}
            flexDirection="column"
            borderStyle="round"
            borderDimColor
            paddingX={1}
          >
            {code.lang ? <Text dimColor>{safe(code.lang)}</Text> : null}
            <Text color="green">{safe(code.text)}</Text>
          </Box>
        );
      }
      case 'blockquote':
        return (
          <Box
            key={key}
            flexShrink={0}
            borderStyle="single"
            borderTop={false}
            borderRight={false}
            borderBottom={false}
            paddingLeft={1}
          >
            <Box flexShrink={0} flexDirection="column">
              {blocks((token as Tokens.Blockquote).tokens, depth)}
            </Box>
          </Box>
        );
      case 'list':
        return <ListBlock key={key} list={token as Tokens.List} depth={depth} />;
      case 'hr':
        return (
          <Text key={key} dimColor>
            ────────
          </Text>
        );
      case 'table': {
        const table = token as Tokens.Table;
        const row = (cells: Tokens.TableCell[], bold: boolean, k: string) => (
          <Text key={k} bold={bold}>
            {cells.flatMap((cell, i) => [i > 0 ? ' │ ' : '', ...inline(cell.tokens, `${k}.${i}`)])}
          </Text>
        );
        return (
          <Box key={key} flexShrink={0} flexDirection="column">
            {row(table.header, true, 'h')}
            {table.rows.map((cells, i) => row(cells, false, `r${i}`))}
          </Box>
        );
      }
      default:
        return <Text key={key}>{safe(token.raw)}</Text>;
    }
  });
}

/**
 * One reply as terminal Markdown. Sanitized before tokenizing too, so a control character cannot
 * shape the Markdown either (marked would read a bare \r as a line break). Memoized: only the
 * streaming reply is tokenized again.
 */
const MarkdownBlocks = memo(function MarkdownBlocks({ text }: { text: string }) {
  return (
    <Box flexShrink={0} flexDirection="column">
      {blocks(marked.lexer(safe(text), { gfm: true }))}
    </Box>
  );
});

/**
 * Where a streaming reply can be cut: after the last blank line outside a code fence. What comes
 * before it no longer changes as tokens arrive, so only the tail is tokenized and drawn anew.
 */
export function stableCut(text: string): number {
  let cut = 0;
  let fenced = false;
  let at = 0;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    at += line.length + 1;
    if (!fenced && line.trim() === '' && at < text.length) cut = at;
  }
  return cut;
}

export function Markdown({ text }: { text: string }) {
  const cut = stableCut(text);
  if (cut === 0) return <MarkdownBlocks text={text} />;
  return (
    <Box flexShrink={0} flexDirection="column">
      <MarkdownBlocks text={text.slice(0, cut)} />
      <MarkdownBlocks text={text.slice(cut)} />
    </Box>
  );
}
