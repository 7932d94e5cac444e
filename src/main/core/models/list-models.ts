/**
 * "Test connection": the models a server offers, through its own listing endpoint. A server
 * that answers proves the address and the key at once, and the names it lists are what the
 * model picker offers for it.
 */

import { arr, joinUrl, obj, str } from './adapters/adapter.js';
import { ANTHROPIC_VERSION } from './adapters/anthropic.js';
import { ModelError } from './errors.js';
import { postJson } from './http.js';
import { ADAPTERS, type HttpProtocol } from './http-provider.js';
import { providerId } from './ids.js';

export interface ListModelsRequest {
  protocol: HttpProtocol;
  /** Base URL; the protocol's public endpoint when absent. */
  endpoint?: string;
  apiKey?: string;
  timeoutMs?: number;
}

/** At most this many names are kept (a gateway can list thousands). */
const MAX_MODELS = 500;

/** The model names the server lists, sorted; a typed ModelError when it cannot be asked. */
export async function listServerModels(request: ListModelsRequest): Promise<string[]> {
  const provider = providerId(request.protocol);
  const endpoint = request.endpoint ?? ADAPTERS[request.protocol].defaultEndpoint;
  if (!endpoint || !/^https?:\/\//i.test(endpoint)) {
    throw new ModelError('invalid_request', `"${endpoint ?? ''}" is not an http(s) address`, {
      provider,
    });
  }
  const headers: Record<string, string> = {};
  const key = request.apiKey;
  if (key && request.protocol === 'anthropic') {
    headers['x-api-key'] = key;
    headers['anthropic-version'] = ANTHROPIC_VERSION;
  } else if (key && request.protocol === 'gemini') headers['x-goog-api-key'] = key;
  else if (key) headers.authorization = `Bearer ${key}`;
  const timeoutMs = request.timeoutMs ?? 15_000;
  const response = await postJson(
    { method: 'GET', url: joinUrl(endpoint, 'models'), headers, body: undefined },
    { provider, timeoutMs, idleTimeoutMs: timeoutMs, secrets: key ? [key] : [] },
  );
  let body: unknown;
  try {
    body = await response.json(4 * 1024 * 1024);
  } finally {
    response.close();
  }
  return namesOf(request.protocol, body).slice(0, MAX_MODELS);
}

/** OpenAI, Anthropic, Ollama and LM Studio list `data[].id`; Gemini lists `models[].name`. */
function namesOf(protocol: HttpProtocol, body: unknown): string[] {
  const root = obj(body);
  const names =
    protocol === 'gemini'
      ? arr(root?.models)
          .map(obj)
          .filter((m) => {
            const methods = arr(m?.supportedGenerationMethods);
            return methods.length === 0 || methods.includes('generateContent');
          })
          .map((m) => str(m?.name)?.replace(/^models\//, ''))
      : arr(root?.data).map((m) => str(obj(m)?.id));
  if (!root || (protocol === 'gemini' ? !Array.isArray(root.models) : !Array.isArray(root.data))) {
    throw new ModelError('bad_response', 'the server did not answer with a list of models', {
      provider: providerId(protocol),
    });
  }
  return [...new Set(names.filter((n): n is string => !!n && n.length <= 200))].sort();
}
