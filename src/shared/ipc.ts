/**
 * The IPC contract: the only door between the renderer and the core.
 *
 * Every channel names a request schema and a response schema; pushed events have their own
 * schema (`AssistantEventSchema`). Both transports (Electron IPC through the preload, and the
 * gateway's WebSocket) carry exactly these channels, and the main side validates every request
 * against its schema before any handler sees it, and every response and event on the way out.
 * Requests are strict objects, so a field the contract lacks is an error rather than ignored.
 *
 * Pure module: no node:, no electron.
 */

import { z } from 'zod';
import { AttachmentSchema, MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS } from './attachments.js';
import { GpuMemorySchema } from './gpu-fit.js';
import { ImageInputSchema, MAX_IMAGE_BASE64, MAX_IMAGES } from './images.js';
import {
  AppInfoSchema,
  type AssistantEvent,
  AutonomySchema,
  BackgroundViewSchema,
  ChannelsViewSchema,
  ConnectionKindSchema,
  ConnectionViewSchema,
  DesktopPreferencesViewSchema,
  FeatureStatusSchema,
  IdSchema,
  InputContentSchema,
  McpServerViewSchema,
  ModelsStateSchema,
  OpenAiEndpointViewSchema,
  OpenAiRequestLogEntrySchema,
  PendingApprovalViewSchema,
  PendingInputViewSchema,
  PoliciesViewSchema,
  ProviderViewSchema,
  RunDetailSchema,
  RunEventSchema,
  RunSummarySchema,
  SearchHitSchema,
  SecretsViewSchema,
  SessionHistorySchema,
  SessionSummarySchema,
  SessionToolSchema,
  SettingsSchema,
  ToolNameSchema,
  WorkspaceViewSchema,
} from './ipc-schemas.js';
import { MAX_MESSAGE_CHARS } from './messages.js';

export * from './attachments.js';
export * from './images.js';
export { IpcCallError, type IpcErrorCode, type IpcResult, unwrapResult } from './ipc-result.js';
export * from './ipc-schemas.js';

/** Requests larger than this (serialised JSON, in bytes) are rejected before parsing. */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/**
 * `chat.send` alone may carry images: the ordinary bound plus MAX_IMAGES images at their largest
 * as base64 (and their names and JSON punctuation), about 28 MiB. No other channel is raised.
 */
export const MAX_SEND_REQUEST_BYTES = MAX_REQUEST_BYTES + MAX_IMAGES * (MAX_IMAGE_BASE64 + 1024);
/** One piece of an imported model file: 512 KiB, as base64. */
export const IMPORT_CHUNK_BYTES = 512 * 1024;
const MAX_IMPORT_CHUNK_BASE64 = Math.ceil(IMPORT_CHUNK_BYTES / 3) * 4;

export { MAX_MESSAGE_CHARS };

const Empty = z.strictObject({});
const Ok = z.object({ ok: z.literal(true) });
const Title = z.string().trim().min(1).max(200);
const SecretName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only');
const ModelName = z.string().min(1).max(200);
/** A pairing code as a person types it: letters and digits, spaces allowed between groups. */
const PairingCode = z
  .string()
  .min(4)
  .max(32)
  .regex(/^[A-Za-z0-9 ]+$/, 'letters and digits only');
/** A picker option's id (`local:FILE`, `provider:NAME`, `connection:NAME:MODEL`, `launch`). */
const ModelOptionId = z
  .string()
  .min(1)
  .max(400)
  .regex(/^[^\p{Cc}]+$/u, 'no control characters');
const ConnectionName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/, 'letters, digits, _ . - only (at most 40)');
const HttpUrl = z
  .string()
  .max(2000)
  .regex(/^https?:\/\/[^\s]+$/i, 'an http:// or https:// address');
const ApiKey = z.string().min(1).max(16_384);
/** A text file chosen in the UI: its base name and text; the core parses and bounds it again. */
const TextFileSchema = z.strictObject({
  name: AttachmentSchema.shape.name,
  text: z.string().min(1).max(MAX_ATTACHMENT_BYTES),
});
const SkillsListSchema = FeatureStatusSchema.extend({
  skills: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      enabled: z.boolean(),
      trust: z.string(),
    }),
  ),
});

