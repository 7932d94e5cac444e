/**
 * POST /v1/responses: the Responses API for text and function tools, whole or as its typed
 * event stream. Stateless: `previous_response_id` is refused, the client sends the input whole.
 */
import type { LocalMessage, LocalToolCall } from '../local/index.js';
import type { ChatGeneration, GenerateResult } from './backend.js';
import { outcomeOf } from './chat.js';
import { invalidParam, toApiError } from './errors.js';
import {
  cachedTokens,
  chooseTools,
  jsonSchemaFor,
  newId,
  parseArguments,
  unixNow,
} from './generation.js';
import { EventStream, sendJson } from './http.js';
import type { PostRoute, RunContext } from './route.js';
import { type ConstrainedGeneration, constrain, generateChecked } from './structured.js';
import { type ResponseInputItem, type ResponsesRequest, responsesRequest } from './wire.js';

export const responsesRoute: PostRoute<ResponsesRequest> = {
  schema: responsesRequest,
  prepare(body) {
    const generation = constrain(toGeneration(body));
    return {
      model: body.model,
      stream: body.stream === true,
      run: (ctx) =>
        body.stream ? streamResponse(ctx, body, generation) : answer(ctx, body, generation),
    };
  },
};

function toGeneration(body: ResponsesRequest): ChatGeneration {
  const system: string[] = body.instructions ? [body.instructions] : [];
  const messages: LocalMessage[] = [];
  const items: ResponseInputItem[] =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
  const callNames = new Map<string, string>();
  for (const [index, item] of items.entries()) {
    if (item.type === 'function_call') {
      callNames.set(item.call_id, item.name);
      const call = {
        id: item.call_id,
        name: item.name,
        arguments: parseArguments(item.arguments, `input.${index}.arguments`),
      };
      messages.push({ role: 'assistant', text: '', toolCalls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({
        role: 'tool',
        toolCallId: item.call_id,
        name: callNames.get(item.call_id) ?? '',
        result: item.output,
      });
    } else {
      if (typeof item.content !== 'string' && item.content.some((part) => !('text' in part)))
        throw invalidParam('the local model reads text only', `input.${index}.content`);
      const text =
        typeof item.content === 'string'
          ? item.content
          : item.content.map((part) => ('text' in part ? String(part.text) : '')).join('');
      if (item.role === 'system' || item.role === 'developer') system.push(text);
      else
        messages.push(item.role === 'user' ? { role: 'user', text } : { role: 'assistant', text });
    }
  }
  const declared = (body.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description ?? undefined,
    parameters: tool.parameters ?? undefined,
  }));
  const choice = body.tool_choice;
  const { tools, toolChoice } = chooseTools(
    declared,
    typeof choice === 'object' ? { name: choice.name } : choice,
    (index) => `tools.${index}.parameters`,
  );
  return {
    system: system.length ? system.join('\n\n') : undefined,
    messages,
    tools: tools.length ? tools : undefined,
    toolChoice,
    jsonSchema: body.text?.format ? jsonSchemaFor(body.text.format, 'text.format') : undefined,
    maxTokens: body.max_output_tokens ?? undefined,
    sampling: { temperature: body.temperature ?? 1, topP: body.top_p ?? undefined },
  };
}

interface Ids {
  response: string;
  message: string;
  created: number;
}

function envelope(body: ResponsesRequest, ids: Ids, result?: GenerateResult) {
  const incomplete = result?.stopReason === 'max_tokens';
  return {
    id: ids.response,
    object: 'response',
    created_at: ids.created,
    status: result ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    error: null,
    model: body.model,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    temperature: body.temperature ?? 1,
    top_p: body.top_p ?? 1,
    tools: body.tools ?? [],
    tool_choice: body.tool_choice ?? 'auto',
    parallel_tool_calls: false,
    text: { format: body.text?.format ?? { type: 'text' } },
    metadata: {},
    output: result ? outputItems(ids, result) : [],
    usage: result
      ? {
          input_tokens: result.usage.inputTokens,
          input_tokens_details: { cached_tokens: cachedTokens(result.usage) },
          output_tokens: result.usage.outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: result.usage.inputTokens + result.usage.outputTokens,
        }
      : null,
  };
}

