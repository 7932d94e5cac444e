/**
 * The shapes that cross the IPC door: what the core returns and pushes to the renderer. Each is a
 * zod schema (the main side parses every response and event through it, so a field the contract
 * lacks, such as a file path, is stripped before it leaves) and a type inferred from it.
 *
 * Pure module: no node:, no electron.
 */
import { z } from 'zod';

/** Ids minted by the core (`ses_...`, `run_...`) or chosen on the CLI (`--session NAME`). */
export const IdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'not an id');

const Json = z.unknown();
const Iso = z.string().max(40);

export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  platform: z.string(),
  arch: z.string(),
  node: z.string(),
  /** Electron version when served by the desktop shell, null in the headless gateway. */
  electron: z.string().nullable(),
  /** Which transport carries this UI. */
  transport: z.enum(['electron', 'gateway']),
  /** The OS confinement the tools run under (chosen at start-up by probing). */
  sandbox: z.enum(['bwrap', 'seatbelt', 'process']),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

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

/** What the approval is really about (see the core's approval-preview.ts). */
export const ApprovalPreviewSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('command'),
    /** The command line as it runs (a shell line when `shell`). */
    command: z.string(),
    shell: z.boolean(),
    cwd: z.string(),
    /** What the sandbox lets it do, one fact per entry. */
    sandbox: z.array(z.string()),
  }),
  z.object({
    kind: z.literal('file'),
    path: z.string(),
    change: z.enum(['create', 'replace', 'edit']),
    /** Unified diff hunks against the file as it is now (or why there is none). */
    diff: z.string(),
    truncated: z.boolean(),
  }),
  z.object({ kind: z.literal('fetch'), url: z.string(), host: z.string() }),
]);
export type ApprovalPreview = z.infer<typeof ApprovalPreviewSchema>;

export const ApprovalRiskSchema = z.object({
  /** A destructive pattern: the app styles Approve as a secondary action and keys skip it. */
  destructive: z.boolean(),
  reasons: z.array(z.string()),
});
export type ApprovalRisk = z.infer<typeof ApprovalRiskSchema>;

export const PredictionSchema = z.object({
  worldModel: z.string(),
  summary: z.string(),
  risk: z.enum(['low', 'medium', 'high', 'unknown']),
  cost: z.string().optional(),
  unavailable: z.string().optional(),
});
export type PredictionView = z.infer<typeof PredictionSchema>;

export const PendingApprovalViewSchema = z.object({
  id: IdSchema,
  runId: IdSchema,
  sessionId: IdSchema,
  call: z.object({ id: z.string(), name: z.string(), input: z.record(z.string(), Json) }),
  reason: z.string(),
  rule: z.string().nullable(),
  tier: RiskTierSchema,
  sessionApprovable: z.boolean(),
  /** What "approve for session" covers (`git status …`); null: every call of the tool. */
  sessionScope: z.string().nullable(),
  expiresAt: Iso.nullable(),
  preview: ApprovalPreviewSchema.nullable(),
  risk: ApprovalRiskSchema,
  /** A declared world model's expectation of the call (CKP 0.3.0), shown beside it. */
  prediction: PredictionSchema.nullable().optional(),
});
export type PendingApprovalView = z.infer<typeof PendingApprovalViewSchema>;

/**
 * One field of a form an MCP server asks the user to fill (elicitation), as the core read it
 * from the server's restricted schema (src/main/core/policy/input-form.ts). Every text here is
 * the server's: shown as plain text, never as markup or a link.
 */
const InputFieldBase = {
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean(),
  /** It reads like a password, key or other secret: typed hidden. */
  sensitive: z.boolean().optional(),
};
export const InputFieldSchema = z.discriminatedUnion('kind', [
  z.object({
    ...InputFieldBase,
    kind: z.literal('string'),
    format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
    minLength: z.number().int().optional(),
    maxLength: z.number().int().optional(),
    default: z.string().optional(),
  }),
  z.object({
    ...InputFieldBase,
    kind: z.enum(['number', 'integer']),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    default: z.number().optional(),
  }),
  z.object({ ...InputFieldBase, kind: z.literal('boolean'), default: z.boolean().optional() }),
  z.object({
    ...InputFieldBase,
    kind: z.literal('enum'),
    options: z.array(z.object({ value: z.string(), label: z.string() })),
    default: z.string().optional(),
  }),
]);
export type InputFieldView = z.infer<typeof InputFieldSchema>;

