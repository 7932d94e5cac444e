/** POST /v1/chat/completions: OpenAI chat messages in, a completion or chunk stream out. */
import type { LocalMessage, LocalToolCall } from '../local/index.js';
import type { ChatGeneration, GenerateResult } from './backend.js';
import { invalidParam } from './errors.js';
import {
  chatUsage,
  chooseTools,
  finishReason,
  jsonSchemaFor,
  newId,
  parseArguments,
  unixNow,
} from './generation.js';
import { EventStream, sendJson } from './http.js';
import type { Outcome, PostRoute, RunContext } from './route.js';
import { type ConstrainedGeneration, constrain, generateChecked } from './structured.js';
import { type ChatCompletionRequest, type ChatMessage, chatCompletionRequest } from './wire.js';

export const chatRoute: PostRoute<ChatCompletionRequest> = {
  schema: chatCompletionRequest,
  prepare(body) {
    const generation = constrain(toGeneration(body));
    return {
      model: body.model,
      stream: body.stream === true,
      run: (ctx) =>
        body.stream ? streamChat(ctx, body, generation) : answerChat(ctx, body.model, generation),
    };
  },
};

function textOf(content: string | { text: string }[] | null | undefined): string {
  if (content == null) return '';
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

function toGeneration(body: ChatCompletionRequest): ChatGeneration {
  const system: string[] = [];
  const messages: LocalMessage[] = [];
  const callNames = new Map<string, string>();
  for (const [index, message] of body.messages.entries()) {
    const param = `messages.${index}`;
    messages.push(...toLocal(message, param, system, callNames));
  }
  const declared = (body.tools ?? []).map((tool) => ({
    name: tool.function.name,
    description: tool.function.description,
    parameters: tool.function.parameters,
  }));
  const choice = body.tool_choice;
  const { tools, toolChoice } = chooseTools(
    declared,
    typeof choice === 'object' ? { name: choice.function.name } : choice,
    (index) => `tools.${index}.function.parameters`,
  );
  return {
    system: system.length ? system.join('\n\n') : undefined,
    messages,
    tools: tools.length ? tools : undefined,
    toolChoice,
    jsonSchema: body.response_format
      ? jsonSchemaFor(
          body.response_format.type === 'json_schema'
            ? { type: 'json_schema', schema: body.response_format.json_schema.schema }
            : body.response_format,
          'response_format',
        )
      : undefined,
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    stop: typeof body.stop === 'string' ? [body.stop] : (body.stop ?? undefined),
    sampling: {
      temperature: body.temperature ?? 1,
      topP: body.top_p ?? undefined,
      seed: body.seed ?? undefined,
    },
  };
}

function toLocal(
  message: ChatMessage,
  param: string,
  system: string[],
  callNames: Map<string, string>,
): LocalMessage[] {
  switch (message.role) {
    case 'system':
    case 'developer':
      system.push(textOf(message.content));
      return [];
    case 'user': {
      if (typeof message.content !== 'string' && message.content.some((p) => p.type !== 'text'))
        throw invalidParam('the local model reads text only', `${param}.content`);
      const parts = message.content as string | { text: string }[];
      return [{ role: 'user', text: textOf(parts) }];
    }
    case 'assistant': {
      const toolCalls: LocalToolCall[] = (message.tool_calls ?? []).map((call, index) => {
        callNames.set(call.id, call.function.name);
        return {
          id: call.id,
          name: call.function.name,
          arguments: parseArguments(
            call.function.arguments,
            `${param}.tool_calls.${index}.function.arguments`,
          ),
        };
      });
      return [
        {
          role: 'assistant',
          text: textOf(message.content),
          toolCalls: toolCalls.length ? toolCalls : undefined,
        },
      ];
    }
    case 'tool':
      return [
        {
          role: 'tool',
          toolCallId: message.tool_call_id,
          name: callNames.get(message.tool_call_id) ?? '',
          result: textOf(message.content),
        },
      ];
  }
}

const wireToolCall = (call: LocalToolCall) => ({
  id: call.id,
  type: 'function' as const,
  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
});

async function answerChat(
  ctx: RunContext,
  model: string,
  generation: ConstrainedGeneration,
): Promise<Outcome> {
  const result = await generateChecked(ctx.backend, model, generation, { signal: ctx.signal });
  sendJson(ctx.res, 200, {
    id: newId('chatcmpl-'),
    object: 'chat.completion',
    created: unixNow(),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: result.toolCalls.length && !result.text ? null : result.text,
          refusal: null,
          ...(result.toolCalls.length ? { tool_calls: result.toolCalls.map(wireToolCall) } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(result.stopReason),
      },
    ],
    usage: chatUsage(result.usage),
  });
  return outcomeOf(result);
}

async function streamChat(
  ctx: RunContext,
  body: ChatCompletionRequest,
  generation: ConstrainedGeneration,
): Promise<Outcome> {
  const stream = new EventStream(ctx.res);
  const includeUsage = body.stream_options?.include_usage === true;
  const base = {
    id: newId('chatcmpl-'),
    object: 'chat.completion.chunk',
    created: unixNow(),
    model: body.model,
    ...(includeUsage ? { usage: null } : {}),
  };
  const chunk = (delta: object, finish: string | null = null) =>
    stream.send({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  let opened = false;
  const open = () => {
    if (!opened) chunk({ role: 'assistant', content: '' });
    opened = true;
  };
  const result = await generateChecked(ctx.backend, body.model, generation, {
    signal: ctx.signal,
    onText: (text) => {
      open();
      chunk({ content: text });
    },
  });
  open();
  if (result.toolCalls.length) {
    chunk({
      tool_calls: result.toolCalls.map((call, index) => ({ index, ...wireToolCall(call) })),
    });
  }
  chunk({}, finishReason(result.stopReason));
  if (includeUsage) stream.send({ ...base, choices: [], usage: chatUsage(result.usage) });
  stream.end();
  return outcomeOf(result);
}

export function outcomeOf(result: GenerateResult): Outcome {
  return { usage: result.usage, finish: result.stopReason };
}
