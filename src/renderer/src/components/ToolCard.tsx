/** One tool call: what was asked, what the policy said, how it ran and what it returned. */
import type { ReactNode } from 'react';
import { formatDuration, prettyJson } from '../../../shared/format';
import type { RiskTier, ToolCallView } from '../../../shared/ipc';
import { ToolIcon } from './Icons';
import { WrittenFiles } from './WrittenFiles';

export type ToolCardData = Omit<ToolCallView, 'tier'> & { tier?: RiskTier };

const STATUS_LABEL: Record<ToolCallView['status'], string> = {
  requested: 'Queued',
  waiting_approval: 'Waiting for approval',
  running: 'Running…',
  ok: 'Done',
  error: 'Failed',
  denied: 'Denied',
};

export function DecisionBadge({ decision }: { decision: ToolCallView['decision'] }) {
  if (!decision) return null;
  const label = { allow: 'allowed', deny: 'denied by policy', ask: 'asked you' }[decision];
  return <span className={`badge decision-${decision}`}>{label}</span>;
}

export function TierBadge({ tier }: { tier: RiskTier | undefined }) {
  if (!tier) return null;
  return (
    <span className={`badge tier-${tier}`} title="Risk tier of the tool">
      {tier}
    </span>
  );
}

export function ToolCard({ call, children }: { call: ToolCardData; children?: ReactNode }) {
  const open = call.status === 'waiting_approval' || call.status === 'running';
  return (
    <article
      className={`tool-card status-${call.status}`}
      aria-label={`Tool call ${call.name}: ${STATUS_LABEL[call.status]}`}
      data-testid="tool-card"
    >
      <header>
        <ToolIcon size={14} className="tool-icon" />
        <span className="tool-name">{call.name}</span>
        <TierBadge tier={call.tier} />
        <DecisionBadge decision={call.decision} />
        <span className="spacer" />
        <span className={`tool-status status-${call.status}`} data-testid="tool-status">
          {STATUS_LABEL[call.status]}
        </span>
        {call.durationMs !== null && call.status !== 'denied' && (
          <span className="muted">{formatDuration(call.durationMs)}</span>
        )}
      </header>
      {/* While an approval card is shown, it states the rule and reason itself. */}
      {call.status !== 'waiting_approval' && (call.rule || call.reason || call.approvalBy) && (
        <p className="tool-policy">
          {call.rule && (
            <>
              rule <code>{call.rule}</code>
            </>
          )}
          {call.reason && <> · {call.reason}</>}
          {call.approvalBy && <> · answered by {call.approvalBy}</>}
        </p>
      )}
      {children}
      <WrittenFiles call={call} />
      <details open={open}>
        <summary>Arguments</summary>
        <pre className="json">{prettyJson(call.input)}</pre>
      </details>
      {call.output !== null && (
        <details open={call.status === 'error' || call.status === 'denied'}>
          <summary>Output</summary>
          <pre className="tool-output" data-testid="tool-output">
            {call.output}
          </pre>
        </details>
      )}
    </article>
  );
}