/** A server's form waiting for the user, tied to the run (and tool call) that raised it. */
export const PendingInputViewSchema = z.object({
  id: IdSchema,
  runId: IdSchema,
  sessionId: IdSchema,
  callId: z.string().nullable(),
  tool: z.string().nullable(),
  /** The MCP server that asks. */
  source: z.string(),
  message: z.string(),
  fields: z.array(InputFieldSchema),
  /** The form asks for a password, key or other secret; `warning` is shown with it. */
  sensitive: z.boolean(),
  warning: z.string().nullable(),
  expiresAt: Iso,
});
export type PendingInputView = z.infer<typeof PendingInputViewSchema>;

/** What an accepted form holds: a value per field, by name. */
export const InputContentSchema = z
  .record(z.string().max(64), z.union([z.string().max(10_000), z.number(), z.boolean()]))
  .refine((content) => Object.keys(content).length <= 20, 'at most 20 fields');

export const PullStateSchema = z.object({
  name: z.string(),
  state: z.enum(['running', 'done', 'failed']),
  downloadedBytes: z.number(),
  totalBytes: z.number(),
  error: z.string().nullable(),
});
export type PullState = z.infer<typeof PullStateSchema>;

export const CatalogModelViewSchema = z.object({
  name: z.string(),
  displayName: z.string(),
  kind: z.enum(['chat', 'embedding']),
  sizeBytes: z.number(),
  license: z.string().nullable(),
  installed: z.boolean(),
  selected: z.boolean(),
  pull: PullStateSchema.nullable(),
  /** The picker's option for this model once installed (chat models only). */
  optionId: z.string().nullable(),
  /** Memory it needs to run, and whether this computer has that much. */
  ramBytes: z.number(),
  fits: z.boolean(),
});
export type CatalogModelView = z.infer<typeof CatalogModelViewSchema>;

/** One entry of the model picker; `id` goes back in `models.select`. */
export const ModelOptionSchema = z.object({
  id: z.string(),
  label: z.string(),
  group: z.enum(['local', 'provider', 'connection', 'launch']),
  /** The heading it is listed under: "This computer", a provider's name. */
  source: z.string(),
  detail: z.string().nullable(),
  /** Whether its declaration says it takes images (manifest `capabilities`, the connection's
   * choice); a local GGUF model takes text only. */
  takesImages: z.boolean(),
});
export type ModelOption = z.infer<typeof ModelOptionSchema>;

export const ModelsStateSchema = z.object({
  /** What answers chat now, e.g. "local/Qwen2.5-7B-Instruct-Q4_K_M.gguf" or "openai/gpt-4o". */
  active: z.string(),
  /** `local`: the in-process engine, whose model can be selected, loaded and unloaded here. */
  kind: z.enum(['local', 'remote', 'scripted']),
  loaded: z.boolean(),
  catalog: z.array(CatalogModelViewSchema),
  /** GGUF files in the models folder the catalog does not know (file names only). */
  otherFiles: z.array(z.string()),
  /** Everything the picker offers, and the option in force (null: no local model yet). */
  options: z.array(ModelOptionSchema),
  selectedId: z.string().nullable(),
  /** What new conversations start with. */
  defaultId: z.string().nullable(),
  /** Whether what the model in force costs is known ($0 for the local engine). */
  priced: z.boolean(),
  /** The catalog's best chat model for this computer's memory, and that memory. */
  recommended: z.string().nullable(),
  machineRamBytes: z.number(),
  /** The model in force's context window in tokens; null until known (a local model loads). */
  contextWindow: z.number().int().positive().nullable(),
  /** The selected local model's header facts; null for another kind of model or none. */
  localModel: z
    .object({
      /** The context the model was trained for: no larger window is used. */
      trainedContext: z.number().int().positive().nullable(),
      fileBytes: z.number().int().nonnegative(),
      /** KV cache bytes per token of context (16-bit cache); null where the header lacks it. */
      kvBytesPerToken: z.number().int().positive().nullable(),
      /** The context size the next load asks for (the setting, else the launch's; null: automatic). */
      contextSize: z.number().int().positive().nullable(),
    })
    .nullable(),
});
export type ModelsState = z.infer<typeof ModelsStateSchema>;

