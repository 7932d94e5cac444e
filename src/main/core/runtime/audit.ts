/**
 * The audit trail: one row per thing that happened to a tool call (requested, decided, approval
 * asked and answered, started, finished), with the ids of its trace, task, run and step. Rows are
 * fed from the run event stream, redacted first, and the table refuses UPDATE and DELETE, so
 * the app can only append.
 */

import type { ContentScanner } from '../policy/index.js';
import type { Db } from '../storage/index.js';
import { type Migration, migrate, prepared } from '../storage/index.js';
import type { RunEvent } from './events.js';

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'append-only audit events',
    up: `
      create table audit_events (
        id integer primary key autoincrement,
        at text not null,
        trace_id text not null,
        task_id text not null,
        run_id text not null,
        step_id text,
        call_id text,
        tool text,
        event text not null,
        decision text,
        rule text,
        reason text,
        approval_by text,
        status text,
        detail text
      );
      create index audit_by_run on audit_events(run_id, id);
      create trigger audit_no_update before update on audit_events
        begin select raise(abort, 'the audit log is append-only'); end;
      create trigger audit_no_delete before delete on audit_events
        begin select raise(abort, 'the audit log is append-only'); end;
    `,
  },
];

export interface AuditRow {
  id: number;
  at: string;
  traceId: string;
  taskId: string;
  runId: string;
  stepId: string | null;
  callId: string | null;
  tool: string | null;
  event: string;
  decision: string | null;
  rule: string | null;
  reason: string | null;
  approvalBy: string | null;
  status: string | null;
  detail: unknown;
}

export class AuditLog {
  private readonly insert;
  /** Tool names by call id, so rows after `tool.requested` can name their tool. */
  private readonly tools = new Map<string, string>();
  /** Call ids by approval id, so an answer row names the call it answered. */
  private readonly approvals = new Map<string, { callId: string; tool: string }>();

  constructor(
    private readonly db: Db,
    private readonly scanner: ContentScanner,
  ) {
    migrate(db, 'audit', MIGRATIONS);
    this.insert = db.prepare(
      `insert into audit_events (at, trace_id, task_id, run_id, step_id, call_id, tool, event, decision, rule, reason, approval_by, status, detail)
       values (@at, @trace_id, @task_id, @run_id, @step_id, @call_id, @tool, @event, @decision, @rule, @reason, @approval_by, @status, @detail)`,
    );
  }

  /** A run event listener: records the events that concern tool calls and the run's end. */
  record = (event: RunEvent): void => {
    const row = this.rowOf(event);
    if (!row) return;
    const base = {
      at: event.at,
      trace_id: event.trace_id,
      task_id: event.task_id,
      run_id: event.run_id,
      step_id: event.step_id ?? null,
      call_id: null,
      tool: null,
      decision: null,
      rule: null,
      reason: null,
      approval_by: null,
      status: null,
      detail: null,
    };
    const redacted = this.scanner.redactValue({ ...base, ...row });
    this.insert.run({
      ...redacted,
      detail: redacted.detail === null ? null : JSON.stringify(redacted.detail),
    });
  };

  list(filter: { runId?: string; limit?: number } = {}): AuditRow[] {
    const rows = (
      filter.runId
        ? prepared(this.db, 'select * from audit_events where run_id = ? order by id').all(
            filter.runId,
          )
        : prepared(this.db, 'select * from audit_events order by id desc limit ?').all(
            filter.limit ?? 200,
          )
    ) as Array<Record<string, string | number | null>>;
    return rows.map((r) => ({
      id: r.id as number,
      at: r.at as string,
      traceId: r.trace_id as string,
      taskId: r.task_id as string,
      runId: r.run_id as string,
      stepId: r.step_id as string | null,
      callId: r.call_id as string | null,
      tool: r.tool as string | null,
      event: r.event as string,
      decision: r.decision as string | null,
      rule: r.rule as string | null,
      reason: r.reason as string | null,
      approvalBy: r.approval_by as string | null,
      status: r.status as string | null,
      detail: r.detail === null ? null : JSON.parse(r.detail as string),
    }));
  }

  private rowOf(event: RunEvent): Record<string, unknown> | undefined {
    switch (event.type) {
      case 'tool.requested':
        this.tools.set(event.call.id, event.call.name);
        return {
          event: 'requested',
          call_id: event.call.id,
          tool: event.call.name,
          detail: { input: event.call.input, read_only: event.read_only },
        };
      case 'policy.decided':
        return {
          event: 'decided',
          call_id: event.call_id,
          tool: this.tools.get(event.call_id) ?? null,
          decision: event.decision,
          rule: event.rule ?? null,
          reason: event.reason ?? null,
          detail: event.grant ? { granted: event.grant } : null,
        };
      case 'approval.requested':
        this.approvals.set(event.approval_id, { callId: event.call.id, tool: event.call.name });
        return {
          event: 'approval_requested',
          call_id: event.call.id,
          tool: event.call.name,
          reason: event.reason ?? null,
          detail: { approval_id: event.approval_id },
        };
      case 'approval.resolved':
        return {
          event: 'approval_resolved',
          call_id: this.approvals.get(event.approval_id)?.callId ?? null,
          tool: this.approvals.get(event.approval_id)?.tool ?? null,
          decision: event.approved ? 'approved' : 'denied',
          approval_by: event.by,
          detail: { approval_id: event.approval_id },
        };
      case 'input.requested':
        // A server's form: who asked and which fields, never the message or what was typed.
        return {
          event: 'input_requested',
          call_id: event.call_id ?? null,
          tool: (event.call_id && this.tools.get(event.call_id)) || null,
          detail: { input_id: event.input_id, source: event.source, fields: event.fields },
        };
      case 'input.resolved':
        return {
          event: 'input_resolved',
          call_id: event.call_id ?? null,
          tool: (event.call_id && this.tools.get(event.call_id)) || null,
          decision: event.action,
          approval_by: event.by,
          reason:
            event.by === 'timeout'
              ? 'nobody answered in time'
              : event.by === 'cancelled'
                ? 'the run or the tool call ended first'
                : null,
          detail: { input_id: event.input_id, fields: event.fields ?? [] },
        };
      case 'tool.started':
        return { event: 'started', call_id: event.call_id, tool: event.name };
      case 'tool.finished':
        return {
          event: 'finished',
          call_id: event.call_id,
          tool: event.name,
          status: event.status,
          detail: { duration_ms: event.duration_ms, replayed: event.replayed ?? false },
        };
      case 'run.started':
        // Where a background run came from (channel, sender, schedule); a person's runs need no row.
        return event.origin
          ? { event: 'run_started', detail: { origin: event.origin } }
          : undefined;
      case 'run.finished':
        return { event: 'run_finished', status: event.outcome, reason: event.reason };
      default:
        return undefined;
    }
  }
}
