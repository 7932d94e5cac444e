/**
 * What a run spent outside its own model calls: an MCP server's sampling during one of the run's
 * tool calls is answered by the agent's model, so it is the run's spending. The MCP client adds
 * it here under the caller's run; the run's loop takes it before its next budget check and at its
 * end, so it counts against the run's token and cost limits and shows in the run's usage.
 */
import type { Usage } from '../../../shared/messages.js';

export interface Spend {
  usage: Usage;
  costUsd: number;
}

export class OutsideSpend {
  private readonly pending = new Map<string, Spend>();

  add(runId: string, usage: Usage, costUsd: number): void {
    const so = this.pending.get(runId);
    this.pending.set(runId, {
      usage: {
        inputTokens: (so?.usage.inputTokens ?? 0) + usage.inputTokens,
        outputTokens: (so?.usage.outputTokens ?? 0) + usage.outputTokens,
      },
      costUsd: (so?.costUsd ?? 0) + costUsd,
    });
  }

  /** The spend added for this run since the last take, and forgets it. */
  take(runId: string): Spend | undefined {
    const spend = this.pending.get(runId);
    this.pending.delete(runId);
    return spend;
  }
}