export const ProviderViewSchema = z.object({
  name: z.string(),
  protocol: z.string(),
  model: z.string(),
  endpoint: z.string(),
  /** The secret's name (never its value), and whether the secrets chain holds it. */
  secretRef: z.string().nullable(),
  hasKey: z.boolean(),
  fallback: z.array(z.string()),
});
export type ProviderView = z.infer<typeof ProviderViewSchema>;

/** What "Add provider" offers; each is one wire protocol (OpenAI-compatible: Ollama, LM Studio). */
export const ConnectionKindSchema = z.enum(['openai', 'anthropic', 'gemini', 'openai-compatible']);
export type ConnectionKind = z.infer<typeof ConnectionKindSchema>;

/** A provider added from the app: its key is named, never shown. */
export const ConnectionViewSchema = z.object({
  name: z.string(),
  kind: ConnectionKindSchema,
  endpoint: z.string(),
  keyName: z.string().nullable(),
  models: z.array(z.string()),
  /** Its models take images (chosen when it was added). */
  takesImages: z.boolean(),
});
export type ConnectionView = z.infer<typeof ConnectionViewSchema>;

export const SecretsViewSchema = z.object({
  names: z.array(z.object({ name: z.string(), backend: z.string(), shadowed: z.boolean() })),
  backends: z.array(
    z.object({ id: z.string(), label: z.string(), writable: z.boolean(), available: z.boolean() }),
  ),
});
export type SecretsView = z.infer<typeof SecretsViewSchema>;

export const AutonomySchema = z.enum(['observer', 'supervised', 'autonomous']);
export type Autonomy = z.infer<typeof AutonomySchema>;

export const PoliciesViewSchema = z.object({
  autonomy: AutonomySchema,
  /** The manifest's own level (the UI may override it for this process). */
  manifestAutonomy: AutonomySchema,
  rules: z.array(
    z.object({
      policy: z.string(),
      id: z.string(),
      action: z.string(),
      scope: z.string(),
      reason: z.string().nullable(),
    }),
  ),
});
export type PoliciesView = z.infer<typeof PoliciesViewSchema>;

/** A tool's registry name: `fs/read`, `mcp/server/tool`. */
export const ToolNameSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)*$/, 'not a tool name');

/** A tool a conversation may offer its model, and whether this conversation does. */
export const SessionToolSchema = z.object({
  name: ToolNameSchema,
  description: z.string(),
  tier: RiskTierSchema,
  /** Where it comes from: Pincer itself, the manifest, or an MCP server. */
  source: z.enum(['builtin', 'manifest', 'mcp']),
  enabled: z.boolean(),
});
export type SessionTool = z.infer<typeof SessionToolSchema>;

/** The local engine's context sizes Settings offers, in tokens (null in Settings: automatic). */
export const CONTEXT_SIZES = [2048, 4096, 8192, 16384, 32768] as const;
export const ContextSizeSchema = z.literal(CONTEXT_SIZES);

