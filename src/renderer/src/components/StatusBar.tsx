/**
 * The conversation in view, honestly: the connection and the model each with its own health,
 * tokens, cost (unknown when the model has no known price, not $0) and model-call latency.
 */
import { useCallback, useState } from 'react';
import { formatCost, formatDuration, formatTokens } from '../../../shared/format';
import type { BackgroundView, OpenAiEndpointView } from '../../../shared/ipc';
import { useBridge, useCoreEvents } from '../lib/bridge-context';
import type { ChatStats } from './ChatView';
import { useLoad } from './settings/use-load';

export type ModelHealth =
  | { state: 'ready' | 'idle' | 'none' }
  | { state: 'failed'; reason: string };

const HEALTH_TEXT = {
  ready: 'ready',
  idle: 'loads on the first message',
  none: 'no model yet',
  failed: 'failed',
} as const;

export function StatusBar({
  connected,
  transport,
  model,
  health,
  priced,
  stats,
}: {
  connected: boolean;
  transport: string;
  model: string;
  health: ModelHealth;
  priced: boolean;
  stats: ChatStats;
}) {
  const healthy = health.state === 'ready' || health.state === 'idle';
  return (
    <footer className="status-bar">
      <span className={`dot ${connected ? 'ok' : 'bad'}`} aria-hidden="true" />
      <span data-testid="connection">
        {connected ? `connected · ${transport}` : 'not connected'}
      </span>
      <span className="sep" aria-hidden="true" />
      <span
        className={`dot ${healthy ? 'ok' : health.state === 'none' ? 'idle' : 'bad'}`}
        aria-hidden="true"
      />
      <span title={health.state === 'failed' ? health.reason : undefined}>
        <span className="label">model</span> <span data-testid="status-model">{model}</span>{' '}
        <span className="muted" data-testid="model-health">
          {HEALTH_TEXT[health.state]}
        </span>
      </span>
      <span>
        <span className="label">tokens</span>{' '}
        <span data-testid="status-tokens">
          {formatTokens(stats.inputTokens)} in · {formatTokens(stats.outputTokens)} out
        </span>
      </span>
      <span title={priced ? undefined : 'This model has no known price'}>
        <span className="label">cost</span>{' '}
        <span data-testid="status-cost">
          {priced || stats.costUsd > 0 ? formatCost(stats.costUsd) : 'unknown'}
        </span>
      </span>
      <span title="Time to the first token, and of the last model call (never the time spent waiting for you)">
        <span className="label">latency</span> {formatDuration(stats.firstTokenMs)} first ·{' '}
        {formatDuration(stats.lastTurnMs)} turn
      </span>
      <EndpointStatus />
      <HeldStatus />
      <span className="spacer" />
      {stats.busy && (
        <span className="busy" role="status">
          <span className="pulse" aria-hidden="true" /> working… <kbd>Esc</kbd> stops
        </span>
      )}
    </footer>
  );
}

/** Other apps' requests to the local API, shown only while it is on. */
function EndpointStatus() {
  const bridge = useBridge();
  const [endpoint, , , setEndpoint] = useLoad<OpenAiEndpointView>(
    useCallback(() => bridge.invoke('openaiEndpoint.get', {}), [bridge]),
  );
  useCoreEvents((event) => {
    if (event.topic === 'openaiEndpoint.changed') setEndpoint(event.endpoint);
  });
  if (!endpoint?.enabled) return null;
  return (
    <span title={endpoint.error ?? endpoint.baseUrl ?? undefined}>
      <span className="label">API</span>{' '}
      <span data-testid="status-endpoint">
        {endpoint.running ? `${endpoint.active} active · ${endpoint.queued} queued` : 'not serving'}
      </span>
    </span>
  );
}

/**
 * Channel messages and schedule firings the tray's pause holds: a count while paused, and what
 * each is (channel, sender or schedule, since when) on a click. They start on resume.
 */
function HeldStatus() {
  const bridge = useBridge();
  const [open, setOpen] = useState(false);
  const [background, , , setBackground] = useLoad<BackgroundView>(
    useCallback(() => bridge.invoke('background.held', {}), [bridge]),
  );
  useCoreEvents((event) => {
    if (event.topic === 'background.changed') setBackground(event.background);
  });
  if (!background?.served || (!background.paused && background.held.length === 0)) return null;
  const count = background.held.length;
  return (
    <span className="held-status">
      <button
        type="button"
        className="link"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="status-held"
        title="Channel messages and schedule firings wait while Pincer is paused; they start on resume"
      >
        <span className="label">paused</span> {count} held while paused
      </button>
      {open && (
        <div className="held-list" role="dialog" aria-label="Held while paused">
          {count === 0 ? (
            <p className="muted">Nothing is waiting.</p>
          ) : (
            <ul>
              {background.held.map((work) => (
                <li key={`${work.channel}|${work.from}|${work.since}`}>
                  <span className="held-where">
                    {work.channel} · {work.from}
                  </span>{' '}
                  <time dateTime={work.since} className="muted">
                    {new Date(work.since).toLocaleTimeString()}
                  </time>
                  <div className="held-preview">{work.preview}</div>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </span>
  );
}
