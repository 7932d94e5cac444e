/**
 * Markdown as React elements: marked only tokenizes; every token becomes an element here, and
 * raw HTML in the text is shown as text. Nothing is ever assigned to innerHTML, so a model's
 * reply cannot inject markup or script into the app.
 */
import { marked, type Token, type Tokens } from 'marked';
import { memo, type ReactNode, useEffect, useState } from 'react';
import { highlight } from '../lib/highlight';

const SAFE_LINK = /^(https?:|mailto:)/i;

function inline(tokens: Token[] | undefined, key = 'i'): ReactNode[] {
  // Keys are positions: the tokens of one text never reorder.
  return (tokens ?? []).map((token, index) => {
    const k = `${key}.${index}`;
    switch (token.type) {
      case 'strong':
        return <strong key={k}>{inline((token as Tokens.Strong).tokens, k)}</strong>;
      case 'em':
        return <em key={k}>{inline((token as Tokens.Em).tokens, k)}</em>;
      case 'del':
        return <del key={k}>{inline((token as Tokens.Del).tokens, k)}</del>;
      case 'codespan':
        return <code key={k}>{(token as Tokens.Codespan).text}</code>;
      case 'br':
        return <br key={k} />;
      case 'link': {
        const link = token as Tokens.Link;
        return SAFE_LINK.test(link.href) ? (
          <a key={k} href={link.href} target="_blank" rel="noreferrer noopener" title={link.href}>
            {inline(link.tokens, k)}
          </a>
        ) : (
          <span key={k}>{inline(link.tokens, k)}</span>
        );
      }
      case 'image':
        // Images would load from wherever the model points: shown as their alt text.
        return <span key={k}>[image: {(token as Tokens.Image).text}]</span>;
      case 'text': {
        const text = token as Tokens.Text;
        return text.tokens ? <span key={k}>{inline(text.tokens, k)}</span> : text.text;
      }
      default:
        return 'raw' in token ? token.raw : '';
    }
  });
}

function CodeBlock({ code, lang }: { code: string; lang: string }) {
  const [copied, setCopied] = useState(false);
  const [coloured, setColoured] = useState<ReactNode[] | null>(null);
  useEffect(() => {
    let stale = false;
    // Plain at once, coloured once the highlighter has loaded (a failure leaves it plain).
    highlight(code, lang).then(
      (nodes) => !stale && setColoured(nodes),
      () => undefined,
    );
    return () => {
      stale = true;
    };
  }, [code, lang]);
  const copy = () => {
    void navigator.clipboard?.writeText(code).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  };
  return (
    <figure className="code-block">
      <figcaption>
        <span className="code-lang">{lang || 'text'}</span>
        <button type="button" className="ghost small" onClick={copy} aria-label="Copy code">
          {copied ? 'Copied' : 'Copy'}
        </button>
      </figcaption>
      <pre>
        <code className={coloured ? 'hljs' : undefined}>{coloured ?? code}</code>
      </pre>
    </figure>
  );
}

/** A column's alignment from its `:---:` marker, as a class (no inline styles under the CSP). */
const alignClass = (align: 'left' | 'center' | 'right' | null) =>
  align ? `align-${align}` : undefined;

function block(token: Token, key: string): ReactNode {
  switch (token.type) {
    case 'space':
      return null;
    case 'heading': {
      const heading = token as Tokens.Heading;
      const Tag = `h${Math.min(6, heading.depth + 2)}` as 'h3';
      return <Tag key={key}>{inline(heading.tokens, key)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{inline((token as Tokens.Paragraph).tokens, key)}</p>;
    case 'code': {
      const code = token as Tokens.Code;
      return <CodeBlock key={key} code={code.text} lang={code.lang ?? ''} />;
    }
    case 'blockquote':
      return (
        <blockquote key={key}>
          {(token as Tokens.Blockquote).tokens.map((t, i) => block(t, `${key}.${i}`))}
        </blockquote>
      );
    case 'list': {
      const list = token as Tokens.List;
      const items = list.items.map((item, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: markdown tokens are positional and never reorder
        <li key={`${key}.${i}`}>
          {item.task && <input type="checkbox" checked={item.checked} readOnly aria-label="task" />}
          {item.tokens.map((t, j) =>
            t.type === 'text'
              ? inline((t as Tokens.Text).tokens ?? [t], `${key}.${i}.${j}`)
              : block(t, `${key}.${i}.${j}`),
          )}
        </li>
      ));
      return list.ordered ? (
        <ol key={key} start={typeof list.start === 'number' ? list.start : undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'table': {
      const table = token as Tokens.Table;
      return (
        <div key={key} className="table-wrap">
          <table>
            <thead>
              <tr>
                {table.header.map((cell, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: markdown tokens are positional and never reorder
                  <th key={`${key}.h${i}`} className={alignClass(cell.align)}>
                    {inline(cell.tokens, `${key}.h${i}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, r) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: markdown tokens are positional and never reorder
                <tr key={`${key}.r${r}`}>
                  {row.map((cell, c) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: markdown tokens are positional and never reorder
                    <td key={`${key}.r${r}.${c}`} className={alignClass(cell.align)}>
                      {inline(cell.tokens, `${key}.r${r}.${c}`)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case 'hr':
      return <hr key={key} />;
    case 'html':
      return <p key={key}>{(token as Tokens.HTML).text}</p>;
    case 'text': {
      const text = token as Tokens.Text;
      return <p key={key}>{text.tokens ? inline(text.tokens, key) : text.text}</p>;
    }
    default:
      return 'raw' in token ? <p key={key}>{token.raw}</p> : null;
  }
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const tokens = marked.lexer(text, { gfm: true });
  return <div className="markdown">{tokens.map((token, i) => block(token, String(i)))}</div>;
});
