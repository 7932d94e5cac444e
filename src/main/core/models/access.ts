/**
 * How the runtime reaches a model: one turn at a time, through a provider or the router. The
 * agent root decides which; the runtime only calls `turn`.
 */
import type { Usage } from '../../../shared/messages.js';
import type { ContextWindow } from './fit-request-to-context.js';
import type { ModelRouter, RouteOptions } from './router.js';
import type { ModelEvent, ModelPricing, ModelProvider, ModelRequest } from './types.js';

/** One model call of a run. */
export interface ModelTurn {
  events: AsyncIterable<ModelEvent>;
  /** Cost in USD of the turn, known once the stream ended. */
  cost(usage: Usage): number;
  /** The model that served (after any fallback). */
  servedBy(): string;
  /** Why earlier candidates failed, in the order tried. */
  fallbacks?(): string[];
}

export interface ModelAccess {
  turn(request: ModelRequest): ModelTurn;
  /**
   * The window the next turn must fit (fitRequestToContext), with the model's own measure
   * where it has one; undefined while unknown, and the request goes as it is.
   */
  window?(): Promise<ContextWindow | undefined>;
}

export function viaProvider(
  provider: ModelProvider,
  model: string,
  pricing: ModelPricing = { inputPer1k: 0, outputPer1k: 0 },
): ModelAccess {
  return {
    turn: (request) => ({
      events: provider.stream(model, request),
      cost: (usage) =>
        (usage.inputTokens / 1000) * pricing.inputPer1k +
        (usage.outputTokens / 1000) * pricing.outputPer1k,
      servedBy: () => `${provider.id}/${model}`,
    }),
  };
}

export function viaRouter(router: ModelRouter, options: Omit<RouteOptions, 'signal'>): ModelAccess {
  return {
    turn: (request) => {
      const stream = router.stream(request, { ...options, signal: request.signal });
      return {
        events: stream,
        cost: () => stream.report.costUsd,
        servedBy: () => stream.report.served ?? options.model ?? 'unknown',
        fallbacks: () => stream.report.causes.map((cause) => cause.message),
      };
    },
  };
}
