import { describe, expect, it } from 'vitest';
import {
  BUILTIN_MODELS,
  defineModel,
  editDistance,
  lookupModel,
  validateDescriptor,
} from '../../../src/main/core/models/catalog.js';
import { ModelError } from '../../../src/main/core/models/errors.js';

describe('model catalog', () => {
  it('holds valid descriptors for every pinned model, local ones free', () => {
    expect(BUILTIN_MODELS.map((m) => m.id)).toEqual([
      'openai/gpt-4o',
      'openai/gpt-4o-mini',
      'openai/gpt-4.1',
      'openai/gpt-4.1-mini',
      'openai/o3-mini',
      'anthropic/claude-sonnet-4-5',
      'anthropic/claude-haiku-4-5',
      'anthropic/claude-opus-4-1',
      'gemini/gemini-2.5-pro',
      'gemini/gemini-2.5-flash',
      'local/qwen2.5-7b-instruct',
      'local/qwen2.5-0.5b-instruct',
    ]);
    for (const model of BUILTIN_MODELS) expect(validateDescriptor(model)).toEqual([]);
    const local = BUILTIN_MODELS.filter((m) => m.provider === 'local');
    expect(local.every((m) => m.pricing.inputPer1k === 0 && m.pricing.outputPer1k === 0)).toBe(
      true,
    );
    expect(lookupModel('anthropic/claude-sonnet-4-5').apiModel).toBe('claude-sonnet-4-5');
    expect(Object.isFrozen(BUILTIN_MODELS[0])).toBe(true);
  });

  it('names the nearest model when an id is unknown', () => {
    const typo = (() => {
      try {
        lookupModel('openai/gpt-4o-minii');
      } catch (error) {
        return error as ModelError;
      }
    })();
    expect(typo).toBeInstanceOf(ModelError);
    expect(typo?.code).toBe('unknown_model');
    expect(typo?.message).toBe(
      'unknown model "openai/gpt-4o-minii"; did you mean "openai/gpt-4o-mini"?',
    );
    expect(() => lookupModel('claude-haiku-4-5')).toThrow(
      'did you mean "anthropic/claude-haiku-4-5"',
    );
    expect(() => lookupModel('acme/something-else-entirely')).toThrow(
      /^unknown model "acme\/something-else-entirely"$/,
    );
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('defines a user model with conservative defaults and validates it', () => {
    const model = defineModel({ id: 'ollama/qwen2.5:7b', protocol: 'openai-compatible' });
    expect(model).toMatchObject({
      id: 'ollama/qwen2.5:7b',
      provider: 'ollama',
      apiModel: 'qwen2.5:7b',
      displayName: 'qwen2.5:7b',
      pricing: { inputPer1k: 0, outputPer1k: 0 },
      capabilities: { tools: false, streaming: true, vision: false, contextWindow: 8192 },
      quality: 0.5,
    });
    const small = defineModel({
      id: 'ollama/tiny',
      protocol: 'openai-compatible',
      capabilities: { contextWindow: 1024, tools: true },
    });
    expect(small.capabilities).toMatchObject({
      contextWindow: 1024,
      maxOutputTokens: 1024,
      tools: true,
    });
    expect(() => defineModel({ id: 'no-slash', protocol: 'local' })).toThrow(ModelError);
    expect(() =>
      defineModel({ id: 'x/y', protocol: 'local', pricing: { inputPer1k: -1 }, quality: 2 }),
    ).toThrow(/pricing.inputPer1k must be a finite number >= 0; quality must be between 0 and 1/);
    expect(() =>
      defineModel({
        id: 'x/y',
        protocol: 'local',
        capabilities: { contextWindow: 100, maxOutputTokens: 200 },
      }),
    ).toThrow('maxOutputTokens 200 exceeds contextWindow 100');
  });
});
