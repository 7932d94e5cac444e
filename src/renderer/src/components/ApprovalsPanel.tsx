/**
 * Every approval waiting for an answer, oldest first, whichever session asked; and the forms MCP
 * servers asked in conversations other than the one in view (that one shows them in the chat).
 */
import type { PendingApprovalView, PendingInputView } from '../../../shared/ipc';
import { ApprovalCard, type ApprovalVerdict } from './ApprovalCard';
import { type InputAction, InputCard, type InputContent } from './InputCard';

export function ApprovalsPanel({
  approvals,
  inputs = [],
  onAnswerInput,
  sessionTitle,
  onResolve,
  onOpenSession,
  keyTarget,
}: {
  /** The approval the keyboard answers (the conversation in view's oldest). */
  keyTarget: string | null;
  approvals: PendingApprovalView[];
  inputs?: PendingInputView[];
  onAnswerInput?: (id: string, action: InputAction, content?: InputContent) => Promise<string[]>;
  sessionTitle: (id: string) => string;
  onResolve: (id: string, verdict: ApprovalVerdict, reason?: string) => void;
  onOpenSession: (id: string) => void;
}) {
  return (
    <aside className="approvals-panel" aria-label="Approvals">
      <h2>
        Approvals <span className="count">{approvals.length}</span>
      </h2>
      {onAnswerInput &&
        inputs.map((input) => (
          <div key={input.id} className="approval-item">
            <button
              type="button"
              className="link small"
              onClick={() => onOpenSession(input.sessionId)}
            >
              in “{sessionTitle(input.sessionId)}”
            </button>
            <InputCard input={input} onAnswer={onAnswerInput} />
          </div>
        ))}
      {approvals.length === 0 && inputs.length === 0 ? (
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
