/**
 * Settings → MCP: the user's MCP servers (the list `pincer mcp` edits), each with its state,
 * its tools and its last error; add one by command line or URL, turn one off or on, remove it.
 * Servers run confined like every tool; their env and header values never reach this view, but
 * what each was granted (the network, the names of stored secrets it is given) is shown.
 */
import { type FormEvent, useCallback, useState } from 'react';
import { errorText } from '../../../../shared/format';
import type { McpServerView } from '../../../../shared/ipc';
import { useBridge } from '../../lib/bridge-context';
import { useLoad } from './use-load';

type Servers = { servers: McpServerView[] };

/** Splits a command line on spaces, keeping "quoted parts" together. */
function splitCommandLine(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? '');
}

export function McpSection() {
  const bridge = useBridge();
  const [list, loadError, reload, setList] = useLoad<Servers>(
    useCallback(() => bridge.invoke('mcp.list', {}), [bridge]),
  );
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  async function change(work: () => Promise<Servers>) {
    setMessage(null);
    setBusy(true);
    try {
      setList(await work());
      return true;
    } catch (cause) {
      setMessage(errorText(cause));
      return false;
    } finally {
      setBusy(false);
    }
  }
  async function add(event: FormEvent) {
    event.preventDefault();
    const trimmed = target.trim();
    const isUrl = /^https?:\/\//i.test(trimmed);
    const [command, ...args] = splitCommandLine(trimmed);
    const added = await change(() =>
      bridge.invoke(
        'mcp.add',
        isUrl ? { name: name.trim(), url: trimmed } : { name: name.trim(), command, args },
      ),
    );
    if (added) {
      setName('');
      setTarget('');
    }
  }

  if (loadError) return <p className="error-banner">{loadError}</p>;
  if (!list) return <p className="muted">Loading…</p>;
  return (
    <div className="settings-section">
      <div className="row">
        <h3>MCP servers</h3>
        {/* A server keeps (re)starting in the background: its state is read again on demand. */}
        <button type="button" onClick={reload} disabled={busy}>
          Refresh
        </button>
      </div>
      <p className="muted">
        Tools from Model Context Protocol servers. A server started from a command runs in the
        sandbox, without network unless its entry allows it.
      </p>
      {list.servers.length === 0 && <p className="muted">No MCP servers yet.</p>}
      <ul className="model-list" aria-label="MCP servers">
        {list.servers.map((server) => (
          <li key={server.name} className="card model-row" aria-label={`MCP server ${server.name}`}>
            <div className="model-info">
              <div className="model-name">
                {server.name}
                <span className="badge">{server.transport}</span>
                <span className="badge" role="status">
                  {server.state}
                </span>
              </div>
              <div className="muted small-text">
                <code>{server.target}</code>
              </div>
              {server.grants.length > 0 && (
                <ul className="small-text mcp-grants" aria-label={`Grants of ${server.name}`}>
                  {server.grants.map((grant) => (
                    <li key={grant.grant}>
                      {grant.label}:{' '}
                      <strong>{grant.granted ? 'granted' : 'not granted (not given)'}</strong>
                    </li>
                  ))}
                </ul>
              )}
              {server.tools.length > 0 && (
                <div className="small-text">Tools: {server.tools.join(', ')}</div>
              )}
              {server.error && <div className="mcp-error small-text">{server.error}</div>}
            </div>
            <label className="toggle">
              <input
                type="checkbox"
                checked={server.enabled}
                disabled={busy}
                aria-label={`Enable ${server.name}`}
                onChange={(event) =>
                  void change(() =>
                    bridge.invoke('mcp.setEnabled', {
                      name: server.name,
                      enabled: event.target.checked,
                    }),
                  )
                }
              />
              <span>Enabled</span>
            </label>
            <button
              type="button"
              disabled={busy}
              onClick={() => void change(() => bridge.invoke('mcp.remove', { name: server.name }))}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <h3>Add a server</h3>
      <form className="row" onSubmit={add}>
        <input
          aria-label="Server name"
          placeholder="name (a-z, 0-9, - and _)"
          value={name}
          maxLength={64}
          onChange={(e) => setName(e.target.value)}
        />
        <input
          aria-label="Command or URL"
          placeholder="npx -y @scope/server  or  https://host/mcp"
          value={target}
          maxLength={4096}
          onChange={(e) => setTarget(e.target.value)}
        />
        <button type="submit" disabled={busy || !name.trim() || !target.trim()}>
          Add
        </button>
      </form>
      {message && <p className="error-banner">{message}</p>}
    </div>
  );
}
