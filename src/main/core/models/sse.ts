/**
 * Server-sent events out of a byte stream: UTF-8 decoded across chunk boundaries, parsed by
 * eventsource-parser, and bounded so a server that never ends an event cannot grow memory
 * without limit.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ModelError } from './errors.js';
import type { ProviderId } from './ids.js';

export interface SseEvent {
  event?: string;
  data: string;
}

/** An event larger than this (or this much text without an event) is a protocol error. */
export const MAX_SSE_EVENT_BYTES = 8 * 1024 * 1024;

export async function* sseEvents(
  chunks: AsyncIterable<Uint8Array>,
  provider: ProviderId,
  maxEventBytes = MAX_SSE_EVENT_BYTES,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  const ready: SseEvent[] = [];
  let pending = 0;
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => {
      pending = 0;
      ready.push({ event: message.event, data: message.data });
    },
  });
  const feed = function* (text: string) {
    pending += text.length;
    parser.feed(text);
    if (pending > maxEventBytes) {
      throw new ModelError('bad_response', `a stream event exceeded ${maxEventBytes} bytes`, {
        provider,
      });
    }
    while (ready.length > 0) yield ready.shift() as SseEvent;
  };
  for await (const chunk of chunks) yield* feed(decoder.decode(chunk, { stream: true }));
  // An event without its closing blank line is discarded (as the SSE spec says): the adapter
  // then notices the missing end of the reply and reports the stream as truncated.
  yield* feed(decoder.decode());
}

/** Parses one event's data as JSON or fails with a bad_response naming the provider. */
export function eventJson(event: SseEvent, provider: ProviderId): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    const shown = event.data.length > 200 ? `${event.data.slice(0, 200)}…` : event.data;
    throw new ModelError('bad_response', `a stream event is not JSON: ${shown}`, { provider });
  }
}
