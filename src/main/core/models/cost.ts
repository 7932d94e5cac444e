/**
 * Cost accounting per run: every finished model turn is recorded with its model's pricing,
 * so a run can report what it spent in total and per model. Cached input is priced at the
 * cheaper cache rate when the model has one.
 */
import type { Usage } from '../../../shared/messages.js';
import { lookupModel } from './catalog.js';
import type { ModelId } from './ids.js';
import type { ModelDescriptor, ModelPricing } from './types.js';

/**
 * USD for one turn. `inputTokens` includes the cached ones (the OpenAI and local adapters report
 * it that way), so only the uncached remainder is priced at the full input rate.
 */
export function costOf(pricing: ModelPricing, usage: Usage): number {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const cachedRate = pricing.cachedInputPer1k ?? pricing.inputPer1k;
  return (
    ((usage.inputTokens - cached) * pricing.inputPer1k +
      cached * cachedRate +
      usage.outputTokens * pricing.outputPer1k) /
    1000
  );
}

export interface CostEntry {
  model: ModelId;
  calls: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  costUsd: number;
}

export type CostTotals = Omit<CostEntry, 'model'>;

export class CostLedger {
  private readonly entries = new Map<ModelId, CostEntry>();

  /** Prices a bare model id; by default from the built-in catalog. */
  constructor(
    private readonly pricingOf: (id: ModelId) => ModelPricing = (id) => lookupModel(id).pricing,
  ) {}

  /** Records one turn and returns its cost in USD. A descriptor brings its own pricing. */
  record(model: ModelId | Pick<ModelDescriptor, 'id' | 'pricing'>, usage: Usage): number {
    const id = typeof model === 'string' ? model : model.id;
    const pricing = typeof model === 'string' ? this.pricingOf(model) : model.pricing;
    const cost = costOf(pricing, usage);
    let entry = this.entries.get(id);
    if (!entry) {
      entry = {
        model: id,
        calls: 0,
        inputTokens: 0,
        cachedInputTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
        costUsd: 0,
      };
      this.entries.set(id, entry);
    }
    entry.calls++;
    entry.inputTokens += usage.inputTokens;
    entry.cachedInputTokens += usage.cachedInputTokens ?? 0;
    entry.outputTokens += usage.outputTokens;
    entry.reasoningTokens += usage.reasoningTokens ?? 0;
    entry.costUsd += cost;
    return cost;
  }

  get totalUsd(): number {
    return this.totals().costUsd;
  }

  /** One entry per model in the order first used; copies, safe to hand out. */
  breakdown(): CostEntry[] {
    return [...this.entries.values()].map((entry) => ({ ...entry }));
  }

  totals(): CostTotals {
    const totals: CostTotals = {
      calls: 0,
      inputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      costUsd: 0,
    };
    for (const entry of this.entries.values()) {
      totals.calls += entry.calls;
      totals.inputTokens += entry.inputTokens;
      totals.cachedInputTokens += entry.cachedInputTokens;
      totals.outputTokens += entry.outputTokens;
      totals.reasoningTokens += entry.reasoningTokens;
      totals.costUsd += entry.costUsd;
    }
    return totals;
  }

  reset(): void {
    this.entries.clear();
  }
}
