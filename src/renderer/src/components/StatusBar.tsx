/**
 * The conversation in view, honestly: the connection and the model each with its own health,
 * tokens, cost (unknown when the model has no known price, not $0) and model-call latency.
 */
import { useCallback } from 'react';
import { formatCost, formatDuration, formatTokens } from '../../../shared/format';
import type { OpenAiEndpointView } from '../../../shared/ipc';
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
