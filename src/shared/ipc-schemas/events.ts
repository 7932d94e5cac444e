/** What the core pushes: the runtime's run events and the assistant's events, as they cross the door. */
import { z } from 'zod';
import { PendingApprovalViewSchema, PendingInputViewSchema } from './approvals.js';
import { BackgroundViewSchema } from './channels.js';
import { IdSchema, Iso, Json } from './common.js';
import { OpenAiEndpointViewSchema } from './endpoint.js';
import { PullStateSchema } from './models.js';
import { SettingsSchema } from './settings.js';

const Usage = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cached_input_tokens: z.number().optional(),
  reasoning_tokens: z.number().optional(),
});
const RunEventIds = {
  trace_id: z.string(),
  task_id: z.string(),
  session_id: IdSchema,
  run_id: IdSchema,
  step_id: z.string().optional(),
  seq: z.number(),
  at: Iso,
};
const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), Json),
});

/** The runtime's event stream (src/main/core/runtime/events.ts), as it crosses the door. */
export const RunEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run.started'),
    goal: z.string(),
    resumed: z.boolean(),
    parent_run_id: IdSchema.optional(),
    parent_span_id: z.string().optional(),
    origin: z
      .object({
        channel: z.string(),
        type: z.string(),
        user_id: z.string().optional(),
        chat_id: z.string().optional(),
        schedule: z.string().optional(),
        queue: z.string().optional(),
        message: z.string().optional(),
        role: z.enum(['admin', 'user', 'viewer']).optional(),
      })
      .optional(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('state.changed'),
    from: z.string(),
    to: z.string(),
    transition: z.string(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('model.delta'),
    kind: z.enum(['text', 'reasoning']),
    text: z.string(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('model.finished'),
    model: z.string(),
    stop_reason: z.string(),
    usage: Usage,
    cost_usd: z.number(),
    fallbacks: z.array(z.string()).optional(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('context.fitted'),
    context_tokens: z.number(),
    tools_left_out: z.array(z.string()),
    messages_left_out: z.number(),
    note: z.string(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('tool.requested'),
    call: ToolCallSchema,
    read_only: z.boolean(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('policy.decided'),
    call_id: z.string(),
    decision: z.enum(['allow', 'deny', 'ask']),
    reason: z.string().optional(),
    rule: z.string().optional(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('world_model.predicted'),
    call_id: z.string(),
    world_model: z.string(),
    risk: z.enum(['low', 'medium', 'high', 'unknown']),
    summary: z.string(),
    cost: z.string().optional(),
    unavailable: z.string().optional(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('approval.requested'),
    approval_id: z.string(),
    call: ToolCallSchema,
    reason: z.string().optional(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('approval.resolved'),
    approval_id: z.string(),
    approved: z.boolean(),
    by: z.string(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('input.requested'),
    input_id: z.string(),
    call_id: z.string().optional(),
    source: z.string(),
    fields: z.array(z.string()),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('input.resolved'),
    input_id: z.string(),
    call_id: z.string().optional(),
    action: z.enum(['accept', 'decline', 'cancel']),
    by: z.string(),
    fields: z.array(z.string()).optional(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('tool.started'),
    call_id: z.string(),
    name: z.string(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('tool.finished'),
    call_id: z.string(),
    name: z.string(),
    is_error: z.boolean(),
    status: z.enum(['ok', 'error', 'denied']),
    duration_ms: z.number(),
    replayed: z.boolean().optional(),
    /** The CKP code of a refusal or failure the protocol names (-32010 ... -32014). */
    code: z.number().optional(),
    /** The tool's (screened) output, cut by the assistant to a size the UI can show. */
    output: z.string(),
    ...RunEventIds,
  }),
  z.object({
    type: z.literal('run.finished'),
    outcome: z.string(),
    reason: z.string(),
    usage: Usage,
    cost_usd: z.number(),
    turns: z.number(),
    /** The CKP code of the failure that ended the run (a provider's quota: -32021). */
    code: z.number().optional(),
    ...RunEventIds,
  }),
]);
export type RunEventView = z.infer<typeof RunEventSchema>;

/** Everything the core pushes to a connected UI, without being asked. */
export const AssistantEventSchema = z.discriminatedUnion('topic', [
  z.object({ topic: z.literal('run'), sessionId: IdSchema, event: RunEventSchema }),
  z.object({ topic: z.literal('approval.requested'), approval: PendingApprovalViewSchema }),
  z.object({
    topic: z.literal('approval.resolved'),
    id: IdSchema,
    approved: z.boolean(),
    by: z.string(),
  }),
  z.object({ topic: z.literal('input.requested'), input: PendingInputViewSchema }),
  z.object({
    topic: z.literal('input.resolved'),
    id: IdSchema,
    action: z.enum(['accept', 'decline', 'cancel']),
    by: z.string(),
  }),
  z.object({ topic: z.literal('sessions.changed') }),
  /** The desktop shell asks the UI to open a fresh conversation (tray "New chat"). */
  z.object({ topic: z.literal('ui.newChat') }),
  z.object({ topic: z.literal('model.pull'), pull: PullStateSchema }),
  z.object({ topic: z.literal('models.changed') }),
  z.object({ topic: z.literal('settings.changed'), settings: SettingsSchema }),
  z.object({
    topic: z.literal('openaiEndpoint.changed'),
    endpoint: z.lazy(() => OpenAiEndpointViewSchema),
  }),
  /** Pause state or held work changed. */
  z.object({ topic: z.literal('background.changed'), background: BackgroundViewSchema }),
]);
export type AssistantEvent = z.infer<typeof AssistantEventSchema>;
