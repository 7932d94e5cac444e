import { describe, expect, it } from 'vitest';
import { CostLedger, costOf } from '../../../src/main/core/models/cost.js';
import { ModelError } from '../../../src/main/core/models/errors.js';
import { modelId } from '../../../src/main/core/models/ids.js';

describe('cost ledger', () => {
  it('prices cached input at the cache rate and the rest at the full rate', () => {
    const pricing = { inputPer1k: 0.003, outputPer1k: 0.015, cachedInputPer1k: 0.0003 };
    // 1000 uncached * 0.003 + 1000 cached * 0.0003 + 2000 out * 0.015, per 1000
    expect(
      costOf(pricing, { inputTokens: 2000, cachedInputTokens: 1000, outputTokens: 2000 }),
    ).toBeCloseTo(0.003 + 0.0003 + 0.03, 12);
    // Without a cache rate cached tokens cost the full input rate.
    expect(
      costOf(
        { inputPer1k: 0.001, outputPer1k: 0 },
        { inputTokens: 1000, cachedInputTokens: 500, outputTokens: 0 },
      ),
    ).toBeCloseTo(0.001, 12);
  });

  it('totals a run per model from the catalog pricing', () => {
    const ledger = new CostLedger();
    const sonnet = modelId('anthropic/claude-sonnet-4-5');
    const mini = modelId('openai/gpt-4o-mini');
    const local = modelId('local/qwen2.5-7b-instruct');
    expect(ledger.record(sonnet, { inputTokens: 1000, outputTokens: 1000 })).toBeCloseTo(0.018, 12);
    ledger.record(mini, { inputTokens: 2000, outputTokens: 1000, cachedInputTokens: 1000 });
    ledger.record(sonnet, { inputTokens: 1000, outputTokens: 0, reasoningTokens: 7 });
    ledger.record(local, { inputTokens: 50_000, outputTokens: 9_000 });
    const breakdown = ledger.breakdown();
    expect(breakdown.map((e) => [e.model, e.calls])).toEqual([
      [sonnet, 2],
      [mini, 1],
      [local, 1],
    ]);
    expect(breakdown[0]?.costUsd).toBeCloseTo(0.021, 12);
    expect(breakdown[1]?.costUsd).toBeCloseTo(0.00015 + 0.000075 + 0.0006, 12);
    expect(breakdown[2]?.costUsd).toBe(0);
    expect(ledger.totalUsd).toBeCloseTo(0.021 + 0.000825, 12);
    expect(ledger.totals()).toMatchObject({
      calls: 4,
      inputTokens: 54_000,
      outputTokens: 11_000,
      cachedInputTokens: 1000,
      reasoningTokens: 7,
    });
    expect(() => ledger.record(modelId('acme/nope'), { inputTokens: 1, outputTokens: 1 })).toThrow(
      ModelError,
    );
    ledger.reset();
    expect(ledger.totalUsd).toBe(0);
  });
});
