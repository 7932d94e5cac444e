/** Providers of the manifest, and keys by name: a value goes in and never comes back out. */
import { type FormEvent, useCallback, useState } from 'react';
import { errorText } from '../../../../shared/format';
import type { ConnectionView, ProviderView, SecretsView } from '../../../../shared/ipc';
import { useBridge } from '../../lib/bridge-context';
import { AddProvider } from './AddProvider';
import { useLoad } from './use-load';

export function ProvidersSection() {
  const bridge = useBridge();
  const [providers, providersError, reloadProviders] = useLoad<{
    providers: ProviderView[];
    connections: ConnectionView[];
    routing: string;
  }>(useCallback(() => bridge.invoke('providers.list', {}), [bridge]));
  const [secrets, secretsError, reloadSecrets, setSecrets] = useLoad<SecretsView>(
    useCallback(() => bridge.invoke('secrets.list', {}), [bridge]),
  );
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  async function save(event: FormEvent) {
    event.preventDefault();
    try {
      setSecrets(await bridge.invoke('secrets.set', { name: name.trim(), value }));
      setMessage(`Saved ${name.trim()}`);
      setName('');
      setValue('');
    } catch (cause) {
      setMessage(errorText(cause));
    }
  }
  async function removeConnection(connection: string) {
    try {
      await bridge.invoke('providers.remove', { name: connection });
      setMessage(`Removed ${connection}`);
      reloadProviders();
      reloadSecrets();
    } catch (cause) {
      setMessage(errorText(cause));
    }
  }
  async function remove(secret: string) {
    try {
      setSecrets(await bridge.invoke('secrets.delete', { name: secret }));
      setMessage(`Deleted ${secret}`);
    } catch (cause) {
      setMessage(errorText(cause));
    }
  }
  return (
    <div className="settings-section">
      <AddProvider
        onAdded={() => {
          reloadProviders();
          reloadSecrets();
        }}
      />
      {providers && providers.connections.length > 0 && (
        <>
          <h3>Added here</h3>
          <ul className="secret-list">
            {providers.connections.map((c) => (
              <li key={c.name} className="card secret-row" data-testid={`connection-${c.name}`}>
                <strong>{c.name}</strong>
                <code>{c.endpoint}</code>
                <span className="muted">
                  {c.models.length} models · key {c.keyName ? 'stored' : 'none'} ·{' '}
                  {c.takesImages ? 'takes images' : 'text only'}
                </span>
                <span className="spacer" />
                <button
                  type="button"
                  className="danger small"
                  onClick={() => void removeConnection(c.name)}
                  aria-label={`Remove provider ${c.name}`}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Providers of the manifest</h3>
      {providersError && <p className="error-banner">{providersError}</p>}
      {providers && (
        <>
          <p className="muted">Routing: {providers.routing}</p>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>name</th>
                  <th>protocol</th>
                  <th>model</th>
                  <th>endpoint</th>
                  <th>key</th>
                  <th>fallback</th>
                </tr>
              </thead>
              <tbody>
                {providers.providers.map((p) => (
                  <tr key={p.name}>
                    <td>{p.name}</td>
                    <td>{p.protocol}</td>
                    <td>{p.model}</td>
                    <td>
                      <code>{p.endpoint}</code>
                    </td>
                    <td>
                      {p.secretRef
                        ? `${p.secretRef} ${p.hasKey ? '✓' : '(missing)'}`
                        : 'none needed'}
                    </td>
                    <td>{p.fallback.join(' → ') || '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <h3>Keys</h3>
      <p className="muted">Names only: a stored value never comes back to this window.</p>
      {secretsError && <p className="error-banner">{secretsError}</p>}
      {secrets && (
        <>
          {secrets.names.length === 0 ? (
            <p className="muted">No keys stored.</p>
          ) : (
            <ul className="secret-list">
              {secrets.names.map((s) => (
                <li key={`${s.backend}/${s.name}`} className="card secret-row">
                  <code>{s.name}</code>
                  <span className="muted">
                    {s.backend}
                    {s.shadowed ? ' (shadowed)' : ''}
                  </span>
                  <span className="spacer" />
                  <button
                    type="button"
                    className="danger small"
                    onClick={() => void remove(s.name)}
                    aria-label={`Delete key ${s.name}`}
                  >
                    Delete
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form className="secret-form" onSubmit={save}>
            <input
              aria-label="Key name"
              placeholder="OPENAI_API_KEY"
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={128}
            />
            <input
              aria-label="Key value"
              type="password"
              autoComplete="off"
              placeholder="value"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              maxLength={16_384}
            />
            <button type="submit" className="primary" disabled={!name.trim() || !value}>
              Save key
            </button>
          </form>
          <p className="muted small-text">
            Stored in:{' '}
            {secrets.backends
              .filter((b) => b.available)
              .map((b) => b.label)
              .join(', ') || 'no backend available'}
          </p>
        </>
      )}
      {message && <p role="status">{message}</p>}
    </div>
  );
}
