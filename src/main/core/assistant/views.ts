/**
 * Rows of the run store and the audit trail turned into the contract's views. Pure functions:
 * the assistant fetches, these shape; nothing here reaches the file system.
 */

import { imageDataUrl } from '../../../shared/images.js';
import type {
  AuditEntry,
  ChatBlock,
  ChatMessage,
  RiskTier,
  RunSummary,
  ToolCallView,
} from '../../../shared/ipc-schemas.js';
import { type ContentBlock, toolDisplayName } from '../../../shared/messages.js';
import type { AuditRow } from '../runtime/index.js';
import { originOf, type RunRow, type StoredMessage, type ToolCallRow } from '../runtime/index.js';

/** Tool output the UI shows inline; the full result stays in the store. */
export const MAX_OUTPUT_CHARS = 16_000;

export function clip(text: string, max = MAX_OUTPUT_CHARS): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}

export function blockView(block: ContentBlock): ChatBlock {
  switch (block.type) {
    case 'text':
    case 'reasoning':
      return { type: block.type, text: block.text };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id,
        name: toolDisplayName(block.name),
        input: block.input,
      };
    case 'tool_result':
      return {
        type: 'tool_result',
        toolUseId: block.toolUseId,
        content: clip(
          typeof block.content === 'string'
            ? block.content
            : block.content
                .map((part) => (part.type === 'text' ? part.text : '[image]'))
                .join('\n'),
        ),
        isError: block.isError === true,
      };
    case 'image':
      // The bytes travel only when they really are the image type they are stored as.
      return imageDataUrl(block.mediaType, block.data) === null
        ? { type: 'image', mediaType: block.mediaType }
        : { type: 'image', mediaType: block.mediaType, data: block.data };
  }
}

export function messageView(stored: StoredMessage): ChatMessage {
  return {
    id: stored.id,
    parentId: stored.parentId,
    runId: stored.runId,
    role: stored.message.role,
    blocks: stored.message.content.map(blockView),
    createdAt: stored.createdAt,
    siblings: [stored.id],
  };
}

export function runSummary(run: RunRow, live: boolean): RunSummary {
  return {
    id: run.id,
    sessionId: run.sessionId,
    goal: run.goal,
    state: run.state,
    outcome: run.outcome,
    reason: run.reason,
    turns: run.turns,
    inputTokens: run.usage.inputTokens,
    outputTokens: run.usage.outputTokens,
    costUsd: run.costUsd,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    live,
    parentRunId: run.parentRunId ?? null,
    origin: originOf(run) ?? null,
  };
}

/**
 * The audit detail a UI may see: timings, ids and flags. A grant's resolved paths point into
 * the data directory (a path the user never chose), so grants stay in the audit log.
 */
function auditDetail(detail: unknown): unknown {
  if (typeof detail !== 'object' || detail === null) return null;
  const { granted: _granted, ...rest } = detail as Record<string, unknown>;
  return Object.keys(rest).length ? rest : null;
}

export function auditEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: row.at,
    runId: row.runId,
    stepId: row.stepId,
    callId: row.callId,
    tool: row.tool,
    event: row.event,
    decision: row.decision,
    rule: row.rule,
    reason: row.reason,
    approvalBy: row.approvalBy,
    status: row.status,
    detail: auditDetail(row.detail),
  };
}

/**
 * A run's tool calls as cards: what was asked (store), what the policy said and who approved
 * (audit), how it ended and how long it took (audit's `finished` row).
 */
export function toolCallViews(
  runId: string,
  calls: ToolCallRow[],
  audit: AuditRow[],
  live: boolean,
  tierOf: (name: string) => RiskTier,
): ToolCallView[] {
  return calls.map((call) => {
    const rows = audit.filter((row) => row.callId === call.callId);
    const decided = rows.findLast((row) => row.event === 'decided');
    const asked = rows.some((row) => row.event === 'approval_requested');
    const answered = rows.findLast((row) => row.event === 'approval_resolved');
    const finished = rows.findLast((row) => row.event === 'finished');
    const detail = (finished?.detail ?? {}) as { duration_ms?: number };
    let status: ToolCallView['status'];
    if (finished?.status === 'ok' || finished?.status === 'error' || finished?.status === 'denied')
      status = finished.status;
    else if (call.status === 'completed' || call.status === 'interrupted')
      status = call.isError ? 'error' : 'ok';
    else if (!live) status = 'error';
    else if (call.status === 'started') status = 'running';
    else if (asked && !answered) status = 'waiting_approval';
    else status = 'requested';
    return {
      callId: call.callId,
      runId,
      name: toolDisplayName(call.name),
      input: call.input,
      output: call.result === null ? null : clip(call.result),
      status,
      decision: (decided?.decision as ToolCallView['decision']) ?? null,
      rule: decided?.rule ?? null,
      reason:
        answered?.decision === 'denied'
          ? `not approved (${answered.approvalBy})`
          : (decided?.reason ?? null),
      approvalBy: answered?.approvalBy ?? null,
      durationMs: typeof detail.duration_ms === 'number' ? detail.duration_ms : null,
      readOnly: call.readOnly,
      tier: tierOf(call.name),
    };
  });
}
