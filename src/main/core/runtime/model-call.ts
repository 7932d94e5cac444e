/**
 * The model-call phase: one streamed model call under the turn's timeout, its deltas published
 * through redacting streams, its reply redacted, appended and paid for. A lost connection keeps
 * what arrived; every failure becomes a `RunStop`.
 */
import type { Message } from '../../../shared/messages.js';
import type { ModelEvent, ProviderOptions } from '../models/index.js';
import { isModelError } from '../models/index.js';
import type { RedactingStream } from '../redaction/index.js';
import type { ToolHost } from '../tools/index.js';
import { eventUsage } from './events.js';
import type { RunScope } from './run-scope.js';
import { abortStop, RunStop, type StopCause } from './stops.js';

type Finish = Extract<ModelEvent, { type: 'finish' }>;

export interface ModelCallRequest {
  system?: string;
  messages: Message[];
  tools: ReturnType<ToolHost['definitions']>;
  providerOptions?: ProviderOptions;
  maxTokens?: number;
  temperature?: number;
  toolChoice?: 'required';
}

/** Calls the model once; returns its (redacted) reply, already appended to the history. */
export async function callModel(scope: RunScope, request: ModelCallRequest): Promise<Message> {
  const turnController = new AbortController();
  const turnTimer = setTimeout(
    () => turnController.abort('turn_timeout' satisfies StopCause),
    scope.guards.turnTimeoutMs,
  );
  const signal = AbortSignal.any([scope.controller.signal, turnController.signal]);
  const turn = scope.deps.model.turn({ ...request, signal });
  let finish: Finish | undefined;
  const deltas = deltaStreams(scope);
  try {
    for await (const event of turn.events) {
      if (event.type === 'text_delta') deltas.push('text', event.text);
      else if (event.type === 'reasoning_delta') deltas.push('reasoning', event.text);
      // The tool's worker starts while the model still writes the arguments.
      else if (event.type === 'tool_call_start') scope.deps.tools.prepare(event.name);
      else if (event.type === 'finish')
        finish = { ...event, message: redactedMessage(scope, event.message) };
      else if (event.type === 'connection_lost') {
        deltas.end();
        scope.reply = redactedMessage(scope, event.partial);
        if (scope.reply.content.length) scope.append(scope.reply, scope.lastMessageId, false);
        throw new RunStop('model_error', 'fail', event.error.message);
      }
    }
    deltas.end();
  } catch (error) {
    if (signal.aborted) throw abortStop(scope.guards, signal, turnController.signal);
    if (error instanceof RunStop) throw error;
    if (isModelError(error)) throw new RunStop('model_error', 'fail', error.message, error.ckpCode);
    throw new RunStop('model_error', 'fail', String(error));
  } finally {
    clearTimeout(turnTimer);
  }
  if (!finish) throw new RunStop('model_error', 'fail', 'the model stream ended without a reply');
  scope.turns++;
  scope.usage = {
    inputTokens: scope.usage.inputTokens + finish.usage.inputTokens,
    outputTokens: scope.usage.outputTokens + finish.usage.outputTokens,
  };
  const cost = turn.cost(finish.usage);
  scope.costUsd += cost;
  scope.lastSpend = { usage: finish.usage, costUsd: cost };
  scope.reply = finish.message;
  scope.append(finish.message, scope.lastMessageId, false);
  scope.emit({
    type: 'run.spent',
    turns: scope.turns,
    usage: scope.usage,
    cost_usd: scope.costUsd,
  });
  const fallbacks = turn.fallbacks?.() ?? [];
  scope.emit({
    type: 'model.finished',
    model: turn.servedBy(),
    stop_reason: finish.stopReason,
    usage: eventUsage(finish.usage),
    cost_usd: cost,
    ...(fallbacks.length ? { fallbacks } : {}),
  });
  if (finish.stopReason === 'cancelled' || signal.aborted)
    throw abortStop(scope.guards, signal, turnController.signal);
  scope.lastStop = finish.stopReason;
  return finish.message;
}

/**
 * The model's deltas as events, one redacting stream per kind: a secret sent a few characters
 * at a time is held back until it is whole, then shown redacted; `end` releases the rest.
 */
function deltaStreams(scope: RunScope) {
  const redactor = scope.deps.redactor;
  const streams = new Map<'text' | 'reasoning', RedactingStream>();
  const send = (kind: 'text' | 'reasoning', text: string) => {
    if (text) scope.emit({ type: 'model.delta', kind, text });
  };
  return {
    push: (kind: 'text' | 'reasoning', text: string) => {
      if (!redactor) return send(kind, text);
      let stream = streams.get(kind);
      if (!stream) {
        stream = redactor.stream();
        streams.set(kind, stream);
      }
      send(kind, stream.push(text));
    },
    end: () => {
      for (const [kind, stream] of streams) send(kind, stream.end());
      streams.clear();
    },
  };
}

/** A reply as it may be stored and returned: its text and reasoning redacted. */
function redactedMessage(scope: RunScope, message: Message): Message {
  const redactor = scope.deps.redactor;
  if (!redactor) return message;
  return {
    ...message,
    content: message.content.map((block) =>
      block.type === 'text' || block.type === 'reasoning'
        ? { ...block, text: redactor.redact(block.text).text }
        : block,
    ),
  };
}
