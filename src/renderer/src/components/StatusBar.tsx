/** Model, tokens, cost and latency of the conversation in view, like seed 000's dashboard. */
import { formatCost, formatDuration, formatTokens } from '../../../shared/format';
import type { ChatStats } from './ChatView';

export function StatusBar({
  connected,
  transport,
  model,
  stats,
}: {
  connected: boolean;
  transport: string;
  model: string;
  stats: ChatStats;
}) {
  return (
    <footer className="status-bar">
      <span className={`dot ${connected ? 'ok' : 'bad'}`} aria-hidden="true" />
      <span data-testid="connection">
        {connected ? `connected · ${transport}` : 'not connected'}
      </span>
      <span className="sep" aria-hidden="true" />
      <span title={stats.model ? `last reply served by ${stats.model}` : 'the model answering'}>
        <span className="label">model</span> <span data-testid="status-model">{model}</span>
      </span>
      <span>
        <span className="label">tokens</span>{' '}
        <span data-testid="status-tokens">
          {formatTokens(stats.inputTokens)} in · {formatTokens(stats.outputTokens)} out
        </span>
      </span>
      <span>
        <span className="label">cost</span> {formatCost(stats.costUsd)}
      </span>
      <span title="Time to the first token, and of the last model call">
        <span className="label">latency</span> {formatDuration(stats.firstTokenMs)} first ·{' '}
        {formatDuration(stats.lastTurnMs)} turn
      </span>
      <span className="spacer" />
      {stats.busy && (
        <span className="busy" role="status">
          <span className="pulse" aria-hidden="true" /> working… <kbd>Esc</kbd> stops
        </span>
      )}
    </footer>
  );
}
