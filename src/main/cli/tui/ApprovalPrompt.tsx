/**
 * The oldest pending approval, answered here as in the UI's card: approve, approve for the rest
 * of the session (where the rule allows it), or deny with an optional reason told to the model.
 * Whichever surface answers first wins; a late answer here is told so.
 */
import { Box, Text } from 'ink';
import { useRef, useState } from 'react';
import { predictionLine } from '../../../shared/format.js';
import type { ApprovalPreview, PendingApprovalView, RequestOf } from '../../../shared/ipc.js';
import { fieldKey, useRawInput } from './keys.js';
import { safe } from './safe-text.js';
import { callNotation } from './state.js';

type ApprovalVerdict = RequestOf<'approvals.resolve'>['verdict'];

const TIER_COLOR = { safe: 'green', guarded: 'yellow', unsafe: 'red' } as const;

/** The prompt's rows besides the preview: border (2), the call, the risk line and the keys. */
export const PROMPT_ROWS = 5;

export interface PreviewLine {
  text: string;
  color?: 'green' | 'red' | 'cyan' | 'gray';
}

/**
 * What the call will do, as the UI's card shows it, in at most `max` one-row lines: the command
 * line with its folder and what the sandbox allows, a write's diff, a fetch's address. A longer
 * diff ends with how many lines were left out.
 */
export function previewLines(preview: ApprovalPreview | null, max: number): PreviewLine[] {
  if (!preview || max <= 0) return [];
  const lines: PreviewLine[] = [];
  if (preview.kind === 'command') {
    lines.push({ text: `$ ${preview.command}` });
    lines.push({ text: `in ${preview.cwd}`, color: 'gray' });
    if (preview.sandbox.length > 0)
      lines.push({ text: `sandbox: ${preview.sandbox.join('; ')}`, color: 'gray' });
  } else if (preview.kind === 'fetch') {
    lines.push({ text: `fetch ${preview.url}` });
  } else {
    lines.push({ text: `${preview.change} ${preview.path}` });
    const diff = preview.diff
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('---') && !line.startsWith('+++'));
    for (const line of diff) {
      const color = line.startsWith('+')
        ? 'green'
        : line.startsWith('-')
          ? 'red'
          : line.startsWith('@@')
            ? 'cyan'
            : undefined;
      lines.push(color ? { text: line, color } : { text: line });
    }
    if (preview.truncated) lines.push({ text: '… (the diff was cut short)', color: 'gray' });
  }
  if (lines.length <= max) return lines;
  const kept = lines.slice(0, max - 1);
  return [...kept, { text: `… ${lines.length - kept.length} more lines`, color: 'gray' }];
}

export function ApprovalPrompt({
  approval,
  waiting,
  active,
  previewRows = 6,
  onAnswer,
  onDefer,
}: {
  approval: PendingApprovalView;
  /** The most rows the preview may take (the dashboard counts them into its layout). */
  previewRows?: number;
  /** How many more wait behind this one. */
  waiting: number;
  active: boolean;
  onAnswer(verdict: ApprovalVerdict, reason?: string): void;
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
      {previewLines(approval.preview, previewRows).map((line, index) => (
        // One row each (the layout counts them); a long line is cut, not wrapped.
        // biome-ignore lint/suspicious/noArrayIndexKey: the lines are positional and fixed
        <Text key={index} wrap="truncate-end" {...(line.color ? { color: line.color } : {})}>
          {safe(line.text)}
        </Text>
      ))}
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
        {approval.prediction ? (
          <Text {...(approval.prediction.risk === 'high' ? { color: 'red' } : {})}>
            {' · '}
            {safe(predictionLine(approval.prediction))}
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
