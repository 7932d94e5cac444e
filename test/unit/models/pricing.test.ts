import { describe, expect, it } from 'vitest';
import { BUILTIN_MODELS, isPriced } from '../../../src/main/core/models/catalog.js';

describe('whether a model has a price', () => {
  it('knows a priced model by its API name or its id', () => {
    expect(isPriced('gpt-4o')).toBe(true);
    expect(isPriced('openai/gpt-4o')).toBe(true);
  });

  it('counts a price of zero (the local models) and an unknown name as no price', () => {
    const local = BUILTIN_MODELS.find((m) => m.provider === 'local');
    expect(local).toBeDefined();
    expect(isPriced(local?.apiModel)).toBe(false);
    expect(isPriced('no-such-model')).toBe(false);
    expect(isPriced(undefined)).toBe(false);
  });
});
