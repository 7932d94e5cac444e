/**
 * Gemini generateContent (`/v1beta/models/{model}:generateContent`, streamed with
 * `:streamGenerateContent?alt=sse`). Messages become `contents` of `parts`; function calls arrive
 * whole, and function responses are matched to calls by name, so ids we mint stay ours.
 */
import type { ContentBlock, Message, StopReason } from '../../../../shared/messages.js';
import type { StreamAssembler } from '../assembler.js';
import type { ProviderId } from '../ids.js';
import { eventJson } from '../sse.js';
import type { ModelEvent, ModelRequest } from '../types.js';
import {
  arr,
  badResponse,
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
  STOP: 'end_turn',
  MAX_TOKENS: 'max_tokens',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'end_turn',
};

export const gemini: WireAdapter = {
  protocol: 'gemini',
  defaultEndpoint: 'https://generativelanguage.googleapis.com/v1beta',

  build({ model, request, endpoint, apiKey, stream }) {
    const body: Json = { contents: geminiContents(request.messages) };
    if (request.system) body.systemInstruction = { parts: [{ text: request.system }] };
    if (request.tools?.length) {
      body.tools = [
        {
          functionDeclarations: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            parameters: tool.parameters,
          })),
        },
      ];
      body.toolConfig = { functionCallingConfig: toolConfig(request.toolChoice) };
    }
    const generation: Json = {};
    if (request.maxTokens !== undefined) generation.maxOutputTokens = request.maxTokens;
    if (request.temperature !== undefined) generation.temperature = request.temperature;
    if (request.stop?.length) generation.stopSequences = request.stop;
    if (request.jsonSchema) {
      generation.responseMimeType = 'application/json';
      generation.responseJsonSchema = request.jsonSchema;
    }
    if (Object.keys(generation).length) body.generationConfig = generation;
    const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    const headers: Record<string, string> = {};
    if (apiKey) headers['x-goog-api-key'] = apiKey;
    return {
      url: joinUrl(endpoint, `models/${encodeURIComponent(model)}:${method}`),
      headers,
      body,
    };
  },

  async *parseStream(events, assembler, provider) {
    const state = { calls: 0, stop: undefined as StopReason | undefined };
    for await (const event of events) {
      const chunk = obj(eventJson(event, provider));
      if (!chunk) throw badResponse(provider, 'a stream event is not a JSON object');
      yield* chunkEvents(chunk, assembler, provider, state);
    }
    // Gemini has no end-of-stream marker: the finish reason in the last chunk is the end.
    if (!state.stop) throw truncated(provider, 'a finish reason arrived');
    yield assembler.finish(state.stop);
  },

  parseResponse(body, assembler, provider) {
    const json = obj(body);
    if (!json) throw badResponse(provider, 'the response is not a JSON object');
    if (!Array.isArray(json.candidates) && !json.error) {
      throw badResponse(provider, 'the response has no candidates');
    }
    const state = { calls: 0, stop: undefined as StopReason | undefined };
    const events = [...chunkEvents(json, assembler, provider, state)];
    events.push(assembler.finish(state.stop ?? 'end_turn'));
    return events;
  },
};

function* chunkEvents(
  chunk: Json,
  assembler: StreamAssembler,
  provider: ProviderId,
  state: { calls: number; stop: StopReason | undefined },
): Generator<ModelEvent> {
  const error = obj(chunk.error);
  if (error) throw streamedError(provider, error);
  const candidate = obj(arr(chunk.candidates)[0]);
  for (const raw of arr(obj(candidate?.content)?.parts)) {
    const part = obj(raw) ?? {};
    const call = obj(part.functionCall);
    if (call) {
      const index = state.calls++;
      const id = str(call.id) ?? `call_${index}`;
      yield* assembler.toolComplete(index, id, str(call.name) ?? '', call.args ?? {});
    } else if (part.thought === true) {
      yield* assembler.reasoning(str(part.text) ?? '', str(part.thoughtSignature));
    } else if (typeof part.text === 'string') {
      yield* assembler.text(part.text);
    }
  }
  const reason = str(candidate?.finishReason);
  if (reason) {
    const stop = FINISH[reason] ?? 'end_turn';
    state.stop = stop === 'end_turn' && assembler.hasToolCalls() ? 'tool_use' : stop;
  }
  const usage = obj(chunk.usageMetadata);
  if (usage) {
    const thoughts = num(usage.thoughtsTokenCount);
    const candidates = num(usage.candidatesTokenCount);
    yield* assembler.setUsage({
      inputTokens: num(usage.promptTokenCount),
      outputTokens: candidates === undefined ? undefined : candidates + (thoughts ?? 0),
      cachedInputTokens: num(usage.cachedContentTokenCount),
      reasoningTokens: thoughts,
    });
  }
}

function toolConfig(choice: ModelRequest['toolChoice']): Json {
  if (choice === undefined || choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'required') return { mode: 'ANY' };
  if (choice === 'none') return { mode: 'NONE' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

function geminiContents(messages: Message[]): Json[] {
  // functionResponse names the function, not the call id: remember which id called what.
  const names = new Map<string, string>();
  return messages.map((message) => ({
    role: message.role === 'assistant' ? 'model' : 'user',
    parts: message.content.flatMap((block) => geminiPart(block, names)),
  }));
}

function geminiPart(block: ContentBlock, names: Map<string, string>): Json[] {
  switch (block.type) {
    case 'text':
      return block.text ? [{ text: block.text }] : [];
    case 'image':
      return [{ inlineData: { mimeType: block.mediaType, data: block.data } }];
    case 'tool_use':
      names.set(block.id, block.name);
      return [{ functionCall: { name: block.name, args: block.input } }];
    case 'tool_result': {
      const text = resultText(block.content);
      return [
        {
          functionResponse: {
            name: names.get(block.toolUseId) ?? block.toolUseId,
            response: block.isError ? { error: text } : { result: text },
          },
        },
      ];
    }
    case 'reasoning':
      return block.signature
        ? [{ text: block.text, thought: true, thoughtSignature: block.signature }]
        : [];
  }
}
