/**
 * A deterministic model for tests and benchmarks only (no shipped bundle imports it): a real
 * ModelProvider that replays a script instead of thinking. It drives the agent loop with no
 * network and no weights, and a script can be a function of the request, so a resumed run in a
 * new process gets the reply it would have got.
 */
import { randomUUID } from 'node:crypto';
import { StreamAssembler } from '../../src/main/core/models/assembler.js';
import { ModelError } from '../../src/main/core/models/errors.js';
import { type ProviderId, providerId } from '../../src/main/core/models/ids.js';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../src/main/core/models/types.js';
import type { StopReason, Usage } from '../../src/shared/messages.js';

export interface ScriptedReply {
  /** Streamed as one delta per array entry (a string is one delta). */
  text?: string | string[];
  reasoning?: string;
  toolCalls?: Array<{ id?: string; name: string; input: Record<string, unknown> }>;
  usage?: Partial<Usage>;
  stopReason?: StopReason;
  /** Wait this long between deltas (honours cancellation). */
  delayMs?: number;
  /** Fail before any output with this error code (retryable codes exercise the router). */
  fail?: ModelError['code'];
}

export type Script =
  | ScriptedReply[]
  | ((request: ModelRequest, call: number) => ScriptedReply | undefined);

export class ScriptedProvider implements ModelProvider {
  readonly protocol = 'openai-compatible' as const;
  readonly id: ProviderId;
  readonly requests: ModelRequest[] = [];
  private calls = 0;

  constructor(
    private readonly script: Script,
    id = 'scripted',
  ) {
    this.id = providerId(id);
  }

  async *stream(model: string, request: ModelRequest): AsyncGenerator<ModelEvent> {
    const call = this.calls++;
    this.requests.push(request);
    const reply =
      typeof this.script === 'function' ? this.script(request, call) : this.script[call];
    if (!reply) {
      throw new ModelError('bad_response', `the script has no reply #${call + 1}`, {
        provider: this.id,
      });
    }
    if (reply.fail) throw new ModelError(reply.fail, 'scripted failure', { provider: this.id });
    const assembler = new StreamAssembler(this.id);
    const pause = () => wait(reply.delayMs ?? 0, request.signal);
    const texts = typeof reply.text === 'string' ? [reply.text] : (reply.text ?? []);
    yield { type: 'start', provider: this.id, model };
    try {
      if (reply.reasoning) {
        await pause();
        yield* assembler.reasoning(reply.reasoning);
      }
      for (const text of texts) {
        await pause();
        yield* assembler.text(text);
      }
      for (const [index, call] of (reply.toolCalls ?? []).entries()) {
        await pause();
        yield* assembler.toolComplete(
          index,
          call.id ?? `call_${randomUUID().slice(0, 8)}`,
          call.name,
          call.input,
        );
      }
    } catch {
      yield assembler.cancelled();
      return;
    }
    const outputTokens = texts.join('').length + JSON.stringify(reply.toolCalls ?? []).length;
    yield* assembler.setUsage({
      inputTokens: 10,
      outputTokens: Math.ceil(outputTokens / 4),
      ...reply.usage,
    });
    yield assembler.finish(reply.stopReason ?? (reply.toolCalls?.length ? 'tool_use' : 'end_turn'));
  }
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new Error('cancelled'));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
