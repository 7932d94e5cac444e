/** What the assistant is given and what it offers: the surface both transports build on. */

import type { Attachment } from '../../../shared/attachments.js';
import type { GpuMemory } from '../../../shared/gpu-fit.js';
import type { ImageInput } from '../../../shared/images.js';
import type {
  AppInfo,
  AssistantEvent,
  Autonomy,
  ConnectionKind,
  ConnectionView,
  ModelsState,
  PendingApprovalView,
  PendingInputView,
  PoliciesView,
  ProviderView,
  RunDetail,
  RunEventView,
  RunSummary,
  SearchHit,
  SecretsView,
  SessionHistory,
  SessionSummary,
  SessionTool,
  Settings,
} from '../../../shared/ipc-schemas.js';
import { PincerError, type PincerErrorOptions } from '../errors.js';
import type {
  ApprovalBroker,
  ApprovalVerdict,
  InputAnswer,
  InputResolveResult,
} from '../policy/index.js';
import type { BackgroundChannels } from './channels.js';
import type { UserLibrary } from './library.js';
import type { McpServers } from './mcp-servers.js';
import type { OpenAiEndpoint } from './openai-endpoint.js';

export interface SendOptions {
  sessionId?: string;
  text: string;
  fromMessageId?: string | null;
  /** Text files that become context of this message (see attachments.ts). */
  attachments?: Attachment[];
  /** Images (base64) for the model to see with the text; see agent/images.ts. */
  images?: ImageInput[];
}

export interface ProviderRequest {
  kind: ConnectionKind;
  endpoint?: string;
  key?: string;
  name?: string;
  /** Whether its models take images (adding only; default per kind: CONNECTION_TAKES_IMAGES). */
  takesImages?: boolean;
}

/**
 * The assistant's surface, one interface per service (each mirrors IPC namespaces; see
 * `services/`). `Assistant` joins them flat, so a caller writes `assistant.send(...)` whichever
 * service answers.
 */

/** `sessions.*`: the conversations, their tools, their history, search and export. */
export interface SessionsService {
  listSessions(): SessionSummary[];
  /** The tools this conversation's runs may be offered, each with whether it is on here. */
  sessionTools(sessionId: string): SessionTool[];
  /** Turns a tool on or off for this conversation only; the list as it is now. */
  setSessionTool(sessionId: string, tool: string, enabled: boolean): SessionTool[];
  createSession(title?: string): SessionSummary;
  /** Tells every UI to open a fresh conversation (the tray's "New chat"). */
  requestNewChat(): void;
  renameSession(id: string, title: string): SessionSummary;
  deleteSession(id: string): void;
  branchSession(id: string, messageId: string): SessionSummary;
  /** The branch ending at the newest message, or at the newest message below `leafId`. */
  history(id: string, leafId?: string): SessionHistory;
  /** Messages and titles of every conversation matching the words, newest first. */
  searchChats(query: string): SearchHit[];
  exportSession(
    id: string,
    format: 'markdown' | 'json',
  ): { fileName: string; mediaType: string; content: string };
}

/** `chat.*` and `runs.*`: starting and stopping runs, and what they did. */
export interface ChatService {
  send(options: SendOptions): { runId: string; sessionId: string };
  cancel(runId: string): boolean;
  /** Resolves when the run ends (tests and the CLI wait on it). */
  finished(runId: string): Promise<void>;
  liveEvents(runId: string): RunEventView[];
  listRuns(filter?: { sessionId?: string; limit?: number }): RunSummary[];
  run(runId: string): RunDetail;
}

/** `approvals.*` and `inputs.*`: what runs wait on a person for. */
export interface ApprovalsService {
  pendingApprovals(): PendingApprovalView[];
  resolveApproval(
    id: string,
    verdict: ApprovalVerdict,
    reason?: string,
  ): ReturnType<ApprovalBroker['resolve']>;
  /** Forms MCP servers asked the user to fill mid-call, oldest first. */
  pendingInputs(): PendingInputView[];
  /** An answer from this UI; an accepted one that does not fit the form stays pending. */
  resolveInput(id: string, answer: InputAnswer): InputResolveResult;
}

