/**
 * The built-in model catalog: what the router knows about well-known models before the user
 * configures anything, plus `defineModel` for user-configured ones (Ollama, LM Studio, vLLM...).
 *
 * Snapshot of 2025-10. Prices (USD per 1000 tokens) and limits come from memory of the vendors'
 * public price lists and were NOT verified against them (no network where this was written):
 * treat them as estimates for routing and cost display, never as billing truth.
 */
import { ModelError } from './errors.js';
import { type ModelId, modelId, providerId, splitModelId } from './ids.js';
import {
  type ModelCapabilities,
  type ModelDescriptor,
  type ModelPricing,
  PROTOCOLS,
  type Protocol,
} from './types.js';

export const CATALOG_SNAPSHOT_DATE = '2025-10-01';

/** A catalog row as written below: the descriptor minus what `fromEntry` derives from the id. */
type Entry = Omit<ModelDescriptor, 'id' | 'provider' | 'apiModel' | 'deprecated'> & { id: string };

function caps(
  contextWindow: number,
  maxOutputTokens: number,
  flags: Partial<Omit<ModelCapabilities, 'contextWindow' | 'maxOutputTokens'>> = {},
): ModelCapabilities {
  return {
    tools: true,
    streaming: true,
    json: true,
    reasoning: false,
    vision: true,
    ...flags,
    contextWindow,
    maxOutputTokens,
  };
}

/** Per-million prices are what vendors publish; the catalog stores per-1k. */
function perMillion(input: number, output: number, cachedInput?: number): ModelPricing {
  const pricing: ModelPricing = { inputPer1k: input / 1000, outputPer1k: output / 1000 };
  if (cachedInput !== undefined) pricing.cachedInputPer1k = cachedInput / 1000;
  return pricing;
}

const ENTRIES: readonly Entry[] = [
  {
    id: 'openai/gpt-4o',
    protocol: 'openai-compatible',
    displayName: 'GPT-4o',
    capabilities: caps(128_000, 16_384),
    pricing: perMillion(2.5, 10, 1.25),
    quality: 0.8,
    speed: 0.7,
  },
  {
    id: 'openai/gpt-4o-mini',
    protocol: 'openai-compatible',
    displayName: 'GPT-4o mini',
    capabilities: caps(128_000, 16_384),
    pricing: perMillion(0.15, 0.6, 0.075),
    quality: 0.6,
    speed: 0.9,
  },
  {
    id: 'openai/gpt-4.1',
    protocol: 'openai-compatible',
    displayName: 'GPT-4.1',
    capabilities: caps(1_047_576, 32_768),
    pricing: perMillion(2, 8, 0.5),
    quality: 0.85,
    speed: 0.7,
  },
  {
    id: 'openai/gpt-4.1-mini',
    protocol: 'openai-compatible',
    displayName: 'GPT-4.1 mini',
    capabilities: caps(1_047_576, 32_768),
    pricing: perMillion(0.4, 1.6, 0.1),
    quality: 0.7,
    speed: 0.85,
  },
  {
    // Reasoning models keep their reasoning items across turns only through the Responses API.
    id: 'openai/o3-mini',
    protocol: 'responses',
    displayName: 'o3-mini',
    capabilities: caps(200_000, 100_000, { reasoning: true, vision: false }),
    pricing: perMillion(1.1, 4.4, 0.55),
    quality: 0.82,
    speed: 0.5,
  },
  {
    id: 'anthropic/claude-sonnet-4-5',
    protocol: 'anthropic',
    displayName: 'Claude Sonnet 4.5',
    capabilities: caps(200_000, 64_000, { reasoning: true }),
    pricing: perMillion(3, 15, 0.3),
    quality: 0.92,
    speed: 0.6,
  },
  {
    id: 'anthropic/claude-haiku-4-5',
    protocol: 'anthropic',
    displayName: 'Claude Haiku 4.5',
    capabilities: caps(200_000, 64_000, { reasoning: true }),
    pricing: perMillion(1, 5, 0.1),
    quality: 0.78,
    speed: 0.85,
  },
  {
    id: 'anthropic/claude-opus-4-1',
    protocol: 'anthropic',
    displayName: 'Claude Opus 4.1',
    capabilities: caps(200_000, 32_000, { reasoning: true }),
    pricing: perMillion(15, 75, 1.5),
    quality: 0.95,
    speed: 0.35,
  },
  {
    // Gemini 2.5 Pro charges more above 200k input tokens; the catalog keeps the lower tier.
    id: 'gemini/gemini-2.5-pro',
    protocol: 'gemini',
    displayName: 'Gemini 2.5 Pro',
    capabilities: caps(1_048_576, 65_536, { reasoning: true }),
    pricing: perMillion(1.25, 10, 0.31),
    quality: 0.9,
    speed: 0.5,
  },
  {
    id: 'gemini/gemini-2.5-flash',
    protocol: 'gemini',
    displayName: 'Gemini 2.5 Flash',
    capabilities: caps(1_048_576, 65_536, { reasoning: true }),
    pricing: perMillion(0.3, 2.5, 0.075),
    quality: 0.76,
    speed: 0.9,
  },
  {
    id: 'local/qwen2.5-7b-instruct',
    protocol: 'local',
    displayName: 'Qwen2.5 7B Instruct (local)',
    capabilities: caps(32_768, 8_192, { vision: false }),
    pricing: perMillion(0, 0),
    quality: 0.45,
    speed: 0.45,
  },
  {
    id: 'local/qwen2.5-0.5b-instruct',
    protocol: 'local',
    displayName: 'Qwen2.5 0.5B Instruct (local)',
    capabilities: caps(32_768, 8_192, { vision: false }),
    pricing: perMillion(0, 0),
    quality: 0.15,
    speed: 0.95,
  },
];

