/**
 * OpenAI-compatible chat completions (`/chat/completions`): OpenAI itself, Ollama, LM Studio,
 * vLLM and llama.cpp's server. Reasoning arrives as `reasoning_content` (DeepSeek, vLLM) or
 * `reasoning` (Ollama, OpenRouter); both map onto reasoning deltas.
 */
import type { Message, StopReason } from '../../../../shared/messages.js';
import type { StreamAssembler } from '../assembler.js';
import type { ProviderId } from '../ids.js';
import { eventJson, type SseEvent } from '../sse.js';
import type { ModelEvent, ModelRequest } from '../types.js';
import {
  arr,
  type BuildContext,
  badResponse,
  convertedOnce,
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

const FINISH: Record<string, StopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'content_filter',
};

export const openaiChat: WireAdapter = {
  protocol: 'openai-compatible',
  defaultEndpoint: 'https://api.openai.com/v1',

  build({ model, request, endpoint, apiKey, stream }: BuildContext) {
    const body: Json = { model, messages: chatMessages(request) };
    if (request.tools?.length) {
      body.tools = request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      body.tool_choice = toolChoice(request.toolChoice);
    }
    if (request.jsonSchema) {
      body.response_format = {
        type: 'json_schema',
        json_schema: { name: 'reply', schema: request.jsonSchema, strict: true },
      };
    }
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.stop?.length) body.stop = request.stop;
    if (stream) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    const headers: Record<string, string> = {};
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    return { url: joinUrl(endpoint, 'chat/completions'), headers, body };
  },

  async *parseStream(events, assembler, provider) {
    let stop: StopReason | undefined;
    for await (const event of events) {
      if (event.data === '[DONE]') {
        if (!stop) throw truncated(provider, 'a finish reason arrived');
        yield assembler.finish(stop);
        return;
      }
      const chunk = chunkOf(event, provider);
      const [choice] = arr(chunk.choices).map(obj);
      if (choice) {
        yield* deltaEvents(obj(choice.delta) ?? {}, assembler);
        const reason = str(choice.finish_reason);
        if (reason) stop = finishReason(reason, assembler);
      }
      const usage = obj(chunk.usage);
      if (usage) yield* assembler.setUsage(usageOf(usage));
    }
    // Some compatible servers close without [DONE] once the finish reason was sent.
    if (stop) {
      yield assembler.finish(stop);
      return;
    }
    throw truncated(provider, 'the reply was complete');
  },

  parseResponse(body, assembler, provider) {
    const json = obj(body);
    if (json?.error) throw streamedError(provider, obj(json.error) ?? {});
    const choice = obj(arr(json?.choices)[0]);
    const message = obj(choice?.message);
    if (!json || !message) throw badResponse(provider, 'the response has no choices[0].message');
    const events: ModelEvent[] = [];
    const reasoning = str(message.reasoning_content) ?? str(message.reasoning);
    if (reasoning) events.push(...assembler.reasoning(reasoning));
    events.push(...assembler.text(str(message.content) ?? ''));
    for (const [index, raw] of arr(message.tool_calls).entries()) {
      const call = obj(raw);
      const fn = obj(call?.function);
      events.push(
        ...assembler.toolStart(index, str(call?.id) ?? `call_${index}`, str(fn?.name) ?? ''),
      );
      events.push(...assembler.toolArguments(index, str(fn?.arguments) ?? ''));
    }
    const usage = obj(json.usage);
    if (usage) events.push(...assembler.setUsage(usageOf(usage)));
    events.push(assembler.finish(finishReason(str(choice?.finish_reason) ?? 'stop', assembler)));
    return events;
  },
};

function chunkOf(event: SseEvent, provider: ProviderId): Json {
  const chunk = obj(eventJson(event, provider));
  if (!chunk) throw badResponse(provider, 'a stream event is not a JSON object');
  const error = obj(chunk.error);
  if (error) throw streamedError(provider, error);
  return chunk;
}

function* deltaEvents(delta: Json, assembler: StreamAssembler): Generator<ModelEvent> {
  const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning);
  if (reasoning) yield* assembler.reasoning(reasoning);
  const content = str(delta.content);
  if (content) yield* assembler.text(content);
  for (const raw of arr(delta.tool_calls)) {
    const call = obj(raw) ?? {};
    const index = num(call.index) ?? 0;
    const fn = obj(call.function) ?? {};
    const name = str(fn.name);
    if (name) yield* assembler.toolStart(index, str(call.id) ?? `call_${index}`, name);
    const args = str(fn.arguments);
    if (args) yield* assembler.toolArguments(index, args);
  }
}

/** Servers disagree on tool-call finishes ('stop' with calls present): trust the calls. */
function finishReason(reason: string, assembler: StreamAssembler): StopReason {
  if (assembler.hasToolCalls() && (reason === 'stop' || reason === 'tool_calls')) return 'tool_use';
  return FINISH[reason] ?? 'end_turn';
}

function usageOf(usage: Json) {
  return {
    inputTokens: num(usage.prompt_tokens),
    outputTokens: num(usage.completion_tokens),
    cachedInputTokens: num(obj(usage.prompt_tokens_details)?.cached_tokens),
    reasoningTokens: num(obj(usage.completion_tokens_details)?.reasoning_tokens),
  };
}

function toolChoice(choice: ModelRequest['toolChoice']) {
  if (choice === undefined || typeof choice === 'string') return choice ?? 'auto';
  return { type: 'function', function: { name: choice.name } };
}

function chatMessages(request: ModelRequest): Json[] {
  const out: Json[] = [];
  if (request.system) out.push({ role: 'system', content: request.system });
  for (const message of request.messages) out.push(...chatMessage(message));
  return out;
}

const chatMessage = convertedOnce((message: Message): readonly Json[] => {
  if (message.role === 'assistant') {
    const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    const calls = message.content.flatMap((b) =>
      b.type === 'tool_use'
        ? [
            {
              id: b.id,
              type: 'function',
              function: { name: b.name, arguments: JSON.stringify(b.input) },
            },
          ]
        : [],
    );
    const out: Json = { role: 'assistant', content: text || null };
    if (calls.length) out.tool_calls = calls;
    return [out];
  }
  // Tool results become `tool` messages, which must directly follow the assistant's calls.
  const out: Json[] = message.content.flatMap((b) =>
    b.type === 'tool_result'
      ? [{ role: 'tool', tool_call_id: b.toolUseId, content: resultText(b.content) }]
      : [],
  );
  const parts = message.content.flatMap((b): Json[] => {
    if (b.type === 'text') return [{ type: 'text', text: b.text }];
    if (b.type === 'image')
      return [{ type: 'image_url', image_url: { url: dataUrl(b.mediaType, b.data) } }];
    return [];
  });
  if (parts.length === 0) return out;
  const onlyText = parts.every((p) => p.type === 'text');
  out.push({
    role: 'user',
    content: onlyText ? parts.map((p) => p.text).join('') : parts,
  });
  return out;
});
