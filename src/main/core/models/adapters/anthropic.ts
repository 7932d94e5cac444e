/**
 * Anthropic Messages (`/v1/messages`). Content blocks map almost one to one; thinking blocks
 * keep their signature so they can be sent back. JSON-schema replies use a forced tool whose
 * arguments are the reply: its argument deltas are surfaced as text.
 */
import type { ContentBlock, Message, StopReason } from '../../../../shared/messages.js';
import type { StreamAssembler } from '../assembler.js';
import { eventJson } from '../sse.js';
import type { ModelEvent, ModelRequest } from '../types.js';
import {
  badResponse,
  type Json,
  joinUrl,
  num,
  obj,
  str,
  streamedError,
  truncated,
  type WireAdapter,
} from './adapter.js';

export const ANTHROPIC_VERSION = '2023-06-01';
/** The forced tool that carries a JSON-schema reply. */
export const JSON_REPLY_TOOL = 'json_reply';

const STOP: Record<string, StopReason> = {
  end_turn: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  pause_turn: 'end_turn',
  refusal: 'content_filter',
};

export const anthropic: WireAdapter = {
  protocol: 'anthropic',
  defaultEndpoint: 'https://api.anthropic.com/v1',

  build({ model, request, endpoint, apiKey, stream, defaultMaxTokens }) {
    const body: Json = {
      model,
      max_tokens: request.maxTokens ?? defaultMaxTokens,
      messages: request.messages.map(anthropicMessage),
    };
    if (request.system) body.system = request.system;
    const tools: Json[] = (request.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters,
    }));
    if (request.jsonSchema) {
      tools.push({
        name: JSON_REPLY_TOOL,
        description: 'Reply with JSON matching this schema.',
        input_schema: request.jsonSchema,
      });
      body.tool_choice = { type: 'tool', name: JSON_REPLY_TOOL };
    } else if (tools.length) {
      body.tool_choice = toolChoice(request.toolChoice);
    }
    if (tools.length) body.tools = tools;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.stop?.length) body.stop_sequences = request.stop;
    if (stream) body.stream = true;
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (apiKey) headers['x-api-key'] = apiKey;
    return { url: joinUrl(endpoint, 'messages'), headers, body };
  },

  async *parseStream(events, assembler, provider) {
    const jsonReplyBlocks = new Set<number>();
    let stop: StopReason | undefined;
    for await (const event of events) {
      const data = obj(eventJson(event, provider));
      if (!data) throw badResponse(provider, 'a stream event is not a JSON object');
      switch (str(data.type)) {
        case 'message_start': {
          const usage = obj(obj(data.message)?.usage);
          if (usage) yield* assembler.setUsage(usageOf(usage));
          break;
        }
        case 'content_block_start': {
          const index = num(data.index) ?? 0;
          const block = obj(data.content_block) ?? {};
          if (block.type === 'tool_use' && block.name === JSON_REPLY_TOOL)
            jsonReplyBlocks.add(index);
          else yield* blockStart(index, block, assembler);
          break;
        }
        case 'content_block_delta': {
          const index = num(data.index) ?? 0;
          const delta = obj(data.delta) ?? {};
          if (delta.type === 'text_delta') yield* assembler.text(str(delta.text) ?? '');
          else if (delta.type === 'thinking_delta')
            yield* assembler.reasoning(str(delta.thinking) ?? '');
          else if (delta.type === 'signature_delta')
            yield* assembler.reasoning('', str(delta.signature));
          else if (delta.type === 'input_json_delta') {
            const partial = str(delta.partial_json) ?? '';
            if (jsonReplyBlocks.has(index)) yield* assembler.text(partial);
            else yield* assembler.toolArguments(index, partial);
          }
          break;
        }
        case 'message_delta': {
          const reason = str(obj(data.delta)?.stop_reason);
          if (reason) stop = STOP[reason] ?? 'end_turn';
          const usage = obj(data.usage);
          if (usage) yield* assembler.setUsage(usageOf(usage));
          break;
        }
        case 'message_stop':
          if (!stop) throw truncated(provider, 'a stop reason arrived');
          // A JSON reply came through a forced tool call; to the caller it is a text reply.
          yield assembler.finish(
            stop === 'tool_use' && !assembler.hasToolCalls() ? 'end_turn' : stop,
          );
          return;
        case 'error':
          throw streamedError(provider, obj(data.error) ?? {});
        default:
          // ping, content_block_stop and event types added later carry nothing we need.
          break;
      }
    }
    throw truncated(provider, 'message_stop');
  },

  parseResponse(body, assembler, provider) {
    const json = obj(body);
    if (!json || !Array.isArray(json.content)) {
      if (json?.type === 'error') throw streamedError(provider, obj(json.error) ?? {});
      throw badResponse(provider, 'the response has no content array');
    }
    const events: ModelEvent[] = [];
    for (const [index, raw] of json.content.entries()) {
      const block = obj(raw) ?? {};
      if (block.type === 'tool_use' && block.name === JSON_REPLY_TOOL) {
        events.push(...assembler.text(JSON.stringify(block.input ?? {})));
      } else if (block.type === 'tool_use') {
        events.push(
          ...assembler.toolComplete(
            index,
            str(block.id) ?? `toolu_${index}`,
            str(block.name) ?? '',
            block.input,
          ),
        );
      } else {
        events.push(...blockStart(index, block, assembler));
      }
    }
    const usage = obj(json.usage);
    if (usage) events.push(...assembler.setUsage(usageOf(usage)));
    const stop = STOP[str(json.stop_reason) ?? 'end_turn'] ?? 'end_turn';
    events.push(
      assembler.finish(stop === 'tool_use' && !assembler.hasToolCalls() ? 'end_turn' : stop),
    );
    return events;
  },
};