function fromEntry(entry: Entry): ModelDescriptor {
  const id = modelId(entry.id);
  const { provider, model } = splitModelId(id);
  return { ...entry, id, provider, apiModel: model };
}

/** The pinned snapshot, frozen so no caller mutates the shared descriptors. */
export const BUILTIN_MODELS: readonly ModelDescriptor[] = Object.freeze(
  ENTRIES.map((entry) => Object.freeze(fromEntry(entry))),
);

export function findModel(
  id: string,
  models: readonly ModelDescriptor[] = BUILTIN_MODELS,
): ModelDescriptor | undefined {
  return models.find((model) => model.id === id);
}

/** Throws `unknown_model` naming the closest known id, so a typo is one edit away from fixed. */
export function lookupModel(
  id: string,
  models: readonly ModelDescriptor[] = BUILTIN_MODELS,
): ModelDescriptor {
  const found = findModel(id, models);
  if (found) return found;
  const suggestion = suggestModel(id, models);
  const hint = suggestion ? `; did you mean "${suggestion}"?` : '';
  throw new ModelError('unknown_model', `unknown model "${id}"${hint}`);
}

/**
 * The nearest known id: an exact match on the part after the slash first (the user wrote
 * `gpt-4o` or `ollama/gpt-4o`), else the smallest edit distance within a third of the length.
 */
export function suggestModel(
  id: string,
  models: readonly ModelDescriptor[] = BUILTIN_MODELS,
): ModelId | undefined {
  const wanted = id.trim().toLowerCase();
  const bare = wanted.includes('/') ? wanted.slice(wanted.indexOf('/') + 1) : wanted;
  const byName = models.find((model) => model.apiModel.toLowerCase() === bare);
  if (byName) return byName.id;
  const slash = wanted.indexOf('/');
  const wantedProvider = slash > 0 ? wanted.slice(0, slash) : undefined;
  let best: { id: ModelId; distance: number } | undefined;
  for (const model of models) {
    // Names compared alone cost one extra edit when the provider differs, so `mid/mm` prefers
    // `mid/m` over `big/m` while `ollama/gpt-4o` still finds `openai/gpt-4o`.
    const byModel =
      editDistance(bare, model.apiModel.toLowerCase()) +
      (wantedProvider === undefined || wantedProvider === model.provider ? 0 : 1);
    const distance =
      wantedProvider === undefined
        ? byModel
        : Math.min(editDistance(wanted, model.id.toLowerCase()), byModel);
    if (!best || distance < best.distance) best = { id: model.id, distance };
  }
  const tolerance = Math.max(2, Math.floor(bare.length / 3));
  return best && best.distance <= tolerance ? best.id : undefined;
}

/** Levenshtein distance, two rows. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

export interface ModelDefinition {
  /** `provider/model`, e.g. `ollama/qwen2.5:7b`. */
  id: string;
  protocol: Protocol;
  /** Defaults to the part of `id` after the provider. */
  apiModel?: string;
  displayName?: string;
  capabilities?: Partial<ModelCapabilities>;
  pricing?: Partial<ModelPricing>;
  quality?: number;
  speed?: number;
}

