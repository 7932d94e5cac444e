/**
 * The oldest pending approval, answered here as in the UI's card: approve, approve for the rest
 * of the session (where the rule allows it), or deny with an optional reason told to the model.
 * Whichever surface answers first wins; a late answer here is told so.
 */
import { Box, Text, useInput } from 'ink';
import { useState } from 'react';
import type { PendingApprovalView, RequestOf } from '../../../shared/ipc.js';
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
  const [reason, setReason] = useState<string | null>(null);
  useInput(
    (input, key) => {
      if (reason !== null) {
        if (key.return) {
          onAnswer('deny', reason.trim() || undefined);
          setReason(null);
        } else if (key.escape) setReason(null);
        else if (key.backspace || key.delete) setReason((r) => (r ?? '').slice(0, -1));
        else if (!key.ctrl && !key.meta && input)
          setReason((r) => (r ?? '') + input.replace(/[\r\n]+/g, ' '));
        return;
      }
      if (key.escape) {
        onDefer();
        return;
      }
      const answer = input.toLowerCase();
      if (answer === 'y') onAnswer('approve');
      else if (answer === 's' && approval.sessionApprovable) onAnswer('approve-for-session');
      else if (answer === 'n') setReason('');
    },
    { isActive: active },
  );
  return (
    <Box flexDirection="column" borderStyle="double" borderColor="yellow" paddingX={1}>
      <Text>
        <Text bold color="yellow">
          Approve?{' '}
        </Text>
        <Text color="blue">{safe(callNotation(approval.call.name, approval.call.input))}</Text>
      </Text>
      <Text>
        <Text dimColor>why: </Text>
        {safe(approval.reason)}
        {approval.rule ? <Text dimColor> (rule {safe(approval.rule)})</Text> : null}
        <Text dimColor> risk: </Text>
        <Text color={TIER_COLOR[approval.tier]}>{approval.tier}</Text>
        {waiting > 0 ? <Text dimColor> · {waiting} more waiting</Text> : null}
      </Text>
      {reason === null ? (
        <Text>
          <Text bold>[y]</Text> approve{'  '}
          {approval.sessionApprovable ? (
            <>
              <Text bold>[s]</Text> approve{' '}
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
