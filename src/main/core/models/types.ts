/**
 * The contract between the agent loop and any model: one request shape, one event stream.
 * Adapters translate; the loop never learns which wire protocol is behind a provider.
 */
import type { Message, StopReason, ToolDef, Usage } from '../../../shared/messages.js';
import type { ModelError } from './errors.js';
import type { ModelId, ProviderId } from './ids.js';

export type Protocol = 'openai-compatible' | 'responses' | 'anthropic' | 'gemini' | 'local';
export const PROTOCOLS: readonly Protocol[] = [
  'openai-compatible',
  'responses',
  'anthropic',
  'gemini',
  'local',
];

export interface ModelCapabilities {
  tools: boolean;
  streaming: boolean;
  /** Structured output constrained to a JSON Schema. */
  json: boolean;
  reasoning: boolean;
  vision: boolean;
  contextWindow: number;
  maxOutputTokens: number;
}

/** US dollars per 1000 tokens; zero for local models. */
export interface ModelPricing {
  inputPer1k: number;
  outputPer1k: number;
  cachedInputPer1k?: number;
}

export interface ModelDescriptor {
  id: ModelId;
  provider: ProviderId;
  /** The name the provider's API expects in the request. */
  apiModel: string;
  protocol: Protocol;
  displayName: string;
  capabilities: ModelCapabilities;
  pricing: ModelPricing;
  /** 0..1 relative rankings the router's quality and speed strategies sort by. */
  quality: number;
  speed: number;
  deprecated?: boolean;
}

export interface ModelRequest {
  system?: string;
  messages: Message[];
  tools?: ToolDef[];
  /** `auto` (default), `required` (must call some tool), `none`, or one named tool. */
  toolChoice?: 'auto' | 'required' | 'none' | { name: string };
  /** Ask for a reply that is JSON valid against this schema. */
  jsonSchema?: Record<string, unknown>;
  maxTokens?: number;
  temperature?: number;
  stop?: string[];
  /** What only one kind of provider reads; every other kind ignores it. */
  providerOptions?: ProviderOptions;
  signal?: AbortSignal;
}

/** Options of the local engine (the `local` protocol). */
export interface LocalRequestOptions {
  /** The engine keeps its KV cache per conversation: turns of one key reuse it. */
  conversationId?: string;
  /** A GBNF grammar the reply must match (the compact tool-call language, say). */
  gbnf?: string;
}

/** Options of the OpenAI Responses API (the `responses` protocol). */
export interface ResponsesRequestOptions {
  /**
   * Chaining: the server already holds the conversation up to the turn that produced this id,
   * so only the messages after it are sent (see `chainFrom`).
   */
  previousResponseId?: string;
}

/** The options each protocol defines; a protocol with none has no entry. */
interface OptionsByProtocol {
  local: LocalRequestOptions;
  responses: ResponsesRequestOptions;
}

/**
 * Vendor options keyed by the kind of provider (its protocol), as the AI SDK's
 * `providerOptions`: a request routed to another kind, a fallback say, carries them unread.
 * Keyed by protocol rather than provider id, so every provider of a kind reads the same entry
 * and a key that is not a protocol cannot be written.
 */
export type ProviderOptions = {
  readonly [P in Protocol]?: P extends keyof OptionsByProtocol ? OptionsByProtocol[P] : never;
};

export type ModelEvent =
  | { type: 'start'; provider: ProviderId; model: string }
  | { type: 'text_delta'; text: string }
  | { type: 'reasoning_delta'; text: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; argumentsDelta: string }
  | { type: 'usage'; usage: Usage }
  | {
      type: 'finish';
      stopReason: StopReason;
      message: Message;
      usage: Usage;
      /** The Responses API id to chain the next turn from. */
      responseId?: string;
    }
  /** The stream broke after it started: what arrived so far, and why it stopped. */
  | { type: 'connection_lost'; error: ModelError; partial: Message };

export type FinishEvent = Extract<ModelEvent, { type: 'finish' }>;

/**
 * A provider streams one model turn. Failures before the first event throw a ModelError (the
 * router may retry or fall back); failures after it end the stream with `connection_lost`.
 */
export interface ModelProvider {
  readonly id: ProviderId;
  readonly protocol: Protocol;
  stream(model: string, request: ModelRequest): AsyncIterable<ModelEvent>;
}
