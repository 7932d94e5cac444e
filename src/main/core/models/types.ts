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
  /** A GBNF grammar the reply must match; only the local engine can enforce one. */
  gbnf?: string;
  maxTokens?: number;
  temperature?: number;
  stop?: string[];
  /** Conversation key: the local engine keeps its KV cache per conversation. */
  conversationId?: string;
  /**
   * Responses API chaining: when set, only the messages after the turn that produced this id
   * are sent (see `chainFrom`).
   */
  previousResponseId?: string;
  signal?: AbortSignal;
}

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
