/** The pieces of a conversation: user bubbles, stored and streaming replies, run notices. */
import type { ChatMessage, PendingApprovalView, ToolCallView } from '../../../shared/ipc';
import type { LiveRun } from '../../../shared/live-run';
import { ApprovalCard, type Verdict } from './ApprovalCard';
import { Logo } from './Icons';
import { Markdown } from './Markdown';
import { ToolCard, type ToolCardData } from './ToolCard';

const OUTCOME_TEXT: Record<string, string> = {
  cancelled: 'Stopped',
  max_turns: 'Stopped: too many model calls',
  max_tokens: 'Stopped: token limit',
  max_cost: 'Stopped: cost limit',
  repeated_tool_call: 'Stopped: the same tool call repeated',
  run_timeout: 'Stopped: took too long',
  turn_timeout: 'Stopped: the model took too long',
  model_error: 'The model failed',
  denied: 'Denied',
  interrupted: 'Interrupted',
};

export function RunNotice({ outcome, reason }: { outcome: string; reason: string | null }) {
  if (outcome === 'completed') return null;
  return (
    <p className={`run-notice outcome-${outcome}`} role="status" data-testid="run-notice">
      {OUTCOME_TEXT[outcome] ?? outcome}
      {reason && outcome !== 'cancelled' ? `: ${reason}` : ''}
    </p>
  );
}

function Reasoning({ text, open }: { text: string; open: boolean }) {
  return (
    <details className="reasoning" open={open}>
      <summary>Reasoning</summary>
      <p>{text}</p>
    </details>
  );
}

function ToolWithApproval({
  call,
  approvals,
  onResolve,
}: {
  call: ToolCardData & { approvalId?: string | null };
  approvals: PendingApprovalView[];
  onResolve: (id: string, verdict: Verdict, reason?: string) => void;
}) {
  const approval = approvals.find(
    (a) => a.id === call.approvalId || (a.call.id === call.callId && a.runId === call.runId),
  );
  return (
    <ToolCard call={call}>
      {approval && call.status === 'waiting_approval' && (
        <ApprovalCard approval={approval} onResolve={onResolve} compact />
      )}
    </ToolCard>
  );
}

export function UserBubble({ text }: { text: string }) {
  return (
    <div className="message user" data-testid="user-message">
      <div className="bubble">{text}</div>
    </div>
  );
}

export function StoredAssistant({
  message,
  tools,
  approvals,
  showReasoning,
  onResolve,
  onBranch,
}: {
  message: ChatMessage;
  tools: Map<string, ToolCallView>;
  approvals: PendingApprovalView[];
  showReasoning: boolean;
  onResolve: (id: string, verdict: Verdict, reason?: string) => void;
  onBranch: () => void;
}) {
  return (
    <div className="message assistant" data-testid="assistant-message">
      <div className="avatar" aria-hidden="true">
        <Logo size={30} />
      </div>
      <div className="assistant-body">
        {message.blocks.map((block, index) => {
          const key = `${message.id}.${index}`;
          if (block.type === 'text') return <Markdown key={key} text={block.text} />;
          if (block.type === 'reasoning')
            return showReasoning ? <Reasoning key={key} text={block.text} open={false} /> : null;
          if (block.type === 'tool_use') {
            const call = tools.get(block.id) ?? {
              callId: block.id,
              runId: message.runId ?? '',
              name: block.name,
              input: block.input,
              output: null,
              status: 'requested' as const,
              decision: null,
              rule: null,
              reason: null,
              approvalBy: null,
              durationMs: null,
              readOnly: false,
            };
            return (
              <ToolWithApproval key={key} call={call} approvals={approvals} onResolve={onResolve} />
            );
          }
          return null;
        })}
        <div className="message-actions">
          <button
            type="button"
            className="ghost small"
            onClick={onBranch}
            title="A new session from this point"
          >
            Branch from here
          </button>
        </div>
      </div>
    </div>
  );
}

export function LiveAssistant({
  live,
  approvals,
  showReasoning,
  onResolve,
}: {
  live: LiveRun;
  approvals: PendingApprovalView[];
  showReasoning: boolean;
  onResolve: (id: string, verdict: Verdict, reason?: string) => void;
}) {
  const thinking = live.items.length === 0 && !live.finished;
  return (
    <div
      className="message assistant live"
      data-testid="assistant-message"
      aria-busy={!live.finished}
    >
      <div className="avatar" aria-hidden="true">
        <Logo size={30} />
      </div>
      <div className="assistant-body">
        {thinking && (
          <p className="typing" role="status">
            <span />
            <span />
            <span />
            <span className="sr-only">Pincer is thinking</span>
          </p>
        )}
        {live.items.map((item, index) => {
          const key = `live.${index}`;
          if (item.kind === 'text') return <Markdown key={key} text={item.text} />;
          if (item.kind === 'reasoning')
            return showReasoning ? <Reasoning key={key} text={item.text} open /> : null;
          const call = live.tools[item.callId];
          return call ? (
            <ToolWithApproval key={key} call={call} approvals={approvals} onResolve={onResolve} />
          ) : null;
        })}
        {live.finished && (
          <RunNotice outcome={live.finished.outcome} reason={live.finished.reason} />
        )}
      </div>
    </div>
  );
}
