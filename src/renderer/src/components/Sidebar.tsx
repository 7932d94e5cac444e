/** Sessions: start one, pick one, rename or delete it. */
import { useState } from 'react';
import { formatTime } from '../../../shared/format';
import type { SessionSummary } from '../../../shared/ipc';
import { Logo, PencilIcon, TrashIcon } from './Icons';

export type View = 'chat' | 'runs' | 'settings';

function SessionRow({
  session,
  active,
  onOpen,
  onRename,
  onDelete,
}: {
  session: SessionSummary;
  active: boolean;
  onOpen: () => void;
  onRename: (title: string) => void;
  onDelete: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(session.title);
  const [confirming, setConfirming] = useState(false);
  if (editing) {
    return (
      <li className="session-row editing">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (title.trim()) onRename(title.trim());
            setEditing(false);
          }}
        >
          <input
            aria-label="Session title"
            value={title}
            maxLength={200}
            onChange={(event) => setTitle(event.target.value)}
            onBlur={() => setEditing(false)}
            onKeyDown={(event) => event.key === 'Escape' && setEditing(false)}
            // biome-ignore lint/a11y/noAutofocus: renaming was just asked for
            autoFocus
          />
        </form>
      </li>
    );
  }
  return (
    <li className={`session-row${active ? ' active' : ''}`}>
      <button
        type="button"
        className="session-open"
        aria-current={active ? 'page' : undefined}
        onClick={onOpen}
        title={session.title}
      >
        <span className="session-title">
          {session.busy && <span className="pulse" role="img" aria-label="running" />}
          {session.title || 'Untitled'}
        </span>
        <span className="session-time">{formatTime(session.lastActivityAt)}</span>
      </button>
      {confirming ? (
        <span className="session-confirm">
          <button type="button" className="danger small" onClick={onDelete}>
            Delete
          </button>
          <button type="button" className="ghost small" onClick={() => setConfirming(false)}>
            Keep
          </button>
        </span>
      ) : (
        <span className="session-actions">
          <button
            type="button"
            className="icon"
            aria-label={`Rename ${session.title}`}
            onClick={() => {
              setTitle(session.title);
              setEditing(true);
            }}
          >
            <PencilIcon size={14} />
          </button>
          <button
            type="button"
            className="icon"
            aria-label={`Delete ${session.title}`}
            onClick={() => setConfirming(true)}
          >
            <TrashIcon size={14} />
          </button>
        </span>
      )}
    </li>
  );
}

export function Sidebar({
  sessions,
  activeId,
  view,
  pendingCount,
  onView,
  onNew,
  onSearch,
  onOpen,
  onRename,
  onDelete,
}: {
  onSearch: () => void;
  sessions: SessionSummary[] | null;
  activeId: string | null;
  view: View;
  pendingCount: number;
  onView: (view: View) => void;
  onNew: () => void;
  onOpen: (id: string) => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
}) {
  return (
    <nav className="sidebar" aria-label="Sessions and views">
      <div className="brand">
        <Logo />
        <span>Pincer</span>
      </div>
      <button type="button" className="primary new-chat" onClick={onNew} title="Alt+N">
        + New chat <kbd>Alt+N</kbd>
      </button>
      <button type="button" className="search-open" onClick={onSearch} title="Ctrl+K">
        Search chats <kbd>Ctrl+K</kbd>
      </button>
      <div className="view-tabs" role="tablist" aria-label="Views">
        {(
          [
            ['chat', 'Chat', 'Alt+1'],
            ['runs', 'Runs', 'Alt+2'],
            ['settings', 'Settings', 'Alt+3'],
          ] as const
        ).map(([id, label, key]) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={view === id}
            className={view === id ? 'active' : ''}
            onClick={() => onView(id)}
            title={key}
          >
            {label}
            {id === 'chat' && pendingCount > 0 && (
              <span className="count">
                {pendingCount}
                <span className="sr-only"> approvals waiting</span>
              </span>
            )}
          </button>
        ))}
      </div>
      <h2 className="sidebar-heading">Sessions</h2>
      {sessions === null ? (
        <p className="muted pad">Loading…</p>
      ) : sessions.length === 0 ? (
        <p className="muted pad">No conversations yet. Say hello below.</p>
      ) : (
        <ul className="session-list">
          {sessions.map((session) => (
            <SessionRow
              key={session.id}
              session={session}
              active={session.id === activeId}
              onOpen={() => onOpen(session.id)}
              onRename={(title) => onRename(session.id, title)}
              onDelete={() => onDelete(session.id)}
            />
          ))}
        </ul>
      )}
    </nav>
  );
}
