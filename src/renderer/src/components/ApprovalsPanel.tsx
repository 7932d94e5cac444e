/** Every approval waiting for an answer, oldest first, whichever session asked. */
import type { PendingApprovalView } from '../../../shared/ipc';
import { ApprovalCard, type Verdict } from './ApprovalCard';

export function ApprovalsPanel({
  approvals,
  sessionTitle,
  onResolve,
  onOpenSession,
  keyTarget,
}: {
  /** The approval the keyboard answers (the conversation in view's oldest). */
  keyTarget: string | null;
  approvals: PendingApprovalView[];
  sessionTitle: (id: string) => string;
  onResolve: (id: string, verdict: Verdict, reason?: string) => void;
  onOpenSession: (id: string) => void;
}) {
  return (
    <aside className="approvals-panel" aria-label="Approvals">
      <h2>
        Approvals <span className="count">{approvals.length}</span>
      </h2>
      {approvals.length === 0 ? (
        <p className="muted">Nothing is waiting for you. Tools that need your say appear here.</p>
      ) : (
        approvals.map((approval) => (
          <div key={approval.id} className="approval-item">
            <button
              type="button"
              className="link small"
              onClick={() => onOpenSession(approval.sessionId)}
            >
              in “{sessionTitle(approval.sessionId)}”
            </button>
            <ApprovalCard
              approval={approval}
              onResolve={onResolve}
              shortcuts={approval.id === keyTarget}
            />
          </div>
        ))
      )}
    </aside>
  );
}
