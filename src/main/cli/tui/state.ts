/**
 * What the dashboard knows, folded from the core's pushed events. Pure: the hook in
 * `use-dashboard.ts` feeds it events and call results; tests and the bench feed it directly.
 */
import type {
  AssistantEvent,
  PendingApprovalView,
  RunEventView,
  RunSummary,
  SessionHistory,
} from '../../../shared/ipc.js';
import { applyRunEvent, type LiveRun, startLiveRun } from '../../../shared/live-run.js';
import { toolDisplayName } from '../../../shared/messages.js';
import { formatInvoke, fromNativeCall } from '../../core/toolcall/index.js';

export interface LiveEntry {
  sessionId: string;
  run: LiveRun;
}

export interface LastTurn {
  model: string;
  /** What the last model call held in its window: its input plus what it wrote. */
  contextTokens: number;
  costUsd: number;
  latencyMs: number | null;
}

export interface DashboardState {
  sessionId: string | null;
  history: SessionHistory | null;
  /** Every run streaming now, of any session (the agents pane shows them all). */
  live: Record<string, LiveEntry>;
  /** When each running tool started (performance.now()), for its elapsed time. */
  toolStarts: Record<string, number>;
  approvals: PendingApprovalView[];
  runs: RunSummary[];
  lastTurn: LastTurn | null;
  /** Recent events, one line each (the logs view). */
  log: string[];
}

export const LOG_LINES = 200;

export const emptyState = (sessionId: string | null = null): DashboardState => ({
  sessionId,
  history: null,
  live: {},
  toolStarts: {},
  approvals: [],
  runs: [],
  lastTurn: null,
  log: [],
});

const withLog = (state: DashboardState, line: string): DashboardState => ({
  ...state,
  log: [...state.log.slice(-(LOG_LINES - 1)), `${new Date().toISOString().slice(11, 19)} ${line}`],
});

export function applyEvent(
  state: DashboardState,
  event: AssistantEvent,
  now = performance.now(),
): DashboardState {
  switch (event.topic) {
    case 'run': {
      const e = event.event;
      const entry = state.live[e.run_id];
      const run = applyRunEvent(entry?.run ?? startLiveRun(e.run_id, '', now), e, now);
      let next: DashboardState = {
        ...state,
        live: { ...state.live, [e.run_id]: { sessionId: event.sessionId, run } },
      };
      if (e.type === 'tool.started') {
        next = { ...next, toolStarts: { ...next.toolStarts, [e.call_id]: now } };
      } else if (e.type === 'tool.finished') {
        const { [e.call_id]: _, ...rest } = next.toolStarts;
        next = { ...next, toolStarts: rest };
      } else if (e.type === 'model.finished') {
        next = {
          ...next,
          lastTurn: {
            model: e.model,
            contextTokens: e.usage.input_tokens + e.usage.output_tokens,
            costUsd: e.cost_usd,
            latencyMs: run.lastTurnMs,
          },
        };
      }
      // Deltas are too many to log; everything else is one line.
      return e.type === 'model.delta' ? next : withLog(next, describeRunEvent(e));
    }
    case 'approval.requested':
      return withLog(
        state.approvals.some((a) => a.id === event.approval.id)
          ? state
          : { ...state, approvals: [...state.approvals, event.approval] },
        `approval asked: ${toolDisplayName(event.approval.call.name)} (${event.approval.reason})`,
      );
    case 'approval.resolved':
      return withLog(
        { ...state, approvals: state.approvals.filter((a) => a.id !== event.id) },
        `approval ${event.approved ? 'granted' : 'denied'} by ${event.by}`,
      );
    default:
      return state;
  }
}

/** A finished run whose turns the stored history now holds leaves the live list. */
export function settleRuns(state: DashboardState, history: SessionHistory): DashboardState {
  const stored = new Set(history.runs.filter((r) => !r.live).map((r) => r.id));
  const live = Object.fromEntries(
    Object.entries(state.live).filter(([id, entry]) => !(entry.run.finished && stored.has(id))),
  );
  return { ...state, history, live };
}

/** Drops runs that finished in other sessions (their history is not on screen). */
export function forgetFinishedElsewhere(state: DashboardState): DashboardState {
  const live = Object.fromEntries(
    Object.entries(state.live).filter(
      ([, entry]) => !entry.run.finished || entry.sessionId === state.sessionId,
    ),
  );
  return { ...state, live };
}

function describeRunEvent(e: RunEventView): string {
  const run = e.run_id;
  switch (e.type) {
    case 'run.started':
      return `${run} started${e.resumed ? ' (resumed)' : ''}`;
    case 'state.changed':
      return `${run} ${e.from} → ${e.to}`;
    case 'model.finished':
      return `${run} model ${e.model}: ${e.usage.input_tokens} in, ${e.usage.output_tokens} out`;
    case 'context.fitted':
      return `${run} ${e.note}`;
    case 'tool.requested':
      return `${run} asks ${callNotation(e.call.name, e.call.input)}`;
    case 'policy.decided':
      return `${run} policy ${e.decision}${e.rule ? ` (rule ${e.rule})` : ''}`;
    case 'tool.started':
      return `${run} tool ${toolDisplayName(e.name)} started`;
    case 'tool.finished':
      return `${run} tool ${toolDisplayName(e.name)} ${e.status} in ${Math.round(e.duration_ms)} ms`;
    case 'run.finished':
      return `${run} finished: ${e.outcome}${e.reason ? ` (${e.reason})` : ''}`;
    default:
      return `${run} ${e.type}`;
  }
}

/** A call in the compact tool-call language (`@fs/read{path="a.txt"}`), as typed in a chat. */
export function callNotation(name: string, input: Record<string, unknown>): string {
  const display = toolDisplayName(name);
  try {
    return formatInvoke(fromNativeCall({ name: display, arguments: input }));
  } catch {
    // The language has no null or object values: JSON says what it cannot.
    return `@${display}${JSON.stringify(input)}`;
  }
}
