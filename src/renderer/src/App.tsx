import { type FormEvent, useEffect, useState } from 'react';
import type { AppInfo, PincerApi } from '../../shared/ipc';

interface Exchange {
  id: number;
  sent: string;
  reply: string | null;
  error: string | null;
}

export function App({ bridge }: { bridge: PincerApi | null }) {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [draft, setDraft] = useState('');
  const [log, setLog] = useState<Exchange[]>([]);

  useEffect(() => {
    bridge
      ?.invoke('app.getInfo', {})
      .then(setInfo)
      .catch(() => setInfo(null));
  }, [bridge]);

  async function send(event: FormEvent) {
    event.preventDefault();
    const message = draft.trim();
    if (!bridge || !message) return;
    const id = Date.now();
    setDraft('');
    setLog((entries) => [...entries, { id, sent: message, reply: null, error: null }]);
    try {
      const { runId: reply } = await bridge.invoke('chat.send', { text: message });
      setLog((entries) => entries.map((e) => (e.id === id ? { ...e, reply } : e)));
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      setLog((entries) => entries.map((e) => (e.id === id ? { ...e, error: text } : e)));
    }
  }

  return (
    <div className="shell">
      <header className="topbar">
        <h1>Pincer</h1>
        <span className="status" data-testid="connection">
          {bridge ? `connected${info ? ` · v${info.version}` : ''}` : 'not connected'}
        </span>
      </header>
      <main className="chat" aria-live="polite">
        {!bridge && (
          <p className="notice" role="status">
            This page is not connected to a Pincer core. Open it from the desktop app, or use the
            headless path: <code>npx pincer doctor</code>.
          </p>
        )}
        {log.map((entry) => (
          <div key={entry.id} className="exchange">
            <p className="bubble user">{entry.sent}</p>
            {entry.reply && <p className="bubble agent">{entry.reply}</p>}
            {entry.error && <p className="bubble error">{entry.error}</p>}
          </div>
        ))}
      </main>
      <form className="composer" onSubmit={send}>
        <input
          aria-label="Message"
          value={draft}
          disabled={!bridge}
          placeholder={bridge ? 'Message Pincer' : 'Not connected'}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" disabled={!bridge || !draft.trim()}>
          Send
        </button>
      </form>
    </div>
  );
}
