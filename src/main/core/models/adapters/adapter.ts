/**
 * What every wire protocol provides: a request serializer and two parsers (stream and whole
 * body) that speak to the shared StreamAssembler. Nothing vendor-shaped leaves an adapter.
 */
import type { Message } from '../../../../shared/messages.js';
import type { StreamAssembler } from '../assembler.js';
import { ModelError } from '../errors.js';
import type { WireRequest } from '../http.js';
import type { ProviderId } from '../ids.js';
import type { SseEvent } from '../sse.js';
import type { ModelEvent, ModelRequest, Protocol } from '../types.js';

export interface BuildContext {
  model: string;
  request: ModelRequest;
  /** Base URL, e.g. `http://127.0.0.1:11434/v1`. */
  endpoint: string;
  apiKey?: string;
  stream: boolean;
  /** Used where the protocol demands max_tokens and the request gave none. */
  defaultMaxTokens: number;
}

export interface WireAdapter {
  readonly protocol: Exclude<Protocol, 'local'>;
  readonly defaultEndpoint: string | undefined;
  build(context: BuildContext): WireRequest;
  /** Yields events for each wire event; must end with `finish` or throw (truncated, ...). */
  parseStream(
    events: AsyncIterable<SseEvent>,
    assembler: StreamAssembler,
    provider: ProviderId,
  ): AsyncGenerator<ModelEvent>;
  parseResponse(body: unknown, assembler: StreamAssembler, provider: ProviderId): ModelEvent[];
}

/**
 * A message's wire form, made once per message: a conversation's history reaches an adapter as
 * the same frozen messages turn after turn (the run store's branch), so a long conversation
 * converts only what is new. A message that is not frozen could change between calls: it is
 * converted every time. Callers never modify what `convert` returns.
 */
export function convertedOnce<T>(convert: (message: Message) => T): (message: Message) => T {
  const made = new WeakMap<Message, T>();
  return (message) => {
    if (!Object.isFrozen(message)) return convert(message);
    let wire = made.get(message);
    if (wire === undefined) {
      wire = convert(message);
      made.set(message, wire);
    }
    return wire;
  };
}

export function joinUrl(endpoint: string, path: string): string {
  return `${endpoint.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** Narrow helpers for reading untyped JSON without `any`. */
export type Json = Record<string, unknown>;

export function obj(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function truncated(provider: ProviderId, what: string): ModelError {
  return new ModelError('truncated', `the stream ended before ${what}`, { provider });
}

export function badResponse(provider: ProviderId, what: string): ModelError {
  return new ModelError('bad_response', what, { provider });
}

/** An error object delivered inside a 200 stream (OpenAI, Anthropic, Gemini all do this). */
export function streamedError(provider: ProviderId, error: Json): ModelError {
  const message = str(error.message) ?? 'unknown error';
  const kind = `${str(error.type) ?? ''} ${str(error.code) ?? ''} ${str(error.status) ?? ''}`;
  const status = num(error.code);
  if (/rate_limit|RESOURCE_EXHAUSTED/i.test(kind) || status === 429) {
    return new ModelError('rate_limited', `stream error: ${message}`, { provider, status });
  }
  if (
    /overloaded|server|internal|UNAVAILABLE/i.test(kind) ||
    (status !== undefined && status >= 500)
  ) {
    return new ModelError('server_error', `stream error: ${message}`, { provider, status });
  }
  return new ModelError('rejected', `stream error: ${message}`, { provider, status });
}

export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/** Tool results as plain text for protocols whose tool messages carry only text. */
export function resultText(content: string | Array<{ type: string; text?: string }>): string {
  return typeof content === 'string'
    ? content
    : content.map((block) => (block.type === 'text' ? (block.text ?? '') : '[image]')).join('');
}
