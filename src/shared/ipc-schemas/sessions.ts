/** Conversations as the UI lists and replays them: sessions, messages, tool calls, runs, audit, search. */
import { z } from 'zod';
import { IdSchema, Iso, Json } from './common.js';

export const SessionSummarySchema = z.object({
  id: IdSchema,
  title: z.string(),
  createdAt: Iso,
  lastActivityAt: Iso,
  /** A run of this session is executing now. */
  busy: z.boolean(),
  /** The model option this conversation answers with (null: the default). */
  modelId: z.string().nullable(),
  /** The conversation and message this one was branched from ("Branch from here"). */
  branchedFrom: z
    /** `title` is null once the source was deleted. */
    .object({ sessionId: IdSchema, messageId: IdSchema, title: z.string().nullable() })
    .nullable(),
});
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

export const ChatBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('reasoning'), text: z.string() }),
  z.object({
    type: z.literal('tool_use'),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), Json),
  }),
  z.object({
    type: z.literal('tool_result'),
    toolUseId: z.string(),
    content: z.string(),
    isError: z.boolean(),
  }),
  z.object({
    type: z.literal('image'),
    mediaType: z.string(),
    /** The image's bytes as base64, for the transcript; absent when it is not a sniffed image. */
    data: z.string().optional(),
  }),
]);
export type ChatBlock = z.infer<typeof ChatBlockSchema>;

export const ChatMessageSchema = z.object({
  id: IdSchema,
  parentId: IdSchema.nullable(),
  runId: IdSchema.nullable(),
  role: z.enum(['user', 'assistant']),
  blocks: z.array(ChatBlockSchema),
  createdAt: Iso,
  /** Versions of this turn (messages with the same parent and role, oldest first, this one
   * included): regenerated replies and edited questions. */
  siblings: z.array(IdSchema),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const RiskTierSchema = z.enum(['safe', 'guarded', 'unsafe']);
export type RiskTier = z.infer<typeof RiskTierSchema>;

/** One tool call as the UI's card shows it, assembled from the store and the audit trail. */
export const ToolCallViewSchema = z.object({
  callId: z.string(),
  runId: IdSchema,
  name: z.string(),
  input: z.record(z.string(), Json),
  output: z.string().nullable(),
  status: z.enum(['requested', 'waiting_approval', 'running', 'ok', 'error', 'denied']),
  decision: z.enum(['allow', 'deny', 'ask']).nullable(),
  rule: z.string().nullable(),
  reason: z.string().nullable(),
  approvalBy: z.string().nullable(),
  durationMs: z.number().nullable(),
  readOnly: z.boolean(),
  tier: RiskTierSchema,
});
export type ToolCallView = z.infer<typeof ToolCallViewSchema>;

/** Where a background run came from: the channel (or schedule) and the sender on it. */
export const RunOriginSchema = z.object({
  channel: z.string(),
  type: z.string(),
  userId: z.string().optional(),
  chatId: z.string().optional(),
  schedule: z.string().optional(),
  queue: z.string().optional(),
  message: z.string().optional(),
  role: z.enum(['admin', 'user', 'viewer']).optional(),
});
export type RunOriginView = z.infer<typeof RunOriginSchema>;

export const RunSummarySchema = z.object({
  id: IdSchema,
  sessionId: IdSchema,
  goal: z.string(),
  state: z.string(),
  outcome: z.string().nullable(),
  reason: z.string().nullable(),
  turns: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  createdAt: Iso,
  updatedAt: Iso,
  live: z.boolean(),
  /** The run that started this one (a sub-agent's parent); null for a top-level run. */
  parentRunId: IdSchema.nullable(),
  /** Null: a person started it at a window or terminal. */
  origin: RunOriginSchema.nullable().optional(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export const StepViewSchema = z.object({
  id: IdSchema,
  idx: z.number(),
  kind: z.enum(['model', 'tools']),
  startedAt: Iso,
  endedAt: Iso.nullable(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
});
export type StepView = z.infer<typeof StepViewSchema>;

export const AuditEntrySchema = z.object({
  id: z.number(),
  at: Iso,
  runId: z.string(),
  stepId: z.string().nullable(),
  callId: z.string().nullable(),
  tool: z.string().nullable(),
  event: z.string(),
  decision: z.string().nullable(),
  rule: z.string().nullable(),
  reason: z.string().nullable(),
  approvalBy: z.string().nullable(),
  status: z.string().nullable(),
  detail: Json,
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const SessionHistorySchema = z.object({
  session: SessionSummarySchema,
  messages: z.array(ChatMessageSchema),
  toolCalls: z.array(ToolCallViewSchema),
  runs: z.array(RunSummarySchema),
});
export type SessionHistory = z.infer<typeof SessionHistorySchema>;

/** A past chat found by search: a message (with a snippet) or a title. */
export const SearchHitSchema = z.object({
  sessionId: IdSchema,
  title: z.string(),
  /** null when the title matched rather than a message. */
  messageId: IdSchema.nullable(),
  role: z.enum(['user', 'assistant']).nullable(),
  at: Iso,
  /** The words around the match; matched words sit between \u0002 and \u0003. */
  snippet: z.string(),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

export const RunDetailSchema = z.object({
  run: RunSummarySchema,
  steps: z.array(StepViewSchema),
  toolCalls: z.array(ToolCallViewSchema),
  audit: z.array(AuditEntrySchema),
  /** The sub-agents this run started (agents/delegate), oldest first. */
  children: z.array(RunSummarySchema),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;
