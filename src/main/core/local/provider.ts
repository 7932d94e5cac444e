/**
 * The local engine as a provider of the model layer (#3).
 *
 * PROVISIONAL: #3's Message/ContentBlock/ToolDef types and its LocalEngine interface did not
 * exist yet when this was written, so the shapes below follow the text of issue #3 (messages of
 * content blocks: text, tool_use, tool_result, reasoning, image; one typed event stream). When
 * #3 lands, replace these local declarations with imports from it; the mapping stays.
 */
import type { LocalEngine } from './engine.js';
import { LocalEngineError } from './errors.js';
import type { GenerateRequest, LocalMessage, LocalStopReason, SamplingOptions } from './types.js';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; toolUseId: string; content: string | ContentBlock[]; isError?: boolean }
  | { type: 'reasoning'; text: string }
  | { type: 'image'; mediaType: string; data: string };

export interface Message {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

export interface ToolDef {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'cancelled';

export type ProviderEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  | { type: 'usage'; inputTokens: number; outputTokens: number; cachedInputTokens: number }
  | { type: 'finish'; stopReason: StopReason; message: Message };

export interface ProviderRequest {
  conversationId: string;
  system?: string;
  messages: Message[];
  tools?: ToolDef[];
  toolChoice?: 'auto' | 'required' | 'none';
  jsonSchema?: Record<string, unknown>;
  maxTokens?: number;
  stop?: string[];
  sampling?: SamplingOptions;
  signal?: AbortSignal;
}

const STOP: Record<LocalStopReason, StopReason> = {
  end: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_calls: 'tool_use',
  cancelled: 'cancelled',
};

/** Maps content-block messages onto the engine's messages (tool results become tool turns). */
export function toLocalMessages(messages: Message[]): LocalMessage[] {
  const out: LocalMessage[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    const text = message.content
      .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
      .map((b) => b.text)
      .join('');
    if (message.content.some((b) => b.type === 'image')) {
      throw new LocalEngineError('invalid_request', 'The local model does not read images');
    }
    if (message.role === 'assistant') {
      const toolCalls = message.content.flatMap((b) =>
        b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: b.input }] : [],
      );
      for (const call of toolCalls) names.set(call.id, call.name);
      out.push({ role: 'assistant', text, toolCalls: toolCalls.length ? toolCalls : undefined });
      continue;
    }
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const result =
        typeof block.content === 'string'
          ? block.content
          : block.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      out.push({
        role: 'tool',
        toolCallId: block.toolUseId,
        name: names.get(block.toolUseId) ?? '',
        result: block.isError ? { error: result } : result,
      });
    }
    if (text) out.push({ role: 'user', text });
  }
  return out;
}

/** Streams one model turn as provider events; the last event is always `finish`. */
export async function* streamLocal(
  engine: LocalEngine,
  request: ProviderRequest,
): AsyncGenerator<ProviderEvent> {
  const queue: ProviderEvent[] = [];
  let wake: (() => void) | undefined;
  const push = (event: ProviderEvent) => {
    queue.push(event);
    wake?.();
  };
  const generation: GenerateRequest = {
    system: request.system,
    messages: toLocalMessages(request.messages),
    tools: request.tools,
    toolChoice: request.toolChoice,
    jsonSchema: request.jsonSchema,
    maxTokens: request.maxTokens,
    stop: request.stop,
    sampling: request.sampling,
    signal: request.signal,
    onText: (text) => push({ type: 'text_delta', text }),
  };
  let settled = false;
  let failure: unknown;
  const done = engine
    .generate(request.conversationId, generation)
    .then((result) => {
      for (const call of result.toolCalls) {
        push({ type: 'tool_call', id: call.id, name: call.name, input: call.arguments });
      }
      push({
        type: 'usage',
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        cachedInputTokens: result.usage.inputTokens - result.usage.evaluatedInputTokens,
      });
      const content: ContentBlock[] = [];
      if (result.text) content.push({ type: 'text', text: result.text });
      for (const call of result.toolCalls) {
        content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
      }
      push({
        type: 'finish',
        stopReason: STOP[result.stopReason],
        message: { role: 'assistant', content },
      });
    })
    .catch((error: unknown) => {
      failure = error;
    })
    .finally(() => {
      settled = true;
      wake?.();
    });
  while (true) {
    const event = queue.shift();
    if (event) {
      yield event;
      continue;
    }
    if (settled) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
  await done;
  if (failure) throw failure;
}
