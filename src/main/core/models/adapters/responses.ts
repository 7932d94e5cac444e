/**
 * OpenAI Responses API (`/v1/responses`). Input is a list of typed items; output arrives as
 * items too. With `providerOptions.responses.previousResponseId` the server already holds the
 * conversation, so only the messages after the last assistant turn are sent. Of a request's
 * provider options it reads only `responses`.
 */
import type { Message, StopReason } from '../../../../shared/messages.js';
import type { StreamAssembler } from '../assembler.js';
import { eventJson } from '../sse.js';
import type { ModelEvent, ModelRequest } from '../types.js';
import {
  arr,
  badResponse,
  dataUrl,
  type Json,
  joinUrl,
  num,
  obj,
  resultText,
  str,
  streamedError,
  truncated,
  type WireAdapter,
} from './adapter.js';

export const responses: WireAdapter = {
  protocol: 'responses',
  defaultEndpoint: 'https://api.openai.com/v1',

  build({ model, request, endpoint, apiKey, stream }) {
    const body: Json = { model, input: inputItems(chainFrom(request)) };
    const previous = request.providerOptions?.responses?.previousResponseId;
    if (previous) body.previous_response_id = previous;
    if (request.system) body.instructions = request.system;
    if (request.tools?.length) {
      body.tools = request.tools.map((tool) => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        strict: false,
      }));
      body.tool_choice = toolChoice(request.toolChoice);
    }
    if (request.jsonSchema) {
      body.text = {
        format: { type: 'json_schema', name: 'reply', schema: request.jsonSchema, strict: true },
      };
    }
    if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (stream) body.stream = true;
    const headers: Record<string, string> = {};
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    return { url: joinUrl(endpoint, 'responses'), headers, body };
  },

  async *parseStream(events, assembler, provider) {
    // Output items are addressed by output_index; tool calls get it as their slot number.
    for await (const event of events) {
      const data = obj(eventJson(event, provider));
      if (!data) throw badResponse(provider, 'a stream event is not a JSON object');
      const index = num(data.output_index) ?? 0;
      switch (str(data.type) ?? event.event) {
        case 'response.output_item.added': {
          const item = obj(data.item) ?? {};
          if (item.type === 'function_call') {
            yield* assembler.toolStart(
              index,
              str(item.call_id) ?? str(item.id) ?? `call_${index}`,
              str(item.name) ?? '',
            );
            yield* assembler.toolArguments(index, str(item.arguments) ?? '');
          }
          break;
        }
        case 'response.output_text.delta':
        case 'response.refusal.delta':
          yield* assembler.text(str(data.delta) ?? '');
          break;
        case 'response.function_call_arguments.delta':
          yield* assembler.toolArguments(index, str(data.delta) ?? '');
          break;
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          yield* assembler.reasoning(str(data.delta) ?? '');
          break;
        case 'response.completed':
        case 'response.incomplete': {
          const response = obj(data.response) ?? {};
          const usage = obj(response.usage);
          if (usage) yield* assembler.setUsage(usageOf(usage));
          yield assembler.finish(stopReason(response, assembler), str(response.id));
          return;
        }
        case 'response.failed':
          throw streamedError(provider, obj(obj(data.response)?.error) ?? {});
        case 'error':
          throw streamedError(provider, data);
        default:
          // created, in_progress, *.done and content_part events repeat what deltas said.
          break;
      }
    }
    throw truncated(provider, 'response.completed');
  },

  parseResponse(body, assembler, provider) {
    const json = obj(body);
    if (!json || !Array.isArray(json.output)) {
      if (obj(json?.error)) throw streamedError(provider, obj(json?.error) ?? {});
      throw badResponse(provider, 'the response has no output array');
    }
    const events: ModelEvent[] = [];
    for (const [index, raw] of json.output.entries()) {
      const item = obj(raw) ?? {};
      if (item.type === 'message') {
        for (const part of arr(item.content).map(obj)) {
          if (part?.type === 'output_text' || part?.type === 'refusal') {
            events.push(...assembler.text(str(part.text) ?? str(part.refusal) ?? ''));
          }
        }
      } else if (item.type === 'function_call') {
        events.push(
          ...assembler.toolStart(index, str(item.call_id) ?? `call_${index}`, str(item.name) ?? ''),
        );
        events.push(...assembler.toolArguments(index, str(item.arguments) ?? ''));
      } else if (item.type === 'reasoning') {
        const summary = arr(item.summary)
          .map((s) => str(obj(s)?.text) ?? '')
          .join('\n');
        events.push(...assembler.reasoning(summary));
      }
    }
    const usage = obj(json.usage);
    if (usage) events.push(...assembler.setUsage(usageOf(usage)));
    events.push(assembler.finish(stopReason(json, assembler), str(json.id)));
    return events;
  },
};

/** The messages to send: all of them, or those after the last assistant turn when chaining. */
export function chainFrom(request: ModelRequest): Message[] {
  if (!request.providerOptions?.responses?.previousResponseId) return request.messages;
  const lastAssistant = request.messages.findLastIndex((m) => m.role === 'assistant');
  return request.messages.slice(lastAssistant + 1);
}

function stopReason(response: Json, assembler: StreamAssembler): StopReason {
  const reason = str(obj(response.incomplete_details)?.reason);
  if (reason === 'max_output_tokens') return 'max_tokens';
  if (reason === 'content_filter') return 'content_filter';
  return assembler.hasToolCalls() ? 'tool_use' : 'end_turn';
}

function usageOf(usage: Json) {
  return {
    inputTokens: num(usage.input_tokens),
    outputTokens: num(usage.output_tokens),
    cachedInputTokens: num(obj(usage.input_tokens_details)?.cached_tokens),
    reasoningTokens: num(obj(usage.output_tokens_details)?.reasoning_tokens),
  };
}

function toolChoice(choice: ModelRequest['toolChoice']) {
  if (choice === undefined || typeof choice === 'string') return choice ?? 'auto';
  return { type: 'function', name: choice.name };
}

function inputItems(messages: Message[]): Json[] {
  const items: Json[] = [];
  for (const message of messages) {
    const parts: Json[] = [];
    for (const block of message.content) {
      if (block.type === 'text' && block.text) {
        parts.push({
          type: message.role === 'user' ? 'input_text' : 'output_text',
          text: block.text,
        });
      } else if (block.type === 'image') {
        parts.push({ type: 'input_image', image_url: dataUrl(block.mediaType, block.data) });
      } else if (block.type === 'tool_use') {
        items.push({
          type: 'function_call',
          call_id: block.id,
          name: block.name,
          arguments: JSON.stringify(block.input),
        });
      } else if (block.type === 'tool_result') {
        items.push({
          type: 'function_call_output',
          call_id: block.toolUseId,
          output: resultText(block.content),
        });
      }
    }
    if (parts.length) items.push({ role: message.role, content: parts });
  }
  return items;
}
