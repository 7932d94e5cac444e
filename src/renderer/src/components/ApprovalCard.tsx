/**
 * An approval the policy asked for: what it really does (a command line with its folder and
 * sandbox, a diff against the file as it is now, a fetch's host), what makes it risky, the rule
 * that asked, and approve once / for the session / deny (with a reason the model is told).
 * A destructive one has a secondary-styled Approve and no keyboard shortcut.
 */
import { useEffect, useState } from 'react';
import { abridge, abridgedJson } from '../../../shared/abridge';
import type {
  ApprovalPreview,
  PendingApprovalView,
  PredictionView,
  RequestOf,
} from '../../../shared/ipc';
import { APPROVE_KEYS, APPROVE_SESSION_KEYS, DENY_KEYS } from '../lib/keys';
import { TierBadge } from './ToolCard';

/** A unified diff, one line per row, coloured by what happens to it. */
function Diff({ text }: { text: string }) {
  return (
    <pre className="diff" data-testid="approval-diff">
      {text.split('\n').map((line, index) => {
        const kind = line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : line.startsWith('@@')
              ? 'hunk'
              : 'same';
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines never reorder
          <span key={index} className={`diff-line diff-${kind}`}>
            {line}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}

function Preview({ preview }: { preview: ApprovalPreview }) {
  if (preview.kind === 'command') {
    return (
      <div className="approval-preview">
        <pre className="command" data-testid="approval-command">
          <span className="prompt" aria-hidden="true">
            $
          </span>{' '}
          {abridge(preview.command, 2000)}
        </pre>
        <p className="muted small-text">
          in <code data-testid="approval-cwd">{preview.cwd}</code>
          {preview.shell ? ' · run by the shell' : ''} · {preview.sandbox.join(' · ')}
        </p>
      </div>
    );
  }
  if (preview.kind === 'file') {
    const verb = { create: 'Creates', replace: 'Replaces', edit: 'Edits' }[preview.change];
    return (
      <div className="approval-preview">
        <p className="small-text">
          {verb} <code data-testid="approval-path">{preview.path}</code>
        </p>
        <Diff text={preview.diff} />
        {preview.truncated && <p className="muted small-text">The diff goes on; shown in part.</p>}
      </div>
    );
  }
  return (
    <div className="approval-preview">
      <p className="small-text">
        Fetches <code>{preview.url}</code>
      </p>
    </div>
  );
}

/** What a declared world model expects the call to do: its words, shown as plain text. */
export function PredictionNote({ prediction }: { prediction: PredictionView }) {
  return (
    <p className={`approval-prediction risk-${prediction.risk}`} data-testid="approval-prediction">
      <strong>Predicted by {prediction.worldModel}:</strong>{' '}
      {prediction.unavailable
        ? `no prediction (${prediction.unavailable})`
        : `${prediction.summary}${prediction.risk !== 'unknown' ? ` · ${prediction.risk} risk` : ''}${prediction.cost ? ` · cost ${prediction.cost}` : ''}`}
    </p>
  );
}

/** An answer to an approval, as `approvals.resolve` takes it. */
export type ApprovalVerdict = RequestOf<'approvals.resolve'>['verdict'];

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
  onResolve: (id: string, verdict: ApprovalVerdict, reason?: string) => void;
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
      {approval.prediction && <PredictionNote prediction={approval.prediction} />}
      {approval.risk.reasons.length > 0 && (
        <ul
          className={`approval-risk${approval.risk.destructive ? ' destructive' : ''}`}
          data-testid="approval-risk"
        >
          {approval.risk.reasons.map((why) => (
            <li key={why}>
              {approval.risk.destructive ? '⚠ ' : ''}
              {why}
            </li>
          ))}
        </ul>
      )}
      {/* Abridged in the middle: a long value cannot push how it ends out of view. */}
      {approval.preview ? (
        <Preview preview={approval.preview} />
      ) : (
        // Abridged in the middle: a long value cannot push how it ends out of view.
        !compact && <pre className="json">{abridgedJson(approval.call.input)}</pre>
      )}
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
          className={approval.risk.destructive ? 'secondary' : 'primary'}
          data-destructive={approval.risk.destructive || undefined}
          onClick={() => onResolve(approval.id, 'approve')}
          title={shortcuts ? APPROVE_KEYS : undefined}
        >
          Approve{shortcuts && <kbd>{APPROVE_KEYS}</kbd>}
        </button>
        {approval.sessionApprovable && (
          <button
            type="button"
            onClick={() => onResolve(approval.id, 'approve-for-session')}
            title={
              (approval.sessionScope
                ? `Covers ${approval.sessionScope} for the rest of this session; anything else asks again`
                : 'Covers every call of this tool for the rest of this session') +
              (shortcuts ? ` (${APPROVE_SESSION_KEYS})` : '')
            }
          >
            {approval.sessionScope ? (
              <>
                Approve <code>{approval.sessionScope}</code> for session
              </>
            ) : (
              'Approve for session'
            )}
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
          title={shortcuts ? DENY_KEYS : undefined}
        >
          Deny{shortcuts && <kbd>{DENY_KEYS}</kbd>}
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
