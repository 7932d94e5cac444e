/**
 * A provider reached over HTTP: one wire adapter, one endpoint, one credential. It turns the
 * adapter's output into the ModelProvider contract: failures before any output throw (so the
 * router may retry or fall back), failures after it end the stream with `connection_lost`, and a
 * cancelled stream ends with a `cancelled` finish holding what arrived. Tool names are spelled
 * for the wire here and nowhere above.
 */

import type { WireAdapter } from './adapters/adapter.js';
import { anthropic } from './adapters/anthropic.js';
import { gemini } from './adapters/gemini.js';
import { openaiChat } from './adapters/openai-chat.js';
import { responses } from './adapters/responses.js';
import { StreamAssembler } from './assembler.js';
import { resolveApiKey, type SecretLookup } from './credentials.js';
import { isModelError, ModelError } from './errors.js';
import { postJson } from './http.js';
import type { ProviderId } from './ids.js';
import { sseEvents } from './sse.js';
import { toWireNames, withCanonicalNames } from './tool-names.js';
import type { ModelEvent, ModelProvider, ModelRequest, Protocol } from './types.js';

export type HttpProtocol = Exclude<Protocol, 'local'>;

export const ADAPTERS: Record<HttpProtocol, WireAdapter> = {
  'openai-compatible': openaiChat,
  responses,
  anthropic,
  gemini,
};

export interface HttpProviderConfig {
  id: ProviderId;
  protocol: HttpProtocol;
  /** Base URL; the vendor's public endpoint when omitted (local servers must set it). */
  endpoint?: string;
  /** An explicit key (takes precedence over secretRef and the conventional env var). */
  apiKey?: string;
  /** The name of the secret holding the key (CKP `auth.secret_ref`). */
  secretRef?: string;
  /** `none` skips key lookup entirely (local servers). */
  auth?: 'key' | 'none';
  secrets: SecretLookup;
  streaming?: boolean;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  defaultMaxTokens?: number;
}

export class HttpProvider implements ModelProvider {
  readonly id: ProviderId;
  readonly protocol: HttpProtocol;
  private readonly adapter: WireAdapter;
  private readonly endpoint: string;

  constructor(private readonly config: HttpProviderConfig) {
    this.id = config.id;
    this.protocol = config.protocol;
    this.adapter = ADAPTERS[config.protocol];
    const endpoint = config.endpoint ?? this.adapter.defaultEndpoint;
    if (!endpoint) {
      throw new ModelError('invalid_request', `no endpoint configured for ${config.protocol}`, {
        provider: config.id,
      });
    }
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new ModelError('invalid_request', `"${endpoint}" is not a URL`, {
        provider: config.id,
      });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ModelError('invalid_request', `endpoint must be http(s), not ${url.protocol}`, {
        provider: config.id,
      });
    }
    this.endpoint = endpoint;
  }

  /** Tool names go out in wire spelling and come back canonical. */
  stream(model: string, request: ModelRequest): AsyncIterable<ModelEvent> {
    const wire = toWireNames(request);
    return withCanonicalNames(this.streamWire(model, wire.request), wire.canonical);
  }

  private async *streamWire(model: string, request: ModelRequest): AsyncGenerator<ModelEvent> {
    const provider = this.id;
    const apiKey =
      this.config.auth === 'none'
        ? undefined
        : await resolveApiKey({
            explicit: this.config.apiKey,
            secretRef: this.config.secretRef,
            protocol: this.protocol,
            lookup: this.config.secrets,
          });
    const streaming = this.config.streaming ?? true;
    const wire = this.adapter.build({
      model,
      request,
      endpoint: this.endpoint,
      apiKey,
      stream: streaming,
      defaultMaxTokens: this.config.defaultMaxTokens ?? 4096,
    });
    const response = await postJson(wire, {
      provider,
      timeoutMs: this.config.timeoutMs ?? 60_000,
      idleTimeoutMs: this.config.idleTimeoutMs ?? 60_000,
      signal: request.signal,
      secrets: apiKey ? [apiKey] : [],
    });
    const assembler = new StreamAssembler(provider);
    // Nothing is yielded until output exists, so an early failure can still be retried.
    const held: ModelEvent[] = [];
    let opened = false;
    const open = function* (events: Iterable<ModelEvent>): Generator<ModelEvent> {
      for (const event of events) {
        if (!opened && !assembler.started && event.type !== 'finish') {
          held.push(event);
          continue;
        }
        if (!opened) {
          opened = true;
          yield { type: 'start', provider, model };
          yield* held.splice(0);
        }
        yield event;
      }
    };
    try {
      if (!streaming) {
        yield* open(this.adapter.parseResponse(await response.json(), assembler, provider));
        return;
      }
      const source = this.adapter.parseStream(
        sseEvents(response.chunks(), provider),
        assembler,
        provider,
      );
      for await (const event of source) yield* open([event]);
    } catch (error) {
      const failure = isModelError(error)
        ? error
        : new ModelError('bad_response', String(error), { provider, cause: error });
      if (!assembler.started) throw failure;
      yield* open([failure.code === 'cancelled' ? assembler.cancelled() : assembler.lost(failure)]);
    } finally {
      response.close();
    }
  }
}
