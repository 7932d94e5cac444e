/**
 * The oldest pending approval, answered here as in the UI's card: approve, approve for the rest
 * of the session (where the rule allows it), or deny with an optional reason told to the model.
 * Whichever surface answers first wins; a late answer here is told so.
 */
import { Box, Text } from 'ink';
import { useRef, useState } from 'react';
import type { PendingApprovalView, RequestOf } from '../../../shared/ipc.js';
import { fieldKey, useRawInput } from './keys.js';
import { safe } from './safe-text.js';
import { callNotation } from './state.js';

type Verdict = RequestOf<'approvals.resolve'>['verdict'];

const TIER_COLOR = { safe: 'green', guarded: 'yellow', unsafe: 'red' } as const;

export function ApprovalPrompt({
  approval,
  waiting,
  active,
  onAnswer,
  onDefer,
}: {
  approval: PendingApprovalView;
  /** How many more wait behind this one. */
  waiting: number;
  active: boolean;
  onAnswer(verdict: Verdict, reason?: string): void;
  /** Esc: answer later (the approvals view, F6, still asks it). */
  onDefer(): void;
}) {
  // In a ref too: two keys read before React re-renders both see the reason so far.
  const reasonNow = useRef<string | null>(null);
  const [reason, setShownReason] = useState<string | null>(null);
  const setReason = (change: string | null | ((current: string) => string)) => {
    reasonNow.current = typeof change === 'function' ? change(reasonNow.current ?? '') : change;
    setShownReason(reasonNow.current);
  };
  // As in the UI, a destructive call is not approved by the usual key: here it takes Shift.
  const { destructive } = approval.risk;
  const approveKey = destructive ? 'Y' : 'y';
  const sessionKey = destructive ? 'S' : 's';
  // Read from the raw sequences, attached in the commit that draws the prompt: an answer typed
  // the moment it appears is not lost (Ink's useInput would attach a tick later).
  useRawInput((sequence) => {
    if (!active) return;
    const key = fieldKey(sequence);
    const typed = reasonNow.current;
    if (typed !== null) {
      if (key.kind === 'enter') {
        onAnswer('deny', typed.trim() || undefined);
        setReason(null);
      } else if (key.kind === 'escape') setReason(null);
      else if (key.kind === 'backspace') setReason((r) => r.slice(0, -1));
      else if (key.kind === 'text') setReason((r) => r + key.text);
      return;
    }
    if (key.kind === 'escape') return onDefer();
    if (sequence === approveKey) onAnswer('approve');
    else if (sequence === sessionKey && approval.sessionApprovable) onAnswer('approve-for-session');
    else if (sequence.toLowerCase() === 'n') setReason('');
  });
  return (
    <Box flexDirection="column" borderStyle="double" borderColor="yellow" paddingX={1}>
      <Text>
        <Text bold color="yellow">
          Approve?{' '}
        </Text>
        <Text color="blue">{safe(callNotation(approval.call.name, approval.call.input))}</Text>
      </Text>
      {/* One row (the layout counts it so): the risk first, the rule's wording cut if need be. */}
      <Text wrap="truncate-end">
        <Text dimColor>risk: </Text>
        <Text color={TIER_COLOR[approval.tier]}>{approval.tier}</Text>
        {approval.risk.reasons.length > 0 ? (
          <Text color={destructive ? 'red' : 'yellow'}>
            {' · '}
            {destructive ? '⚠ ' : ''}
            {safe(approval.risk.reasons.join('; '))}
          </Text>
        ) : null}
        {waiting > 0 ? <Text dimColor> · {waiting} more waiting</Text> : null}
        <Text dimColor> · why: </Text>
        {safe(approval.reason)}
        {approval.rule ? <Text dimColor> (rule {safe(approval.rule)})</Text> : null}
      </Text>
      {reason === null ? (
        <Text>
          <Text bold>[{approveKey}]</Text> approve{'  '}
          {approval.sessionApprovable ? (
            <>
              <Text bold>[{sessionKey}]</Text> approve{' '}
              {safe(
                approval.sessionScope ? `\`${approval.sessionScope}\`` : 'every call of this tool',
              )}{' '}
              for session{'  '}
            </>
          ) : null}
          <Text bold>[n]</Text> deny{'  '}
          <Text dimColor>Esc: answer later (F6)</Text>
        </Text>
      ) : (
        <Text>
          Reason for the model (Enter denies, Esc goes back): {safe(reason)}
          <Text inverse> </Text>
        </Text>
      )}
    </Box>
  );
}
