/**
 * The approval broker: every approval the runtime asks for waits here until one surface (the
 * terminal now; the UI, native dialogs and JSON-RPC later) answers, or its timeout applies the
 * rule's default (deny unless the rule says otherwise). The first answer wins; a late or second
 * answer is refused, so two surfaces approving at once resolve a call once.
 */
import { EventEmitter } from 'node:events';
import type { SessionId } from '../terms.js';
import type { ApprovalAnswer, ApprovalHook, ApprovalRequest } from './hooks.js';
import type { SessionScope } from './session-scope.js';

export type ApprovalVerdict = 'approve' | 'deny' | 'approve-for-session';

/** What a surface shows: the runtime's request without its signal and timeout mechanics. */
export type PendingApproval = Pick<
  ApprovalRequest,
  'id' | 'runId' | 'sessionId' | 'call' | 'reason' | 'rule' | 'prediction'
> & {
  sessionApprovable: boolean;
  /** What "approve for session" covers; absent: every call of the tool in the session. */
  sessionScope?: SessionScope;
  expiresAt?: string;
  /** The rule's answer when nobody answers in time (a surface-less server applies it at once). */
  defaultIfTimeout?: 'allow' | 'deny';
};

/** What a session grant covers, as surfaces say it: `git status …`, or every call of the tool. */
export function sessionGrantText(tool: string, scopeLabel: string | null | undefined): string {
  return scopeLabel ? `\`${scopeLabel}\`` : `every ${tool} call`;
}

function grantKey(sessionId: SessionId, tool: string, scope: string | undefined): string {
  return JSON.stringify([sessionId, tool, scope ?? null]);
}

export type ResolveResult = 'resolved' | 'unknown' | 'already_resolved' | 'not_session_approvable';

interface Waiting {
  pending: PendingApproval;
  settle: (answer: ApprovalAnswer) => void;
}

/** Default answer time when a rule gives none. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;

export class ApprovalBroker implements ApprovalHook {
  private readonly waiting = new Map<string, Waiting>();
  private readonly finished = new Set<string>();
  /** Session, tool and scope triples approved for the rest of a session. */
  private readonly sessionGrants = new Set<string>();
  private readonly emitter = new EventEmitter();

  /** Surfaces subscribe to show each new approval. */
  onRequest(listener: (pending: PendingApproval) => void): () => void {
    this.emitter.on('request', listener);
    return () => this.emitter.off('request', listener);
  }

  onResolved(listener: (id: string, answer: ApprovalAnswer) => void): () => void {
    this.emitter.on('resolved', listener);
    return () => this.emitter.off('resolved', listener);
  }

  pending(): PendingApproval[] {
    return [...this.waiting.values()].map((w) => w.pending);
  }

  /** `scope` is the call's SessionScope key: a grant covers only the same values. */
  isApprovedForSession(sessionId: SessionId, tool: string, scope?: string): boolean {
    return this.sessionGrants.has(grantKey(sessionId, tool, scope));
  }

  request(approval: ApprovalRequest): Promise<ApprovalAnswer> {
    const timeoutMs = approval.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    const pending: PendingApproval = {
      id: approval.id,
      runId: approval.runId,
      sessionId: approval.sessionId,
      call: approval.call,
      reason: approval.reason,
      rule: approval.rule,
      sessionApprovable: approval.sessionApprovable === true,
      ...(approval.sessionScope ? { sessionScope: approval.sessionScope } : {}),
      ...(approval.prediction ? { prediction: approval.prediction } : {}),
      expiresAt: new Date(Date.now() + timeoutMs).toISOString(),
      defaultIfTimeout: approval.defaultIfTimeout === 'allow' ? 'allow' : 'deny',
    };
    return new Promise<ApprovalAnswer>((resolve) => {
      const timer = setTimeout(() => {
        const allow = approval.defaultIfTimeout === 'allow';
        this.finish(approval.id, { approved: allow, by: 'timeout', timedOut: true });
      }, timeoutMs);
      const onAbort = () => this.finish(approval.id, { approved: false, by: 'cancelled' });
      approval.signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(approval.id, {
        pending,
        settle: (answer) => {
          clearTimeout(timer);
          approval.signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      });
      this.emitter.emit('request', pending);
    });
  }

  /** An answer from a surface; `by` names who answered (e.g. "terminal", "ui:alice"). */
  resolve(id: string, verdict: ApprovalVerdict, by: string): ResolveResult {
    const waiting = this.waiting.get(id);
    if (!waiting) return this.finished.has(id) ? 'already_resolved' : 'unknown';
    if (verdict === 'approve-for-session') {
      if (!waiting.pending.sessionApprovable) return 'not_session_approvable';
      const { sessionId, call, sessionScope } = waiting.pending;
      this.sessionGrants.add(grantKey(sessionId, call.name, sessionScope?.key));
    }
    this.finish(id, { approved: verdict !== 'deny', by });
    return 'resolved';
  }

  private finish(id: string, answer: ApprovalAnswer): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    this.waiting.delete(id);
    this.finished.add(id);
    waiting.settle(answer);
    this.emitter.emit('resolved', id, answer);
  }
}
