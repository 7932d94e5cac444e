/**
 * An approval the policy asked for: the tool, its arguments, the risk tier and the rule that
 * asked, with approve once / for the session / deny (with a reason the model is told).
 */
import { useEffect, useState } from 'react';
import { abridgedJson } from '../../../shared/abridge';
import type { PendingApprovalView } from '../../../shared/ipc';
import { TierBadge } from './ToolCard';

export type Verdict = 'approve' | 'approve-for-session' | 'deny';

function useCountdown(expiresAt: string | null): string | null {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!expiresAt) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [expiresAt]);
  if (!expiresAt) return null;
  const left = Math.max(0, Math.round((Date.parse(expiresAt) - now) / 1000));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
}

export function ApprovalCard({
  approval,
  onResolve,
  compact = false,
  shortcuts = false,
}: {
  approval: PendingApprovalView;
  onResolve: (id: string, verdict: Verdict, reason?: string) => void;
  compact?: boolean;
  /** This card answers the keyboard shortcuts (the oldest pending one). */
  shortcuts?: boolean;
}) {
  const [reason, setReason] = useState('');
  const [asking, setAsking] = useState(false);
  const left = useCountdown(approval.expiresAt);
  return (
    <section
      className={`approval-card${compact ? ' compact' : ''}`}
      aria-label={`Approval needed: ${approval.call.name}`}
      data-testid="approval-card"
    >
      <header>
        <span className="approval-title">
          Allow <strong>{approval.call.name}</strong>?
        </span>
        <TierBadge tier={approval.tier} />
        <span className="spacer" />
        {left && (
          <span className="muted" title="Denied automatically when the time runs out">
            {left}
          </span>
        )}
      </header>
      <p className="approval-reason">
        {approval.reason}
        {approval.rule && (
          <>
            {' '}
            · rule <code>{approval.rule}</code>
          </>
        )}
      </p>
      {/* Abridged in the middle: a long value cannot push how it ends out of view. */}
      {!compact && <pre className="json">{abridgedJson(approval.call.input)}</pre>}
      {asking && (
        <input
          className="reason-input"
          aria-label="Reason for denying (told to the model)"
          placeholder="Why not? (optional, told to the model)"
          value={reason}
          maxLength={500}
          onChange={(event) => setReason(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') onResolve(approval.id, 'deny', reason.trim() || undefined);
          }}
          // biome-ignore lint/a11y/noAutofocus: the field appears because the user asked for it
          autoFocus
        />
      )}
      <div className="approval-actions">
        <button
          type="button"
          className="primary"
          onClick={() => onResolve(approval.id, 'approve')}
          title={shortcuts ? 'Alt+A' : undefined}
        >
          Approve{shortcuts && <kbd>Alt+A</kbd>}
        </button>
        {approval.sessionApprovable && (
          <button
            type="button"
            onClick={() => onResolve(approval.id, 'approve-for-session')}
            title={shortcuts ? 'Alt+Shift+A' : undefined}
          >
            Approve for session
          </button>
        )}
        <button
          type="button"
          className="danger"
          onClick={() =>
            asking || reason
              ? onResolve(approval.id, 'deny', reason.trim() || undefined)
              : onResolve(approval.id, 'deny')
          }
          title={shortcuts ? 'Alt+D' : undefined}
        >
          Deny{shortcuts && <kbd>Alt+D</kbd>}
        </button>
        {!asking && (
          <button type="button" className="ghost" onClick={() => setAsking(true)}>
            Deny with reason…
          </button>
        )}
      </div>
    </section>
  );
}
