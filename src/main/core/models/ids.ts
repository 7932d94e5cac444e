/**
 * Typed identifiers: a model is named `provider/model` (e.g. `anthropic/claude-sonnet-4-5`), so
 * runtime code never passes a bare model string where a provider would be ambiguous.
 */
declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type ProviderId = Brand<string, 'ProviderId'>;
export type ModelId = Brand<string, 'ModelId'>;

const PROVIDER = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function providerId(text: string): ProviderId {
  if (!PROVIDER.test(text)) {
    throw new TypeError(
      `"${text}" is not a provider id (lower-case letters, digits, '.', '_' or '-')`,
    );
  }
  return text as ProviderId;
}

/** `provider/model`; the model part may itself contain '/' or ':' (`ollama/qwen2.5:7b`). */
export function modelId(text: string): ModelId {
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1) {
    throw new TypeError(`"${text}" is not a model id: expected provider/model`);
  }
  providerId(text.slice(0, slash));
  if (/\s/.test(text)) throw new TypeError(`"${text}" is not a model id: it contains spaces`);
  return text as ModelId;
}

export function splitModelId(id: ModelId): { provider: ProviderId; model: string } {
  const slash = id.indexOf('/');
  return { provider: id.slice(0, slash) as ProviderId, model: id.slice(slash + 1) };
}
