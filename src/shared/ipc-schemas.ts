/**
 * The shapes that cross the IPC door: what the core returns and pushes to the renderer. Each is a
 * zod schema (the main side parses every response and event through it, so a field the contract
 * lacks, such as a file path, is stripped before it leaves) and a type inferred from it.
 *
 * Pure module: no node:, no electron.
 *
 * The shapes live by IPC namespace in ipc-schemas/; this file names them all.
 */

export {
  type ApprovalPreview,
  ApprovalPreviewSchema,
  type ApprovalRisk,
  ApprovalRiskSchema,
  InputContentSchema,
  InputFieldSchema,
  type InputFieldView,
  type PendingApprovalView,
  PendingApprovalViewSchema,
  type PendingInputView,
  PendingInputViewSchema,
  PredictionSchema,
  type PredictionView,
} from './ipc-schemas/approvals.js';
export {
  type BackgroundView,
  BackgroundViewSchema,
  type ChannelsView,
  ChannelsViewSchema,
  type ChannelView,
  ChannelViewSchema,
  type HeldWorkView,
  HeldWorkViewSchema,
  type PairingView,
  PairingViewSchema,
} from './ipc-schemas/channels.js';
export { type AppInfo, AppInfoSchema, IdSchema } from './ipc-schemas/common.js';
export {
  DesktopPreferencesViewSchema,
  type DesktopPreferencesViewWire,
} from './ipc-schemas/desktop.js';
export {
  type OpenAiEndpointView,
  OpenAiEndpointViewSchema,
  type OpenAiRequestLogEntry,
  OpenAiRequestLogEntrySchema,
} from './ipc-schemas/endpoint.js';
export {
  type AssistantEvent,
  AssistantEventSchema,
  RunEventSchema,
  type RunEventView,
} from './ipc-schemas/events.js';
export { type McpServerView, McpServerViewSchema } from './ipc-schemas/mcp-servers.js';
export {
  type CatalogModelView,
  CatalogModelViewSchema,
  type ModelOption,
  ModelOptionSchema,
  type ModelsState,
  ModelsStateSchema,
  type PullState,
  PullStateSchema,
} from './ipc-schemas/models.js';
export {
  type ConnectionKind,
  ConnectionKindSchema,
  type ConnectionView,
  ConnectionViewSchema,
  type ProviderView,
  ProviderViewSchema,
  type SecretsView,
  SecretsViewSchema,
} from './ipc-schemas/providers.js';
export {
  type AuditEntry,
  AuditEntrySchema,
  type ChatBlock,
  ChatBlockSchema,
  type ChatMessage,
  ChatMessageSchema,
  type RiskTier,
  RiskTierSchema,
  type RunDetail,
  RunDetailSchema,
  RunOriginSchema,
  type RunOriginView,
  type RunSummary,
  RunSummarySchema,
  type SearchHit,
  SearchHitSchema,
  type SessionHistory,
  SessionHistorySchema,
  type SessionSummary,
  SessionSummarySchema,
  type StepView,
  StepViewSchema,
  type ToolCallView,
  ToolCallViewSchema,
} from './ipc-schemas/sessions.js';
export {
  type Autonomy,
  AutonomySchema,
  CONTEXT_SIZES,
  ContextSizeSchema,
  FeatureStatusSchema,
  type PoliciesView,
  PoliciesViewSchema,
  type SessionTool,
  SessionToolSchema,
  type Settings,
  SettingsSchema,
  ToolNameSchema,
  type WorkspaceView,
  WorkspaceViewSchema,
} from './ipc-schemas/settings.js';
