/**
 * A scripted ModelProvider for router tests: a plain object implementing the interface, so the
 * router's decisions are tested without HTTP (the adapters are tested against real servers).
 */

import { ModelError } from '../../../src/main/core/models/errors.js';
import { type ProviderId, providerId } from '../../../src/main/core/models/ids.js';
import type {
  ModelEvent,
  ModelProvider,
  ModelRequest,
  Protocol,
} from '../../../src/main/core/models/types.js';
import type { Usage } from '../../../src/shared/messages.js';

/** One call's script: a reply text, an error thrown before any event, or raw events. */
export type Script =
  | { reply: string; usage?: Usage }
  | { fail: ModelError }
  | { events: Array<ModelEvent | Error> };

export class FakeProvider implements ModelProvider {
  readonly id: ProviderId;
  readonly calls: Array<{ model: string; request: ModelRequest }> = [];
  closed = 0;

  constructor(
    id: string,
    private readonly scripts: Script[],
    readonly protocol: Protocol = 'openai-compatible',
  ) {
    this.id = providerId(id);
  }

  stream(model: string, request: ModelRequest): AsyncIterable<ModelEvent> {
    this.calls.push({ model, request });
    const script = this.scripts[Math.min(this.calls.length - 1, this.scripts.length - 1)];
    if (!script) throw new Error('no script');
    return this.play(model, script);
  }

  private async *play(model: string, script: Script): AsyncGenerator<ModelEvent> {
    try {
      if ('fail' in script) throw script.fail;
      if ('events' in script) {
        for (const event of script.events) {
          if (event instanceof Error) throw event;
          yield event;
        }
        return;
      }
      const usage = script.usage ?? { inputTokens: 10, outputTokens: 5 };
      yield { type: 'start', provider: this.id, model };
      yield { type: 'text_delta', text: script.reply };
      yield { type: 'usage', usage };
      yield {
        type: 'finish',
        stopReason: 'end_turn',
        message: { role: 'assistant', content: [{ type: 'text', text: script.reply }] },
        usage,
      };
    } finally {
      this.closed++;
    }
  }
}

export function finish(text: string, usage: Usage = { inputTokens: 10, outputTokens: 5 }) {
  return {
    type: 'finish' as const,
    stopReason: 'end_turn' as const,
    message: { role: 'assistant' as const, content: [{ type: 'text' as const, text }] },
    usage,
  };
}

export async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export async function rejection(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
