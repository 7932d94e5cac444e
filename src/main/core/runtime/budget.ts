/**
 * A run's budget: its own limits (model calls, tokens, dollars) and the caps across all runs
 * (CKP policy `rate_limits`), checked before each model call, and what its tool calls spent
 * on its behalf (an MCP server's sampling) counted as its own.
 */
import type { RunScope } from './run-scope.js';
import { RunStop } from './stops.js';

/** Adds what the run's tool calls spent on its behalf (sampling) since the last look. */
export function absorbOutsideSpend(scope: RunScope): void {
  const spend = scope.deps.outsideSpend?.take(scope.run.id);
  if (!spend) return;
  scope.usage = {
    inputTokens: scope.usage.inputTokens + spend.usage.inputTokens,
    outputTokens: scope.usage.outputTokens + spend.usage.outputTokens,
  };
  scope.costUsd += spend.costUsd;
}

/** Throws the stop of the first limit or cap the run has reached. */
export function checkBudget(scope: RunScope): void {
  const { maxTurns, maxTokens, maxCostUsd } = scope.guards;
  if (scope.turns >= maxTurns)
    throw new RunStop('max_turns', 'halt', `reached the limit of ${maxTurns} model calls`);
  const tokens = scope.usage.inputTokens + scope.usage.outputTokens;
  if (tokens >= maxTokens)
    throw new RunStop('max_tokens', 'halt', `used ${tokens} tokens (limit ${maxTokens})`);
  const { caps, store } = scope.deps;
  if (caps?.tokensPerHour) {
    const { tokens: hour } = store.spentSince(new Date(Date.now() - 3_600_000));
    if (hour >= caps.tokensPerHour) {
      throw new RunStop(
        'max_tokens',
        'halt',
        `policy cap: ${hour} tokens in the last hour (limit ${caps.tokensPerHour})`,
      );
    }
  }
  if (caps?.costPerDayUsd) {
    const { costUsd: day } = store.spentSince(new Date(Date.now() - 86_400_000));
    if (day >= caps.costPerDayUsd) {
      throw new RunStop(
        'max_cost',
        'halt',
        `policy cap: $${day.toFixed(4)} spent in the last 24 hours (limit $${caps.costPerDayUsd})`,
      );
    }
  }
  if (scope.costUsd >= maxCostUsd) {
    throw new RunStop(
      'max_cost',
      'halt',
      `spent $${scope.costUsd.toFixed(4)} (limit $${maxCostUsd})`,
    );
  }
}
