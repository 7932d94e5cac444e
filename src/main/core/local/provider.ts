/**
 * The local engine as a provider of the model layer: content-block messages in, the same
 * ModelEvent stream as every HTTP protocol out. The engine delivers tool calls whole (its
 * grammar already guarantees their JSON), so they arrive as complete tool-call events. Of a
 * request's provider options it reads only `local`; the tools' canonical schemas are narrowed
 * here for the engine's function grammar (grammar.ts).
 */
import type { Message, StopReason } from '../../../shared/messages.js';
import type { ModelEvent, ModelProvider, ModelRequest } from '../models/index.js';
import {
  ModelError,
  type ModelErrorCode,
  type ProviderId,
  providerId,
  StreamAssembler,
  toWireNames,
  withCanonicalNames,
} from '../models/index.js';
import type { LocalEngine } from './engine.js';
import { LocalEngineError, type LocalErrorCode } from './errors.js';
import { type GrammarBounds, grammarToolDefs } from './grammar.js';
import type { GenerateRequest, LocalMessage, LocalStopReason, SamplingOptions } from './types.js';

const STOP: Record<LocalStopReason, StopReason> = {
  end: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_calls: 'tool_use',
  cancelled: 'cancelled',
};

const ERROR_CODES: Record<LocalErrorCode, ModelErrorCode> = {
  model_not_found: 'unknown_model',
  unknown_model: 'unknown_model',
  invalid_model: 'invalid_request',
  truncated_model: 'invalid_request',
  insufficient_memory: 'rejected',
  load_timeout: 'timeout',
  invalid_request: 'invalid_request',
  generation_failed: 'server_error',
  context_too_small: 'invalid_request',
  checksum_mismatch: 'invalid_request',
  download_failed: 'unreachable',
  offline: 'unreachable',
  disposed: 'cancelled',
};

/** Maps content-block messages onto the engine's messages (tool results become tool turns). */
export function toLocalMessages(messages: Message[]): LocalMessage[] {
  const out: LocalMessage[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
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

export interface LocalProviderOptions {
  id?: ProviderId;
  /** Sampling for every request (the neutral request carries only temperature). */
  sampling?: SamplingOptions;
  /** Bounds of the tool-call grammar (a weak model's longest string argument, say). */
  grammar?: GrammarBounds;
}

/** The bundled engine behind the ModelProvider contract. `model` is informational: the engine
 * serves whichever GGUF it loaded. */
export class LocalModelProvider implements ModelProvider {
  readonly id: ProviderId;
  readonly protocol = 'local' as const;

  constructor(
    private readonly engine: Pick<LocalEngine, 'generate'>,
    private readonly options: LocalProviderOptions = {},
  ) {
    this.id = options.id ?? providerId('local');
  }

  /**
   * The engine's function names are wire names too; the model's calls come back canonical.
   * The canonical schemas are narrowed to what the engine's function grammar enforces exactly.
   */
  stream(model: string, request: ModelRequest): AsyncIterable<ModelEvent> {
    const wire = toWireNames(request);
    const tools = wire.request.tools && grammarToolDefs(wire.request.tools, this.options.grammar);
    const events = streamLocal(
      this.engine,
      { ...wire.request, tools },
      {
        provider: this.id,
        model,
        sampling: this.options.sampling,
      },
    );
    return withCanonicalNames(events, wire.canonical);
  }
}

/**
 * Streams one model turn as model events; the last event is always `finish`. The tools go to
 * the engine as given (LocalModelProvider narrows them first).
 */
export async function* streamLocal(
  engine: Pick<LocalEngine, 'generate'>,
  request: ModelRequest,
  options: { provider?: ProviderId; model?: string; sampling?: SamplingOptions } = {},
): AsyncGenerator<ModelEvent> {
  const local = request.providerOptions?.local ?? {};
  const provider = options.provider ?? providerId('local');
  const assembler = new StreamAssembler(provider);
  const queue: ModelEvent[] = [];
  let wake: (() => void) | undefined;
  let started = false;
  // `start` goes out with the first output, so a failure before it can still be retried.
  const push = (events: ModelEvent[]) => {
    if (!started && events.length) {
      started = true;
      queue.push({ type: 'start', provider, model: options.model ?? 'local' });
    }
    queue.push(...events);
    wake?.();
  };
  if (typeof request.toolChoice === 'object') {
    throw new ModelError('invalid_request', 'the local engine cannot force one named tool', {
      provider,
    });
  }
  let generation: GenerateRequest;
  try {
    generation = {
      system: request.system,
      messages: toLocalMessages(request.messages),
      tools: request.tools,
      toolChoice: request.toolChoice,
      // The runtime validates every call against the tool's own schema before anything runs.
      argumentsCheckedBy: 'caller',
      jsonSchema: request.jsonSchema,
      gbnf: local.gbnf,
      maxTokens: request.maxTokens,
      stop: request.stop,
      sampling: {
        ...options.sampling,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      },
      signal: request.signal,
      onText: (text) => push(assembler.text(text)),
    };
  } catch (error) {
    throw asModelError(error, provider);
  }
  let settled = false;
  let failure: unknown;
  const done = engine
    .generate(local.conversationId ?? 'default', generation)
    .then((result) => {
      const events: ModelEvent[] = [];
      for (const [index, call] of result.toolCalls.entries()) {
        events.push(...assembler.toolComplete(index, call.id, call.name, call.arguments));
      }
      events.push(
        ...assembler.setUsage({
          inputTokens: result.usage.inputTokens,
          outputTokens: result.usage.outputTokens,
          // The engine's meter can count a re-evaluated token twice; a cache never goes negative.
          cachedInputTokens: Math.max(
            0,
            result.usage.inputTokens - result.usage.evaluatedInputTokens,
          ),
        }),
      );
      events.push(assembler.finish(STOP[result.stopReason]));
      push(events);
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
  if (failure) {
    const error = asModelError(failure, provider);
    if (!assembler.started) throw error;
    yield assembler.lost(error);
  }
}

function asModelError(error: unknown, provider: ProviderId): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof LocalEngineError) {
    return new ModelError(ERROR_CODES[error.code], error.message, { provider, cause: error });
  }
  return new ModelError('server_error', error instanceof Error ? error.message : String(error), {
    provider,
    cause: error,
  });
}
