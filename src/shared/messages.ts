/**
 * The provider-neutral conversation model. Every adapter maps these onto its wire format
 * and back; nothing vendor-specific appears here. Plain data: safe to persist, to send over IPC
 * and to replay against a different provider mid-session.
 */

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  /** The provider's call id (or one we minted when the protocol has none, like Gemini). */
  id: string;
  name: string;
  /** The parsed arguments object. */
  input: Record<string, unknown>;
  /** Why the model's arguments could not be read (input is then {}): answered invalid_arguments. */
  invalidArguments?: string;
}

export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  content: string | Array<TextBlock | ImageBlock>;
  isError?: boolean;
}

export interface ReasoningBlock {
  type: 'reasoning';
  text: string;
  /**
   * Opaque provider token that must travel back unchanged for the trace to be accepted again
   * (Anthropic's thinking signature, the Responses API's encrypted reasoning id).
   */
  signature?: string;
}

export interface ImageBlock {
  type: 'image';
  mediaType: string;
  /** Base64 without a data: prefix. */
  data: string;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock | ImageBlock;

/** System text travels beside the messages (ModelRequest.system), not as a role. */
export interface Message {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

export interface ToolDef {
  name: string;
  description?: string;
  /** JSON Schema (an object schema) of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  invalidArguments?: string;
}

export interface ToolResult {
  toolUseId: string;
  content: string;
  isError?: boolean;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from a prompt cache (billed cheaper or not at all). */
  cachedInputTokens?: number;
  /** Output tokens spent on hidden reasoning, when the provider reports them. */
  reasoningTokens?: number;
}

export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'content_filter'
  | 'cancelled';

export function textOf(message: Message): string {
  return message.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

export function toolCallsOf(message: Message): ToolCall[] {
  return message.content
    .filter((block): block is ToolUseBlock => block.type === 'tool_use')
    .map(({ id, name, input, invalidArguments }) =>
      invalidArguments === undefined ? { id, name, input } : { id, name, input, invalidArguments },
    );
}

export function userText(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** A person's turn: the images first (as vendors advise for image questions), then the text. */
export function userTurn(text: string, images: readonly ImageBlock[] = []): Message {
  return { role: 'user', content: [...images, { type: 'text', text }] };
}

/**
 * How people read a stored tool name: history written before names were canonical spells
 * `fs/read` as `fs__read` (the wire spelling, now confined to the model layer).
 */
export function toolDisplayName(name: string): string {
  return name.replaceAll('__', '/');
}

/** The longest message a person can send in one go (characters). */
export const MAX_MESSAGE_CHARS = 100_000;