/**
 * Capabilities a user-configured model gets unless told otherwise: conservative, because the
 * router trusts them when filtering, and sending tools or images to a model that silently
 * ignores them is worse than routing the request elsewhere. Streaming is the one safe bet.
 */
export const DEFAULT_CAPABILITIES: Readonly<ModelCapabilities> = Object.freeze({
  tools: false,
  streaming: true,
  json: false,
  reasoning: false,
  vision: false,
  contextWindow: 8_192,
  maxOutputTokens: 2_048,
});

/** A descriptor for a user-configured model; validated, priced at zero unless told otherwise. */
export function defineModel(definition: ModelDefinition): ModelDescriptor {
  let id: ModelId;
  try {
    id = modelId(definition.id);
  } catch (error) {
    throw new ModelError('invalid_request', (error as Error).message, { cause: error });
  }
  const { provider, model } = splitModelId(id);
  const capabilities = { ...DEFAULT_CAPABILITIES, ...definition.capabilities };
  // A stated context window smaller than the default output cap would make the model unusable.
  if (definition.capabilities?.maxOutputTokens === undefined) {
    capabilities.maxOutputTokens = Math.min(
      capabilities.maxOutputTokens,
      capabilities.contextWindow,
    );
  }
  const pricing: ModelPricing = {
    inputPer1k: definition.pricing?.inputPer1k ?? 0,
    outputPer1k: definition.pricing?.outputPer1k ?? 0,
  };
  if (definition.pricing?.cachedInputPer1k !== undefined) {
    pricing.cachedInputPer1k = definition.pricing.cachedInputPer1k;
  }
  const descriptor: ModelDescriptor = {
    id,
    provider,
    apiModel: definition.apiModel ?? model,
    protocol: definition.protocol,
    displayName: definition.displayName ?? model,
    capabilities,
    pricing,
    quality: definition.quality ?? 0.5,
    speed: definition.speed ?? 0.5,
  };
  assertValidDescriptor(descriptor);
  return descriptor;
}

/** Every problem with a descriptor (empty when valid), worded for a config error message. */
export function validateDescriptor(descriptor: ModelDescriptor): string[] {
  const problems: string[] = [];
  try {
    modelId(descriptor.id);
  } catch (error) {
    problems.push((error as Error).message);
  }
  try {
    providerId(descriptor.provider);
    if (!descriptor.id.startsWith(`${descriptor.provider}/`)) {
      problems.push(`provider "${descriptor.provider}" does not match id "${descriptor.id}"`);
    }
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (!descriptor.apiModel?.trim()) problems.push('apiModel is empty');
  if (!PROTOCOLS.includes(descriptor.protocol)) {
    problems.push(`protocol "${descriptor.protocol}" is not one of ${PROTOCOLS.join(', ')}`);
  }
  const { contextWindow, maxOutputTokens } = descriptor.capabilities;
  if (!isPositiveInteger(contextWindow)) problems.push('contextWindow must be a positive integer');
  if (!isPositiveInteger(maxOutputTokens)) {
    problems.push('maxOutputTokens must be a positive integer');
  } else if (maxOutputTokens > contextWindow) {
    problems.push(`maxOutputTokens ${maxOutputTokens} exceeds contextWindow ${contextWindow}`);
  }
  for (const key of ['inputPer1k', 'outputPer1k', 'cachedInputPer1k'] as const) {
    const price = descriptor.pricing[key];
    if (key === 'cachedInputPer1k' && price === undefined) continue;
    if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) {
      problems.push(`pricing.${key} must be a finite number >= 0`);
    }
  }
  for (const key of ['quality', 'speed'] as const) {
    const value = descriptor[key];
    if (!(value >= 0 && value <= 1)) problems.push(`${key} must be between 0 and 1`);
  }
  return problems;
}

export function assertValidDescriptor(descriptor: ModelDescriptor): void {
  const problems = validateDescriptor(descriptor);
  if (problems.length > 0) {
    throw new ModelError(
      'invalid_request',
      `model "${descriptor.id}" is misconfigured: ${problems.join('; ')}`,
      { provider: descriptor.provider },
    );
  }
}

function isPositiveInteger(value: number): boolean {
  return Number.isInteger(value) && value > 0;
}