export const SettingsSchema = z.strictObject({
  theme: z.enum(['system', 'dark', 'light']),
  showReasoning: z.boolean(),
  /** Enter sends (Shift+Enter for a new line); otherwise Ctrl/Cmd+Enter sends. */
  enterSends: z.boolean(),
  /** The user's standing instructions, added to every run's system prompt. */
  systemPrompt: z.string().max(8000),
  /** Sampling temperature for the next runs; null keeps the model's default. */
  temperature: z.number().min(0).max(2).nullable(),
  /**
   * The local model's context window, bounded by what the model was trained for; null: automatic
   * (the launch's `--context-size`, else up to 8192 tokens as memory allows).
   */
  contextSize: ContextSizeSchema.nullable(),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** The folder the agent's tools work in; `canOpen` where this surface can show it (the desktop). */
export const WorkspaceViewSchema = z.object({ path: z.string(), canOpen: z.boolean() });
export type WorkspaceView = z.infer<typeof WorkspaceViewSchema>;

export const FeatureStatusSchema = z.object({
  available: z.boolean(),
  /** Why not, when it is not (e.g. "arrives with #10"). */
  note: z.string().nullable(),
});

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

/** One channel message or schedule firing held while the agent is paused (the tray). */
export const HeldWorkViewSchema = z.object({
  channel: z.string(),
  /** The sender's platform id, or the schedule. */
  from: z.string(),
  preview: z.string(),
  since: Iso,
});
export type HeldWorkView = z.infer<typeof HeldWorkViewSchema>;

/** The background assistant's pause and what it holds; `served` is false when this app serves no channels. */
export const BackgroundViewSchema = z.object({
  served: z.boolean(),
  paused: z.boolean(),
  held: z.array(HeldWorkViewSchema),
});
export type BackgroundView = z.infer<typeof BackgroundViewSchema>;

/** One channel the manifest declares, as this app serves it. */
export const ChannelViewSchema = z.object({
  name: z.string(),
  type: z.string(),
  /** `not-served`: declared, but this app does not serve it (a daemon does, or the type is not built). */
  state: z.enum(['running', 'stopped', 'error', 'not-served']),
  lastMessageAt: Iso.nullable(),
  lastError: z.string().nullable(),
  runs: z.number().int(),
  /** Where it listens, its next firing, why it is not served ... (shown as is). */
  detail: z.record(z.string(), z.string()),
});
export type ChannelView = z.infer<typeof ChannelViewSchema>;

/** A pairing code an unknown sender received and that waits for the owner. */
export const PairingViewSchema = z.object({
  channel: z.string(),
  userId: z.string(),
  code: z.string(),
  expiresAt: Iso,
});
export type PairingView = z.infer<typeof PairingViewSchema>;

export const ChannelsViewSchema = z.object({
  served: z.boolean(),
  channels: z.array(ChannelViewSchema),
  pairings: z.array(PairingViewSchema),
});
export type ChannelsView = z.infer<typeof ChannelsViewSchema>;

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

/** The OpenAI-compatible endpoint as the app runs it: never the key, only its name. */
export const OpenAiEndpointViewSchema = z.object({
  enabled: z.boolean(),
  running: z.boolean(),
  /** The shared model is still being read into memory (requests get 503 meanwhile). */
  loading: z.boolean(),
  /** What clients use, e.g. http://127.0.0.1:11435/v1; null while it is not serving. */
  baseUrl: z.string().nullable(),
  host: z.string(),
  port: z.number().int(),
  /** This machine's network addresses: the LAN opt-in picks one. */
  lanAddresses: z.array(z.string()),
  /** The secret store entry holding the bearer key. */
  keyName: z.string(),
  hasKey: z.boolean(),
  /** The model id clients name (the app's local model). */
  model: z.string().nullable(),
  error: z.string().nullable(),
  /** External requests generating now, and waiting (behind others or the app's own turn). */
  active: z.number().int(),
  queued: z.number().int(),
});
export type OpenAiEndpointView = z.infer<typeof OpenAiEndpointViewSchema>;

/** One endpoint request, metadata only: never a prompt, a reply or a key. */
export const OpenAiRequestLogEntrySchema = z.object({
  /** Counts up from 1 since launch. */
  id: z.number().int(),
  at: Iso,
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  /** `ok`, `cancelled` or the error code. */
  outcome: z.string(),
  model: z.string().nullable(),
  stream: z.boolean(),
  promptTokens: z.number().nullable(),
  cachedTokens: z.number().nullable(),
  completionTokens: z.number().nullable(),
  durationMs: z.number(),
});
export type OpenAiRequestLogEntry = z.infer<typeof OpenAiRequestLogEntrySchema>;

/** One MCP server of the user's list (`<data dir>/mcp.json`): never an env or header value. */
export const McpServerViewSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  /** The command line, or the URL. */
  target: z.string(),
  enabled: z.boolean(),
  /** The connection now: `off` while disabled. */
  state: z.enum(['off', 'connecting', 'ready', 'down', 'closed']),
  tools: z.array(z.string()),
  error: z.string().nullable(),
  /**
   * What it asks for beyond a bare sandboxed process (the network, each stored secret its env or
   * headers reference, by name only) and whether a person granted it: only granted ones are given.
   */
  grants: z.array(z.object({ grant: z.string(), label: z.string(), granted: z.boolean() })),
});
export type McpServerView = z.infer<typeof McpServerViewSchema>;

/** Settings → Desktop: the shell's own preferences; `available` is false outside the desktop app. */
export const DesktopPreferencesViewSchema = z.object({
  available: z.boolean(),
  startAtLogin: z.boolean(),
  closeToTray: z.boolean(),
  /** Electron's accelerator spelling (`Control+Alt+Space`); null: no shortcut. */
  globalShortcut: z.string().nullable(),
  /** Why the shortcut is not active (taken by another application, turned off); null when it is. */
  shortcutProblem: z.string().nullable(),
});
export type DesktopPreferencesViewWire = z.infer<typeof DesktopPreferencesViewSchema>;
