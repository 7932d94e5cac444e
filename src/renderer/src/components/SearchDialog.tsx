/** Ctrl/Cmd+K: search every conversation's messages and titles; a result opens at its message. */
import { useEffect, useRef, useState } from 'react';
import { errorText, formatTime } from '../../../shared/format';
import type { SearchHit } from '../../../shared/ipc';
import { useBridge } from '../lib/bridge-context';

/** The snippet with its matched words in <mark>, built as elements (never as HTML). */
function Snippet({ text }: { text: string }) {
  // The core marks a match as \u0002word\u0003: each piece after a start holds one match.
  const [plain, ...marked] = text.split('\u0002');
  return (
    <>
      {plain}
      {marked.map((piece, index) => {
        const [word, rest = ''] = piece.split('\u0003');
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: the pieces never reorder
          <span key={index}>
            <mark>{word}</mark>
            {rest}
          </span>
        );
      })}
    </>
  );
}

export function SearchDialog({
  onOpen,
  onClose,
}: {
  onOpen: (hit: SearchHit) => void;
  onClose: () => void;
}) {
  const bridge = useBridge();
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [selected, setSelected] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLInputElement>(null);

  useEffect(() => box.current?.focus(), []);
  useEffect(() => {
    const text = query.trim();
    if (!text) {
      setHits([]);
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      bridge.invoke('sessions.search', { query: text }).then(
        (found) => {
          if (stale) return;
          setHits(found.hits);
          setSelected(0);
          setError(null);
        },
        (cause: unknown) => !stale && setError(errorText(cause)),
      );
    }, 120);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [query, bridge]);

  return (
    <div className="dialog-backdrop">
      <div className="search-dialog" role="dialog" aria-modal="true" aria-label="Search chats">
        <input
          ref={box}
          type="search"
          aria-label="Search chats"
          placeholder="Search all conversations"
          value={query}
          maxLength={200}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') onClose();
            else if (event.key === 'ArrowDown') {
              event.preventDefault();
              setSelected((i) => Math.min(i + 1, hits.length - 1));
            } else if (event.key === 'ArrowUp') {
              event.preventDefault();
              setSelected((i) => Math.max(i - 1, 0));
            } else if (event.key === 'Enter' && hits[selected]) {
              event.preventDefault();
              onOpen(hits[selected]);
            }
          }}
        />
        <button type="button" className="ghost small search-close" onClick={onClose}>
          Close <kbd>Esc</kbd>
        </button>
        {error && <p className="error-banner">{error}</p>}
        {query.trim() && hits.length === 0 && !error && <p className="muted pad">No matches.</p>}
        <ul className="search-results" aria-label="Results">
          {hits.map((hit, index) => (
            <li key={`${hit.sessionId}.${hit.messageId ?? 'title'}`}>
              <button
                type="button"
                className={index === selected ? 'selected' : ''}
                aria-current={index === selected ? 'true' : undefined}
                onClick={() => onOpen(hit)}
                onMouseEnter={() => setSelected(index)}
              >
                <span className="search-title">
                  {hit.title}
                  <span className="muted"> · {formatTime(hit.at)}</span>
                </span>
                <span className="search-snippet">
                  {hit.role && (
                    <span className="muted">{hit.role === 'user' ? 'You: ' : 'Pincer: '}</span>
                  )}
                  <Snippet text={hit.snippet} />
                </span>
              </button>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
