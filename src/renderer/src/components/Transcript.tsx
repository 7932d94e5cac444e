/** The pieces of a conversation: user bubbles, stored and streaming replies, run notices. */
import { type ReactNode, useState } from 'react';
import {
  type ChatMessage,
  imageDataUrl,
  type PendingApprovalView,
  type ToolCallView,
} from '../../../shared/ipc';
import type { LiveRun } from '../../../shared/live-run';
import { ApprovalCard, type ApprovalVerdict } from './ApprovalCard';
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

export function RunNotice({
  outcome,
  reason,
  children,
}: {
  outcome: string;
  reason: string | null;
  /** What can be done about it: Retry after an error, Continue after Stop. */
  children?: ReactNode;
}) {
  if (outcome === 'completed') return null;
  const notice = (
    <p className={`run-notice outcome-${outcome}`} role="status" data-testid="run-notice">
      {OUTCOME_TEXT[outcome] ?? outcome}
      {reason && outcome !== 'cancelled' ? `: ${reason}` : ''}
    </p>
  );
  if (!children) return notice;
  return (
    <div className="run-notice-row">
      {notice}
      {children}
    </div>
  );
}

/** Copies text to the clipboard and says so for a moment. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="ghost small"
      aria-label={label}
      onClick={() =>
        void navigator.clipboard.writeText(text).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        })
      }
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** ‹ 2 / 3 ›: which version of a turn is shown. */
export function VersionArrows({
  siblings,
  current,
  onShow,
}: {
  siblings: string[];
  current: string;
  onShow: (id: string) => void;
}) {
  if (siblings.length < 2) return null;
  const index = siblings.indexOf(current);
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  return (
    <span className="versions" data-testid="versions">
      <button
        type="button"
        className="ghost small"
        aria-label="Previous version"
        disabled={!previous}
        onClick={() => previous && onShow(previous)}
      >
        ‹
      </button>
      <span data-testid="version-index">
        {index + 1} / {siblings.length}
      </span>
      <button
        type="button"
        className="ghost small"
        aria-label="Next version"
        disabled={!next}
        onClick={() => next && onShow(next)}
      >
        ›
      </button>
    </span>
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
  onResolve: (id: string, verdict: ApprovalVerdict, reason?: string) => void;
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

/** An image of a message as the transcript shows it: only bytes that sniff as their type. */
export interface ShownImage {
  mediaType: string;
  data?: string;
}

export function UserBubble({
  text,
  images = [],
  children,
}: {
  text: string;
  images?: readonly ShownImage[];
  children?: ReactNode;
}) {
  return (
    <div className="user-turn">
      <div className="message user" data-testid="user-message">
        {images.length > 0 && (
          <div className="message-images">
            {images.map((image, index) => {
              const src = image.data ? imageDataUrl(image.mediaType, image.data) : null;
              const label = `Image ${index + 1} of the message`;
              return src ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: a message's images never move
                <img key={index} src={src} alt={label} data-testid="message-image" />
              ) : (
                // biome-ignore lint/suspicious/noArrayIndexKey: a message's images never move
                <span key={index} className="muted">
                  [image]
                </span>
              );
            })}
          </div>
        )}
        <div className="bubble">{text}</div>
      </div>
      {children && <div className="message-actions user-actions">{children}</div>}
    </div>
  );
}

/** Edit and resend: the question again, changed; the old version stays beside it. */
export function EditBubble({
  text,
  onSend,
  onCancel,
}: {
  text: string;
  onSend: (text: string) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(text);
  return (
    <form
      className="message user edit-bubble"
      onSubmit={(event) => {
        event.preventDefault();
        if (draft.trim()) onSend(draft.trim());
      }}
    >
      <textarea
        aria-label="Edit message"
        value={draft}
        maxLength={100_000}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onCancel();
        }}
      />
      <div className="row">
        <button type="button" className="ghost small" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary small" disabled={!draft.trim()}>
          Send
        </button>
      </div>
    </form>
  );
}

export function StoredAssistant({
  message,
  tools,
  approvals,
  showReasoning,
  onResolve,
  onBranch,
  actions,
}: {
  /** Copy, Regenerate and the like, shown with Branch from here. */
  actions?: ReactNode;
  message: ChatMessage;
  tools: Map<string, ToolCallView>;
  approvals: PendingApprovalView[];
  showReasoning: boolean;
  onResolve: (id: string, verdict: ApprovalVerdict, reason?: string) => void;
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
          {actions}
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
  onResolve: (id: string, verdict: ApprovalVerdict, reason?: string) => void;
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
          if (item.kind === 'notice')
            return (
              <p key={key} className="run-notice" role="status" data-testid="context-notice">
                {item.text}
              </p>
            );
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
