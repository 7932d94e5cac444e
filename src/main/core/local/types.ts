/**
 * The local engine's own request and result shapes: plain data, independent of node-llama-cpp
 * and of the provider layer (provider.ts maps those onto these).
 */

export interface LocalToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

export type LocalMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls?: LocalToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; result: unknown };

export interface LocalToolDef {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (the subset node-llama-cpp turns into a grammar). */
  parameters?: Record<string, unknown>;
}

export interface SamplingOptions {
  /** 0 (default) is greedy. */
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  seed?: number;
  /** Penalise repeats of recent tokens (1 = off). */
  repeatPenalty?: number;
}

export interface GenerateRequest {
  system?: string;
  messages: LocalMessage[];
  tools?: LocalToolDef[];
  /** `auto` (default): the model decides; `required`: it must call a tool; `none`: text only. */
  toolChoice?: 'auto' | 'required' | 'none';
  /**
   * Who judges a tool call's arguments after the grammar made them. `engine` (default): when
   * node-llama-cpp's own re-check refuses the call, sample again (a few times), so every call
   * returned passes the schema as node-llama-cpp reads it (the OpenAI endpoint's promise).
   * `caller`: return the call the grammar made, for a caller that validates every call against
   * the tool's real schema itself (the agent's runtime does, before the policy is asked).
   */
  argumentsCheckedBy?: 'engine' | 'caller';
  /** Constrain the reply to JSON valid for this schema (not together with tools). */
  jsonSchema?: Record<string, unknown>;
  /** Constrain the reply to this GBNF grammar (e.g. the compact tool-call language). */
  gbnf?: string;
  sampling?: SamplingOptions;
  maxTokens?: number;
  /** Stop generating when one of these strings appears (it is not part of the reply). */
  stop?: string[];
  /** Receives each piece of reply text as it is generated. */
  onText?: (delta: string) => void;
  signal?: AbortSignal;
}

/** Raw text continuation: the prompt goes to the model as is, without a chat template. */
export interface CompleteRequest {
  prompt: string;
  sampling?: SamplingOptions;
  maxTokens?: number;
  stop?: string[];
  onText?: (delta: string) => void;
  signal?: AbortSignal;
}

export type LocalStopReason = 'end' | 'max_tokens' | 'stop_sequence' | 'tool_calls' | 'cancelled';

export interface LocalUsage {
  /** Tokens of the prompt (system, tools, history) as the model saw them. */
  inputTokens: number;
  /** Of those, tokens actually evaluated this call; the rest came from the KV cache. */
  evaluatedInputTokens: number;
  outputTokens: number;
}

export interface GenerateResult {
  text: string;
  toolCalls: LocalToolCall[];
  stopReason: LocalStopReason;
  /** The stop string that ended generation, when stopReason is stop_sequence. */
  stopSequence?: string;
  usage: LocalUsage;
}
