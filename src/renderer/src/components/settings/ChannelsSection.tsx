/**
 * Settings → Channels: the manifest's channels as this app serves them (type, state, last
 * message, last error) and the pairing codes unknown senders received, each approved or
 * refused here as `pincer channels pair CODE` does. Channel state changes on its own (a
 * message arrives, a code is issued): it is read again every few seconds while shown.
 */
import { useCallback, useEffect, useState } from 'react';
import { errorText, formatTime } from '../../../../shared/format';
import type { ChannelsView } from '../../../../shared/ipc';
import { useBridge, useCoreEvents } from '../../lib/bridge-context';
import { useLoad } from './use-load';

const REFRESH_MS = 3000;

export function ChannelsSection() {
  const bridge = useBridge();
  const [view, loadError, reload, setView] = useLoad<ChannelsView>(
    useCallback(() => bridge.invoke('channels.list', {}), [bridge]),
  );
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  useCoreEvents((event) => {
    if (event.topic === 'background.changed') reload();
  });

  async function change(work: () => Promise<ChannelsView>, done: string) {
    setMessage(null);
    setBusy(true);
    try {
      setView(await work());
      setMessage(done);
    } catch (cause) {
      setMessage(errorText(cause));
    } finally {
      setBusy(false);
    }
  }

  if (loadError) return <p className="error-banner">{loadError}</p>;
  if (!view) return <p className="muted">Loading…</p>;
  return (
    <div className="settings-section">
      <div className="row">
        <h3>Channels</h3>
        <button type="button" onClick={reload} disabled={busy}>
          Refresh
        </button>
      </div>
      <p className="muted">
        The manifest's channels and schedules: runs they start meet the same policy and approvals as
        yours.
        {!view.served &&
          ' This app serves none of them now (a `pincer daemon` on this data dir may).'}
      </p>
      {view.channels.length === 0 && <p className="muted">The manifest declares no channels.</p>}
      <ul className="model-list" aria-label="Channels">
        {view.channels.map((channel) => (
          <li key={channel.name} className="card model-row" aria-label={`Channel ${channel.name}`}>
            <div className="model-info">
              <div className="model-name">
                {channel.name}
                <span className="badge">{channel.type}</span>
                <span className={`badge channel-${channel.state}`} role="status">
                  {channel.state}
                </span>
              </div>
              <div className="muted small-text">
                {channel.lastMessageAt
                  ? `last message ${formatTime(channel.lastMessageAt)}`
                  : 'no message yet'}{' '}
                · {channel.runs} run{channel.runs === 1 ? '' : 's'}
                {Object.entries(channel.detail)
                  .filter(([, value]) => value !== '')
                  .map(([key, value]) => ` · ${key} ${value}`)
                  .join('')}
              </div>
              {channel.lastError && (
                <div className="mcp-error small-text" data-testid="channel-error">
                  {channel.lastError}
                </div>
              )}
            </div>
          </li>
        ))}
      </ul>
      <h3>Pairing requests</h3>
      {view.pairings.length === 0 ? (
        <p className="muted">No pairing codes are waiting.</p>
      ) : (
        <ul className="model-list" aria-label="Pairing requests">
          {view.pairings.map((pairing) => (
            <li
              key={`${pairing.channel}|${pairing.userId}`}
              className="card model-row"
              aria-label={`Pairing ${pairing.code}`}
            >
              <div className="model-info">
                <div className="model-name">
                  <code>{pairing.code}</code>
                </div>
                <div className="muted small-text">
                  user {pairing.userId} on {pairing.channel}, until {formatTime(pairing.expiresAt)}
                </div>
              </div>
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  void change(
                    () => bridge.invoke('channels.approvePairing', { code: pairing.code }),
                    `Paired: user ${pairing.userId} on ${pairing.channel}.`,
                  )
                }
              >
                Approve
              </button>
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  void change(
                    () => bridge.invoke('channels.rejectPairing', { code: pairing.code }),
                    `Refused the code of user ${pairing.userId}.`,
                  )
                }
              >
                Reject
              </button>
            </li>
          ))}
        </ul>
      )}
      {message && (
        <p className="muted" role="status" aria-live="polite">
          {message}
        </p>
      )}
    </div>
  );
}