const messageItem = (id: string, text: string, status: 'in_progress' | 'completed') => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content: status === 'completed' ? [outputText(text)] : [],
});
const outputText = (text: string) => ({ type: 'output_text', text, annotations: [] });
const callItem = (call: LocalToolCall, status: 'in_progress' | 'completed') => ({
  id: `fc_${call.id}`,
  type: 'function_call',
  status,
  call_id: call.id,
  name: call.name,
  arguments: status === 'completed' ? JSON.stringify(call.arguments) : '',
});

function outputItems(ids: Ids, result: GenerateResult) {
  const items: object[] = [];
  if (result.text || result.toolCalls.length === 0)
    items.push(messageItem(ids.message, result.text, 'completed'));
  for (const call of result.toolCalls) items.push(callItem(call, 'completed'));
  return items;
}

const newIds = (): Ids => ({
  response: newId('resp_'),
  message: newId('msg_'),
  created: unixNow(),
});

async function answer(ctx: RunContext, body: ResponsesRequest, generation: ConstrainedGeneration) {
  const result = await generateChecked(ctx.backend, body.model, generation, {
    signal: ctx.signal,
  });
  sendJson(ctx.res, 200, envelope(body, newIds(), result));
  return outcomeOf(result);
}

async function streamResponse(
  ctx: RunContext,
  body: ResponsesRequest,
  generation: ConstrainedGeneration,
) {
  const stream = new EventStream(ctx.res);
  const ids = newIds();
  let sequence = 0;
  const emit = (type: string, fields: object) =>
    stream.send({ type, sequence_number: sequence++, ...fields }, type);
  emit('response.created', { response: envelope(body, ids) });
  emit('response.in_progress', { response: envelope(body, ids) });
  let text = '';
  let messageOpen = false;
  const part = { item_id: ids.message, output_index: 0, content_index: 0 };
  const openMessage = () => {
    if (messageOpen) return;
    messageOpen = true;
    emit('response.output_item.added', {
      output_index: 0,
      item: messageItem(ids.message, '', 'in_progress'),
    });
    emit('response.content_part.added', { ...part, part: outputText('') });
  };
  let result: GenerateResult;
  try {
    result = await generateChecked(ctx.backend, body.model, generation, {
      signal: ctx.signal,
      onText: (delta) => {
        openMessage();
        text += delta;
        emit('response.output_text.delta', { ...part, delta, logprobs: [] });
      },
    });
  } catch (error) {
    // The stream is open: the failure is its last event, in the Responses API's own shape.
    const { message, code, param } = toApiError(error);
    emit('error', { code, message, param });
    stream.end(false);
    throw error;
  }
  if (result.toolCalls.length === 0) openMessage();
  if (messageOpen) {
    emit('response.output_text.done', { ...part, text, logprobs: [] });
    emit('response.content_part.done', { ...part, part: outputText(text) });
    emit('response.output_item.done', {
      output_index: 0,
      item: messageItem(ids.message, text, 'completed'),
    });
  }
  for (const [index, call] of result.toolCalls.entries()) {
    const outputIndex = index + (messageOpen ? 1 : 0);
    const item = callItem(call, 'completed');
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: callItem(call, 'in_progress'),
    });
    emit('response.function_call_arguments.delta', {
      item_id: item.id,
      output_index: outputIndex,
      delta: item.arguments,
    });
    emit('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: outputIndex,
      name: call.name,
      arguments: item.arguments,
    });
    emit('response.output_item.done', { output_index: outputIndex, item });
  }
  const final = envelope(body, ids, result);
  emit(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', {
    response: final,
  });
  stream.end(false);
  return outcomeOf(result);
}
