/**
 * What a native approval dialog says: the tool, a short summary of its arguments, why it needs
 * approval (the risk) and the rule that asked. Buttons map to broker verdicts; Deny is both the
 * default button and what closing the dialog means (deny by default).
 */
import { summarizeArguments } from '../../../shared/abridge.js';
import { predictionLine } from '../../../shared/format.js';
import { type ApprovalVerdict, sessionGrantText } from '../policy/index.js';

/**
 * What the dialog needs from a pending approval: the broker's PendingApproval and the IPC
 * contract's PendingApprovalView both fit.
 */
export interface RoutedApproval {
  id: string;
  call: { name: string; input: Record<string, unknown> };
  reason: string;
  rule?: string | null;
  /** The tool's risk tier when known (safe / guarded / unsafe). */
  tier?: string;
  sessionApprovable: boolean;
  /** What a session grant covers (the view's label, or the broker's scope); absent: every call. */
  sessionScope?: string | { label: string } | null;
  expiresAt?: string | null;
  /** A declared world model's expectation of the call. */
  prediction?: Parameters<typeof predictionLine>[0] | null;
}

export interface ApprovalDialogModel {
  title: string;
  message: string;
  detail: string;
  buttons: string[];
  /** verdicts[i] is what buttons[i] answers. */
  verdicts: ApprovalVerdict[];
  defaultId: number;
  cancelId: number;
}

export interface ApprovalNotice {
  title: string;
  body: string;
}

export function approvalDialog(pending: RoutedApproval, now = new Date()): ApprovalDialogModel {
  const verdicts: ApprovalVerdict[] = pending.sessionApprovable
    ? ['approve', 'approve-for-session', 'deny']
    : ['approve', 'deny'];
  const labels: Record<ApprovalVerdict, string> = {
    approve: 'Approve',
    'approve-for-session': 'Approve for this session',
    deny: 'Deny',
  };
  const deny = verdicts.indexOf('deny');
  const lines = [
    `Arguments: ${summarizeArguments(pending.call.input)}`,
    `Risk: ${pending.tier ? `${pending.tier}: ` : ''}${pending.reason}`,
    `Rule: ${pending.rule ?? '(default policy)'}`,
  ];
  if (pending.prediction) lines.push(predictionLine(pending.prediction));
  if (pending.sessionApprovable)
    lines.push(
      `Approve for session covers ${sessionGrantText(pending.call.name, typeof pending.sessionScope === 'string' ? pending.sessionScope : pending.sessionScope?.label)}; anything else asks again.`,
    );
  else lines.push('This call asks every time.');
  const left = pending.expiresAt ? timeLeft(pending.expiresAt, now) : null;
  if (left) lines.push(`Unanswered, it is denied in ${left}.`);
  return {
    title: 'Pincer: approval needed',
    message: `Allow the tool "${pending.call.name}" to run?`,
    detail: lines.join('\n'),
    buttons: verdicts.map((verdict) => labels[verdict]),
    verdicts,
    defaultId: deny,
    cancelId: deny,
  };
}

export function approvalNotice(pending: RoutedApproval): ApprovalNotice {
  return {
    title: 'Pincer needs your approval',
    body: `${pending.call.name}: ${pending.reason}`,
  };
}

function timeLeft(expiresAt: string, now: Date): string | null {
  const ms = Date.parse(expiresAt) - now.getTime();
  if (!Number.isFinite(ms) || ms <= 0) return null;
  const seconds = Math.ceil(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
}