export const ipcContract = {
  'app.getInfo': { request: Empty, response: AppInfoSchema },

  'sessions.list': { request: Empty, response: z.array(SessionSummarySchema) },
  'sessions.create': {
    request: z.strictObject({ title: Title.optional() }),
    response: SessionSummarySchema,
  },
  'sessions.rename': {
    request: z.strictObject({ sessionId: IdSchema, title: Title }),
    response: SessionSummarySchema,
  },
  'sessions.delete': { request: z.strictObject({ sessionId: IdSchema }), response: Ok },
  /** A new session holding a copy of the conversation up to (and including) `messageId`. */
  'sessions.branch': {
    request: z.strictObject({ sessionId: IdSchema, messageId: IdSchema }),
    response: SessionSummarySchema,
  },
  /** The branch ending at the newest message, or at the newest one below `leafId` (a version). */
  'sessions.history': {
    request: z.strictObject({ sessionId: IdSchema, leafId: IdSchema.optional() }),
    response: SessionHistorySchema,
  },

  /**
   * The tools a conversation's runs may be offered, each with whether it is on here; `set`
   * turns one on or off for this conversation only (its runs are not offered it, and a call
   * to it is refused).
   */
  'sessions.tools.get': {
    request: z.strictObject({ sessionId: IdSchema }),
    response: z.array(SessionToolSchema),
  },
  'sessions.tools.set': {
    request: z.strictObject({ sessionId: IdSchema, tool: ToolNameSchema, enabled: z.boolean() }),
    response: z.array(SessionToolSchema),
  },

  /** Full-text search over every conversation's messages and titles, newest first. */
  'sessions.search': {
    request: z.strictObject({ query: z.string().trim().min(1).max(200) }),
    response: z.object({ hits: z.array(SearchHitSchema) }),
  },
  /** The conversation as a file to save: Markdown to read, JSON to process. */
  'sessions.export': {
    request: z.strictObject({ sessionId: IdSchema, format: z.enum(['markdown', 'json']) }),
    response: z.object({ fileName: z.string(), mediaType: z.string(), content: z.string() }),
  },

  /** Starts a run; its events arrive on the event stream (topic `run`). */
  'chat.send': {
    request: z.strictObject({
      sessionId: IdSchema.optional(),
      text: z.string().trim().min(1).max(MAX_MESSAGE_CHARS),
      /** Continue from this earlier message instead of the session's newest one; null starts a
       * new first message (regenerating or editing the first turn makes a sibling of it). */
      fromMessageId: IdSchema.nullable().optional(),
      /** Text files given as context of this message (content, never instructions). */
      attachments: z.array(AttachmentSchema).max(MAX_ATTACHMENTS).optional(),
      /** PNG, JPEG, GIF or WebP images for a model that takes images (sniffed by the core). */
      images: z
        .array(ImageInputSchema)
        .max(MAX_IMAGES, `at most ${MAX_IMAGES} images per message`)
        .optional(),
    }),
    response: z.object({ runId: IdSchema, sessionId: IdSchema }),
  },
  'chat.cancel': {
    request: z.strictObject({ runId: IdSchema }),
    response: z.object({ cancelled: z.boolean() }),
  },

  'runs.list': {
    request: z.strictObject({
      sessionId: IdSchema.optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }),
    response: z.array(RunSummarySchema),
  },
  'runs.get': { request: z.strictObject({ runId: IdSchema }), response: RunDetailSchema },
  /** Events a live run has emitted so far (a UI that reloads mid-run catches up). */
  'runs.events': {
    request: z.strictObject({ runId: IdSchema }),
    response: z.array(RunEventSchema),
  },

  'approvals.list': { request: Empty, response: z.array(PendingApprovalViewSchema) },
  'approvals.resolve': {
    request: z.strictObject({
      approvalId: IdSchema,
      verdict: z.enum(['approve', 'approve-for-session', 'deny']),
      /** Told to the model with a denial. */
      reason: z.string().trim().max(500).optional(),
    }),
    response: z.object({
      result: z.enum(['resolved', 'unknown', 'already_resolved', 'not_session_approvable']),
    }),
  },

  /** Forms MCP servers asked the user to fill mid-call (elicitation), oldest first. */
  'inputs.list': { request: Empty, response: z.array(PendingInputViewSchema) },
  /**
   * Answers one: accept with the values (checked against the form: `invalid` with the reasons,
   * and it stays pending), decline, or cancel. The first answer of any surface wins.
   */
  'inputs.resolve': {
    request: z.strictObject({
      inputId: IdSchema,
      action: z.enum(['accept', 'decline', 'cancel']),
      /** Only with accept. */
      content: InputContentSchema.optional(),
    }),
    response: z.object({
      result: z.enum(['resolved', 'unknown', 'already_resolved', 'invalid']),
      /** Why an accepted answer does not fit the form (empty otherwise). */
      errors: z.array(z.string()),
    }),
  },

  'models.list': { request: Empty, response: ModelsStateSchema },
  /** This computer's GPU memory (null: none, the local model runs on the processor). Asked by
   * the views that show a model's fit: the first answer loads llama.cpp, later ones are kept. */
  'models.gpu': { request: Empty, response: GpuMemorySchema.nullable() },
  'models.pull': {
    request: z.strictObject({ name: ModelName }),
    response: z.object({ started: z.boolean() }),
  },
  /** Switches the model now; remembered for `sessionId` and as the default for new chats. */
  'models.select': {
    request: z.strictObject({ id: ModelOptionId, sessionId: IdSchema.optional() }),
    response: ModelsStateSchema,
  },
  /** Importing a GGUF file picked or dropped in the app, in pieces of at most 512 KiB. */
  'models.import.begin': {
    request: z.strictObject({
      fileName: z.string().min(1).max(255),
      sizeBytes: z
        .number()
        .int()
        .min(1)
        .max(2 ** 41),
    }),
    response: z.object({ importId: IdSchema }),
  },
  'models.import.chunk': {
    request: z.strictObject({
      importId: IdSchema,
      offset: z.number().int().min(0),
      /** Base64 of the next piece. */
      data: z
        .string()
        .min(1)
        .max(MAX_IMPORT_CHUNK_BASE64)
        .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'base64'),
    }),
    response: z.object({ receivedBytes: z.number() }),
  },
  /** Checks the GGUF header; a sound file joins the models (and is used if none was chosen). */
  'models.import.finish': {
    request: z.strictObject({ importId: IdSchema }),
    /** `note`: what a small context means (fewer tools, shorter memory), in one sentence. */
    response: z.object({
      fileName: z.string(),
      note: z.string().optional(),
      models: ModelsStateSchema,
    }),
  },
  'models.import.cancel': { request: z.strictObject({ importId: IdSchema }), response: Ok },
  'models.load': { request: Empty, response: ModelsStateSchema },
  'models.unload': { request: Empty, response: ModelsStateSchema },

  'providers.list': {
    request: Empty,
    response: z.object({
      providers: z.array(ProviderViewSchema),
      connections: z.array(ConnectionViewSchema),
      routing: z.string(),
    }),
  },
  /** Asks the server for its models: with the key given, or the named connection's own. */
  'providers.test': {
    request: z.strictObject({
      kind: ConnectionKindSchema,
      endpoint: HttpUrl.optional(),
      key: ApiKey.optional(),
      name: ConnectionName.optional(),
    }),
    response: z.object({ models: z.array(z.string()) }),
  },
  /** Tests, then saves a provider (its key into the secret store by name); its models join the picker. */
  'providers.add': {
    request: z.strictObject({
      name: ConnectionName,
      kind: ConnectionKindSchema,
      endpoint: HttpUrl.optional(),
      key: ApiKey.optional(),
      /** Its models take images (default: on for OpenAI, Anthropic, Gemini; off otherwise). */
      takesImages: z.boolean().optional(),
    }),
    response: ConnectionViewSchema,
  },
  'providers.remove': { request: z.strictObject({ name: ConnectionName }), response: Ok },

  'secrets.list': { request: Empty, response: SecretsViewSchema },
  'secrets.set': {
    request: z.strictObject({ name: SecretName, value: z.string().min(1).max(16_384) }),
    response: SecretsViewSchema,
  },
  'secrets.delete': { request: z.strictObject({ name: SecretName }), response: SecretsViewSchema },

  'policies.get': { request: Empty, response: PoliciesViewSchema },
  'policies.setAutonomy': {
    request: z.strictObject({ autonomy: AutonomySchema }),
    response: PoliciesViewSchema,
  },

  'skills.list': { request: Empty, response: SkillsListSchema },
  /** Registers a SKILL.md or CKP Skill YAML chosen in Settings (its text; never a path). */
  'skills.add': {
    request: z.strictObject({ file: TextFileSchema, replace: z.boolean().optional() }),
    response: z.object({ status: z.enum(['added', 'updated', 'unchanged']), name: z.string() }),
  },
  /** A disabled skill is never offered to the model. */
  'skills.setEnabled': {
    request: z.strictObject({ name: z.string().min(1).max(200), enabled: z.boolean() }),
    response: SkillsListSchema,
  },
  'memory.search': {
    request: z.strictObject({ query: z.string().trim().min(1).max(2000) }),
    response: FeatureStatusSchema.extend({
      hits: z.array(z.object({ text: z.string(), score: z.number(), source: z.string() })),
    }),
  },
  /** Remembers a note typed in Settings, or a text file's content under the file's name. */
  'memory.add': {
    request: z.strictObject({
      text: z.string().trim().min(1).max(MAX_ATTACHMENT_BYTES),
      name: AttachmentSchema.shape.name.optional(),
    }),
    response: z.object({ source: z.string(), chunks: z.number().int() }),
  },

  'desktop.get': { request: Empty, response: DesktopPreferencesViewSchema },
  /** Changes take effect before they are kept: a shortcut another app owns is refused. */
  'desktop.set': {
    request: z.strictObject({
      startAtLogin: z.boolean().optional(),
      closeToTray: z.boolean().optional(),
      globalShortcut: z.string().min(1).max(100).nullable().optional(),
    }),
    response: DesktopPreferencesViewSchema,
  },
  'settings.get': { request: Empty, response: SettingsSchema },
  'settings.set': { request: SettingsSchema.partial(), response: SettingsSchema },

  /** The agent's workspace folder, shown in the UI (the browser shows it to copy). */
  'workspace.get': { request: Empty, response: WorkspaceViewSchema },
  /** Shows the workspace, or a file in it (relative path), in the system's file manager. */
  'workspace.open': {
    request: z.strictObject({
      path: z
        .string()
        .min(1)
        .max(4096)
        .regex(/^[^\p{Cc}]+$/u, 'no control characters')
        .optional(),
    }),
    response: Ok,
  },

  /** The OpenAI-compatible endpoint serving the app's local model to other apps. */
  'openaiEndpoint.get': { request: Empty, response: OpenAiEndpointViewSchema },
  /** Turns it on/off or moves it; `key` is the bearer key the one time it is created. */
  'openaiEndpoint.set': {
    request: z.strictObject({
      enabled: z.boolean().optional(),
      /** 127.0.0.1, or one of `lanAddresses` (the key is always required). */
      host: z.string().min(1).max(100).optional(),
      /** 0 picks a free port. */
      port: z.number().int().min(0).max(65535).optional(),
    }),
    response: z.object({ endpoint: OpenAiEndpointViewSchema, key: z.string().nullable() }),
  },
  /** A new key replaces the old one at once; shown this once. */
  'openaiEndpoint.rotateKey': {
    request: Empty,
    response: z.object({ endpoint: OpenAiEndpointViewSchema, key: z.string() }),
  },
  /** The newest requests first, metadata only. */
  'openaiEndpoint.log': {
    request: Empty,
    response: z.object({ entries: z.array(OpenAiRequestLogEntrySchema) }),
  },

  /** The user's MCP servers (`<data dir>/mcp.json`, as `pincer mcp` edits it) and their state. */
  'mcp.list': { request: Empty, response: z.object({ servers: z.array(McpServerViewSchema) }) },
  /** Adds a server (a command line or an http(s) URL) and starts it. */
  'mcp.add': {
    request: z.strictObject({
      name: z.string().min(1).max(64),
      command: z.string().min(1).max(4096).optional(),
      args: z.array(z.string().max(4096)).max(64).optional(),
      url: z.string().min(1).max(2048).optional(),
    }),
    response: z.object({ servers: z.array(McpServerViewSchema) }),
  },
  'mcp.setEnabled': {
    request: z.strictObject({ name: z.string().min(1).max(64), enabled: z.boolean() }),
    response: z.object({ servers: z.array(McpServerViewSchema) }),
  },
  'mcp.remove': {
    request: z.strictObject({ name: z.string().min(1).max(64) }),
    response: z.object({ servers: z.array(McpServerViewSchema) }),
  },

  /** Channel messages and schedule firings held while the tray pauses the agent. */
  'background.held': { request: Empty, response: BackgroundViewSchema },
  /** Pauses or resumes them: the tray of a desktop app attached to a daemon. */
  'background.setPaused': {
    request: z.strictObject({ paused: z.boolean() }),
    response: BackgroundViewSchema,
  },
  /** The manifest's channels as this app serves them, and pairing codes waiting for approval. */
  'channels.list': { request: Empty, response: ChannelsViewSchema },
  /** Approves a pairing code, as `pincer channels pair CODE` does. */
  'channels.approvePairing': {
    request: z.strictObject({ code: PairingCode }),
    response: ChannelsViewSchema,
  },
  /** Refuses a pairing code: the sender gets a new one if they write again. */
  'channels.rejectPairing': {
    request: z.strictObject({ code: PairingCode }),
    response: ChannelsViewSchema,
  },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type Contract = typeof ipcContract;

/** The largest request a channel takes (serialised JSON, in bytes). */
export function requestLimit(channel: keyof Contract): number {
  return channel === 'chat.send' ? MAX_SEND_REQUEST_BYTES : MAX_REQUEST_BYTES;
}
export type ChannelName = keyof Contract;
export type RequestOf<C extends ChannelName> = z.input<Contract[C]['request']>;
export type ResponseOf<C extends ChannelName> = z.output<Contract[C]['response']>;

export const channelNames = Object.keys(ipcContract) as ChannelName[];

export function isChannelName(name: unknown): name is ChannelName {
  return typeof name === 'string' && Object.hasOwn(ipcContract, name);
}

/** The Electron channel pushed events travel on (main → renderer only). */
export const EVENT_CHANNEL = 'pincer:event';

/** The API the preload exposes on `window.pincer` (and the WebSocket client mirrors). */
export interface PincerApi {
  invoke<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>>;
  /** Every event the core pushes; returns the unsubscribe function. */
  subscribe(listener: (event: AssistantEvent) => void): () => void;
}