function blockStart(index: number, block: Json, assembler: StreamAssembler): ModelEvent[] {
  switch (block.type) {
    case 'text':
      return assembler.text(str(block.text) ?? '');
    case 'thinking':
      return assembler.reasoning(str(block.thinking) ?? '', str(block.signature));
    case 'tool_use':
      return assembler.toolStart(index, str(block.id) ?? `toolu_${index}`, str(block.name) ?? '');
    default:
      return [];
  }
}

function usageOf(usage: Json) {
  // Anthropic reports cached reads apart from input_tokens; ours counts them inside the input.
  const cached = num(usage.cache_read_input_tokens);
  const input = num(usage.input_tokens);
  return {
    inputTokens: input === undefined ? undefined : input + (cached ?? 0),
    outputTokens: num(usage.output_tokens),
    cachedInputTokens: cached,
  };
}

function toolChoice(choice: ModelRequest['toolChoice']): Json {
  if (choice === undefined || choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  return { type: 'tool', name: choice.name };
}

function anthropicMessage(message: Message): Json {
  return { role: message.role, content: message.content.flatMap(anthropicBlock) };
}

function anthropicBlock(block: ContentBlock): Json[] {
  switch (block.type) {
    case 'text':
      return block.text ? [{ type: 'text', text: block.text }] : [];
    case 'image':
      return [
        {
          type: 'image',
          source: { type: 'base64', media_type: block.mediaType, data: block.data },
        },
      ];
    case 'tool_use':
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
    case 'tool_result':
      return [
        {
          type: 'tool_result',
          tool_use_id: block.toolUseId,
          content:
            typeof block.content === 'string'
              ? block.content
              : block.content.flatMap(anthropicBlock),
          ...(block.isError ? { is_error: true } : {}),
        },
      ];
    case 'reasoning':
      // A thinking block is only accepted back with the signature the API gave it.
      return block.signature
        ? [{ type: 'thinking', thinking: block.text, signature: block.signature }]
        : [];
  }
}
