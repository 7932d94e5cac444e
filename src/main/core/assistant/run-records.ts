/**
 * Runs as the UI reads them: the run store's rows and the audit trail shaped by `views.ts`,
 * each marked live while its runtime (the root's, or a sub-agent's in the delegation) runs it.
 */

import type {
  RiskTier,
  RunDetail,
  RunSummary,
  StepView,
  ToolCallView,
} from '../../../shared/ipc-schemas.js';
import type { Agent } from '../agent/index.js';
import type { RunId, SessionId } from '../terms.js';
import { NotFound } from './types.js';
import { auditEntry, runSummary, toolCallViews } from './views.js';

export class RunRecords {
  constructor(private readonly agent: Agent) {}

  /** A tool's risk tier as the UI shows it; a tool the agent does not know is unsafe. */
  readonly tierOf = (name: string): RiskTier => this.agent.facts(name)?.tier ?? 'unsafe';

  /** A sub-agent runs in a runtime of its own, kept by the delegation. */
  isLive(id: string): boolean {
    return this.agent.runtime.isLive(id as RunId) || this.agent.delegation.isLive(id as RunId);
  }

  list(filter: { sessionId?: string; limit?: number } = {}): RunSummary[] {
    return this.agent.store
      .listRuns({ sessionId: filter.sessionId as SessionId | undefined, limit: filter.limit })
      .map((run) => runSummary(run, this.isLive(run.id)));
  }

  detail(runId: string): RunDetail {
    const { store, governance } = this.agent;
    const row = store.getRun(runId as RunId);
    if (!row) throw new NotFound(`no run ${runId}`);
    const audit = governance.audit.list({ runId });
    const steps: StepView[] = store.steps(row.id);
    return {
      run: runSummary(row, this.isLive(runId)),
      steps,
      toolCalls: toolCallViews(
        runId,
        store.toolCalls(row.id),
        audit,
        this.isLive(runId),
        this.tierOf,
      ),
      audit: audit.map(auditEntry),
      children: store.childRuns(row.id).map((child) => runSummary(child, this.isLive(child.id))),
    };
  }

  /** A conversation's runs, oldest first, and the tool calls they made. */
  ofSession(sessionId: string): { runs: RunSummary[]; toolCalls: ToolCallView[] } {
    const { store, governance } = this.agent;
    const runs = store.listRuns({ sessionId: sessionId as SessionId, limit: 500 }).reverse();
    return {
      runs: runs.map((run) => runSummary(run, this.isLive(run.id))),
      toolCalls: runs.flatMap((run) =>
        toolCallViews(
          run.id,
          store.toolCalls(run.id),
          governance.audit.list({ runId: run.id }),
          this.isLive(run.id),
          this.tierOf,
        ),
      ),
    };
  }
}