/** `models.*`: what answers chat, the catalog, downloads and imports. */
export interface ModelsService {
  models(): Promise<ModelsState>;
  /** This computer's GPU memory, probed once on first ask (null: none). */
  gpuMemory(): Promise<GpuMemory | null>;
  pullModel(name: string): { started: boolean };
  /** Switches the model (a picker option id, or a catalog, file or provider name); remembered
   * for `sessionId` and as the default for new conversations. */
  selectModel(ref: string, sessionId?: string): Promise<ModelsState>;
  /** Puts the conversation's model (or the default, for a new one) in force before a send. */
  prepareSend(sessionId?: string): Promise<void>;
  /** A GGUF file arriving in pieces: begin, chunk..., finish (header-checked) or cancel. */
  importModel: {
    begin(fileName: string, sizeBytes: number): Promise<string>;
    chunk(importId: string, offset: number, data: Buffer): Promise<number>;
    /** `note`: what a small context means for the chat, said before the first message. */
    finish(importId: string): Promise<{ fileName: string; note?: string; models: ModelsState }>;
    cancel(importId: string): Promise<void>;
  };
  loadModel(): Promise<ModelsState>;
  unloadModel(): Promise<ModelsState>;
  /** What answers chat now (for app info and the status bar). */
  modelLabel(): string;
}

/** `providers.*`: the manifest's providers and the servers added in the app. */
export interface ProvidersService {
  providers(): Promise<{
    providers: ProviderView[];
    connections: ConnectionView[];
    routing: string;
  }>;
  /** The models a server lists (the key given, or the named saved provider's). */
  testProvider(request: ProviderRequest): Promise<string[]>;
  /** Tests, then saves a provider and its key (by name, in the secret store). */
  addProvider(request: ProviderRequest & { name: string }): Promise<ConnectionView>;
  removeProvider(name: string): Promise<void>;
}

/** `secrets.*`: names and backends of the secret store, never a value. */
export interface SecretsService {
  secrets(): Promise<SecretsView>;
  setSecret(name: string, value: string): Promise<SecretsView>;
  deleteSecret(name: string): Promise<SecretsView>;
}

/** `settings.*`, `policies.*` and `workspace.*`: what the user sets for the whole app. */
export interface SettingsService {
  settings(): Settings;
  updateSettings(patch: Partial<Settings>): Settings;
  policies(): PoliciesView;
  setAutonomy(level: Autonomy): PoliciesView;
  /** The folder the agent's tools work in. */
  workspace(): string;
  /** A path inside the workspace (relative, as tool cards show it), confined like a tool's. */
  workspaceTarget(relative?: string): Promise<{ path: string; isFolder: boolean }>;
}

/** `skills.*` and `memory.*`: what the agent knows and may do, and what the user adds. */
export interface LibraryService {
  skills(): Array<{ name: string; description: string; enabled: boolean; trust: string }>;
  searchMemory(query: string): Promise<{
    hits: Array<{ text: string; score: number; source: string }>;
    notice: string | null;
  }>;
  /** Skills and memory the user adds in Settings. */
  library: Pick<UserLibrary, 'addSkill' | 'setSkillEnabled' | 'remember'>;
}

export interface Assistant
  extends SessionsService,
    ChatService,
    ApprovalsService,
    ModelsService,
    ProvidersService,
    SecretsService,
    SettingsService,
    LibraryService {
  /** The OS confinement the tools run under (the status bars show it). */
  readonly sandboxBackend: AppInfo['sandbox'];
  /** Everything pushed to a UI; returns the unsubscribe function. */
  subscribe(listener: (event: AssistantEvent) => void): () => void;
  /** `openaiEndpoint.*`: the OpenAI-compatible endpoint over the app's own engine. */
  openaiEndpoint: Pick<OpenAiEndpoint, 'view' | 'configure' | 'rotateKey' | 'requestLog'>;
  /** `mcp.*`: the user's MCP servers and their connections (Settings → MCP). */
  mcpServers: Pick<McpServers, 'list' | 'add' | 'setEnabled' | 'remove'>;
  /**
   * `channels.*` and `background.*`: the manifest's channels, pairing codes, and the work the
   * pause holds (Settings → Channels, the status bar); `connect` is for whoever serves the
   * channels on this agent.
   */
  channels: Pick<
    BackgroundChannels,
    'connect' | 'held' | 'setPaused' | 'list' | 'approvePairing' | 'rejectPairing'
  >;
  /**
   * Error text as a surface may show it: secrets redacted by the agent's redactor, the data
   * directory and home folder replaced by placeholders.
   */
  screenError(text: string): string;
  close(): Promise<void>;
}

/** Something the caller named does not exist (a session, a run, a model): IPC `not_found`. */
export class NotFound extends PincerError {
  readonly code = 'not_found';
  constructor(message: string, options?: PincerErrorOptions) {
    super('not_found', message, options);
    this.name = 'NotFound';
  }
}

/** A request the contract accepts but the core cannot (a malformed typed tool call). */
export class InvalidRequest extends PincerError {
  readonly code = 'invalid_request';
  constructor(message: string, options?: PincerErrorOptions) {
    super('invalid_request', message, options);
    this.name = 'InvalidRequest';
  }
}
