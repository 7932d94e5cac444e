/** POST /v1/completions: raw text continuation (no chat template), whole or streamed. */
import { outcomeOf } from './chat.js';
import { chatUsage, finishReason, newId, unixNow } from './generation.js';
import { EventStream, sendJson } from './http.js';
import type { PostRoute } from './route.js';
import { type CompletionRequest, completionRequest } from './wire.js';

/** OpenAI's default for this endpoint. */
const DEFAULT_MAX_TOKENS = 16;

export const completionsRoute: PostRoute<CompletionRequest> = {
  schema: completionRequest,
  prepare(body) {
    const generation = {
      prompt: typeof body.prompt === 'string' ? body.prompt : (body.prompt[0] ?? ''),
      maxTokens: body.max_tokens ?? DEFAULT_MAX_TOKENS,
      stop: typeof body.stop === 'string' ? [body.stop] : (body.stop ?? undefined),
      sampling: {
        temperature: body.temperature ?? 1,
        topP: body.top_p ?? undefined,
        seed: body.seed ?? undefined,
      },
    };
    const base = {
      id: newId('cmpl-'),
      object: 'text_completion',
      created: unixNow(),
      model: body.model,
    };
    const choice = (text: string, finish: string | null) => ({
      text,
      index: 0,
      logprobs: null,
      finish_reason: finish,
    });
    return {
      model: body.model,
      stream: body.stream === true,
      async run(ctx) {
        if (!body.stream) {
          const result = await ctx.backend.complete(body.model, {
            ...generation,
            signal: ctx.signal,
          });
          sendJson(ctx.res, 200, {
            ...base,
            choices: [choice(result.text, finishReason(result.stopReason))],
            usage: chatUsage(result.usage),
          });
          return outcomeOf(result);
        }
        const stream = new EventStream(ctx.res);
        const result = await ctx.backend.complete(body.model, {
          ...generation,
          signal: ctx.signal,
          onText: (text) => stream.send({ ...base, choices: [choice(text, null)] }),
        });
        stream.send({ ...base, choices: [choice('', finishReason(result.stopReason))] });
        if (body.stream_options?.include_usage)
          stream.send({ ...base, choices: [], usage: chatUsage(result.usage) });
        stream.end();
        return outcomeOf(result);
      },
    };
  },
};
