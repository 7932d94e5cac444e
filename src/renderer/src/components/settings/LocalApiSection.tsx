/**
 * Settings → Local API: the OpenAI-compatible endpoint serving the app's own local model to
 * editors and scripts. The key appears here once, when it is created, and only in this
 * component's state; afterwards the UI knows its name, never its value.
 */
import { type FormEvent, useCallback, useState } from 'react';
import { errorText, formatDuration } from '../../../../shared/format';
import type { OpenAiEndpointView, OpenAiRequestLogEntry } from '../../../../shared/ipc';
import { useBridge, useCoreEvents } from '../../lib/bridge-context';
import { useLoad } from './use-load';

const LOOPBACK = '127.0.0.1';

export function LocalApiSection() {
  const bridge = useBridge();
  const [endpoint, error, , setEndpoint] = useLoad<OpenAiEndpointView>(
    useCallback(() => bridge.invoke('openaiEndpoint.get', {}), [bridge]),
  );
  const [log, , reloadLog] = useLoad<{ entries: OpenAiRequestLogEntry[] }>(
    useCallback(() => bridge.invoke('openaiEndpoint.log', {}), [bridge]),
  );
  const [key, setKey] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [port, setPort] = useState<string | null>(null);
  useCoreEvents((event) => {
    if (event.topic !== 'openaiEndpoint.changed') return;
    setEndpoint(event.endpoint);
    reloadLog();
  });

  async function configure(patch: { enabled?: boolean; host?: string; port?: number }) {
    setMessage(null);
    try {
      const result = await bridge.invoke('openaiEndpoint.set', patch);
      setEndpoint(result.endpoint);
      if (result.key) setKey(result.key);
    } catch (cause) {
      setMessage(errorText(cause));
    }
  }
  async function rotate() {
    setMessage(null);
    try {
      const result = await bridge.invoke('openaiEndpoint.rotateKey', {});
      setEndpoint(result.endpoint);
      setKey(result.key);
    } catch (cause) {
      setMessage(errorText(cause));
    }
  }
  function savePort(event: FormEvent) {
    event.preventDefault();
    const wanted = Number(port);
    if (Number.isInteger(wanted)) void configure({ port: wanted });
  }

  if (error) return <p className="error-banner">{error}</p>;
  if (!endpoint) return <p className="muted">Loading…</p>;
  const lan = endpoint.host !== LOOPBACK;
  return (
    <div className="settings-section local-api">
      <p className="muted">
        Editors, scripts and other agents that speak the OpenAI API can use Pincer’s local model
        here. They share the model the app has loaded (no second copy) and take turns with your own
        chats.
      </p>
      <label className="card toggle">
        <input
          type="checkbox"
          checked={endpoint.enabled}
          onChange={(event) => void configure({ enabled: event.target.checked })}
        />
        <span>
          <strong>Serve the local model (OpenAI-compatible API)</strong>
          <span className="muted block">Off by default. Every request needs the key.</span>
        </span>
      </label>

      {key && (
        <div className="card key-once" role="alert">
          <strong>Your API key: copy it now, it is shown only this once.</strong>
          <code data-testid="endpoint-key">{key}</code>
          <span className="muted block">
            It is stored in your keychain as <code>{endpoint.keyName}</code>.
          </span>
          <button type="button" onClick={() => setKey(null)}>
            I have copied it
          </button>
        </div>
      )}

      <p data-testid="endpoint-state">
        {endpoint.running
          ? endpoint.loading
            ? `Loading ${endpoint.model ?? 'the model'}…`
            : `Serving ${endpoint.model ?? 'the local model'}`
          : endpoint.enabled
            ? 'Not serving'
            : 'Off'}
        {endpoint.baseUrl && (
          <>
            {' at '}
            <code data-testid="endpoint-url">{endpoint.baseUrl}</code>
          </>
        )}
      </p>
      {endpoint.error && <p className="error-banner">{endpoint.error}</p>}
      {message && <p className="error-banner">{message}</p>}

      <div className="row">
        <label>
          Listen on{' '}
          <select
            aria-label="Listen on"
            value={endpoint.host}
            onChange={(event) => void configure({ host: event.target.value })}
          >
            <option value={LOOPBACK}>{LOOPBACK} (this computer only)</option>
            {endpoint.lanAddresses.map((address) => (
              <option key={address} value={address}>
                {address} (other devices on the network)
              </option>
            ))}
          </select>
        </label>
        <form onSubmit={savePort}>
          <label>
            Port{' '}
            <input
              aria-label="Port"
              type="number"
              min={0}
              max={65535}
              value={port ?? String(endpoint.port)}
              onChange={(event) => setPort(event.target.value)}
            />
          </label>{' '}
          <button type="submit">Save port</button>
        </form>
        <button type="button" onClick={() => void rotate()} disabled={!endpoint.hasKey}>
          New key
        </button>
      </div>
      {lan && (
        <p className="muted">
          Other devices on your network can reach this address; without the key they get 401.
        </p>
      )}

      <h3>Requests</h3>
      <p className="muted">
        The newest first: time, route, model, status, tokens and duration. Prompts and replies are
        never recorded.
      </p>
      <div className="table-wrap">
        <table data-testid="endpoint-log">
          <thead>
            <tr>
              <th>time</th>
              <th>route</th>
              <th>model</th>
              <th>status</th>
              <th>tokens in / cached / out</th>
              <th>duration</th>
            </tr>
          </thead>
          <tbody>
            {(log?.entries ?? []).map((entry) => (
              <tr key={entry.id}>
                <td>{new Date(entry.at).toLocaleTimeString()}</td>
                <td>
                  <code>
                    {entry.method} {entry.path}
                  </code>
                  {entry.stream ? ' (stream)' : ''}
                </td>
                <td>{entry.model ?? ''}</td>
                <td>
                  {entry.status} {entry.outcome === 'ok' ? '' : entry.outcome}
                </td>
                <td>
                  {entry.promptTokens === null
                    ? ''
                    : `${entry.promptTokens} / ${entry.cachedTokens ?? 0} / ${entry.completionTokens ?? 0}`}
                </td>
                <td>{formatDuration(entry.durationMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
