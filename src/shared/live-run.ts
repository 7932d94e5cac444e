/**
 * The run being streamed right now, folded from its events. Pure, and shared by both UIs (the
 * renderer's chat view and the terminal dashboard): each feeds it every `run` event and renders
 * what it returns; when the run ends the view reloads the stored history, the source of truth.
 */
import type { PredictionView, RunEventView, ToolCallView } from './ipc.js';

export type LiveItem =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool'; callId: string }
  /** Something the person should know about the call (tools left out to fit the context). */
  | { kind: 'notice'; text: string };

export interface LiveTool extends Omit<ToolCallView, 'tier'> {
  approvalId: string | null;
  /** A declared world model's expectation of the call, when one was asked. */
  prediction?: PredictionView;
}

export interface LiveRun {
  runId: string;
  goal: string;
  state: string;
  items: LiveItem[];
  tools: Record<string, LiveTool>;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  startedAt: number;
  firstTokenMs: number | null;
  lastTurnMs: number | null;
  turnStartedAt: number;
  finished: { outcome: string; reason: string } | null;
}

export function startLiveRun(runId: string, goal: string, now = performance.now()): LiveRun {
  return {
    runId,
    goal,
    state: 'PLANNING',
    items: [],
    tools: {},
    model: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    startedAt: now,
    firstTokenMs: null,
    lastTurnMs: null,
    turnStartedAt: now,
    finished: null,
  };
}

function patchTool(run: LiveRun, callId: string, patch: Partial<LiveTool>): LiveRun {
  const tool = run.tools[callId];
  if (!tool) return run;
  return { ...run, tools: { ...run.tools, [callId]: { ...tool, ...patch } } };
}

export function applyRunEvent(run: LiveRun, event: RunEventView, now = performance.now()): LiveRun {
  switch (event.type) {
    case 'run.started':
      return { ...run, goal: event.goal };
    case 'state.changed':
      // A turn's latency is its model call alone: time spent waiting for a person or a tool
      // is not the model's.
      return event.transition === 'call_model'
        ? { ...run, state: event.to, turnStartedAt: now }
        : { ...run, state: event.to };
    case 'model.delta': {
      const last = run.items.at(-1);
      const items =
        last && last.kind === event.kind
          ? [...run.items.slice(0, -1), { ...last, text: last.text + event.text }]
          : [...run.items, { kind: event.kind, text: event.text }];
      return {
        ...run,
        items,
        firstTokenMs: run.firstTokenMs ?? Math.round(now - run.startedAt),
      };
    }
    case 'model.finished':
      return {
        ...run,
        model: event.model,
        inputTokens: run.inputTokens + event.usage.input_tokens,
        outputTokens: run.outputTokens + event.usage.output_tokens,
        costUsd: run.costUsd + event.cost_usd,
        lastTurnMs: Math.round(now - run.turnStartedAt),
      };
    case 'context.fitted':
      return { ...run, items: [...run.items, { kind: 'notice', text: event.note }] };
    case 'tool.requested':
      return {
        ...run,
        items: [...run.items, { kind: 'tool', callId: event.call.id }],
        tools: {
          ...run.tools,
          [event.call.id]: {
            callId: event.call.id,
            runId: run.runId,
            name: event.call.name,
            input: event.call.input,
            output: null,
            status: 'requested',
            decision: null,
            rule: null,
            reason: null,
            approvalBy: null,
            durationMs: null,
            readOnly: event.read_only,
            approvalId: null,
          },
        },
      };
    case 'policy.decided':
      return patchTool(run, event.call_id, {
        decision: event.decision,
        rule: event.rule ?? null,
        reason: event.reason ?? null,
      });
    case 'world_model.predicted':
      return patchTool(run, event.call_id, {
        prediction: {
          worldModel: event.world_model,
          summary: event.summary,
          risk: event.risk,
          ...(event.cost !== undefined ? { cost: event.cost } : {}),
          ...(event.unavailable !== undefined ? { unavailable: event.unavailable } : {}),
        },
      });
    case 'approval.requested':
      return patchTool(run, event.call.id, {
        status: 'waiting_approval',
        approvalId: event.approval_id,
      });
    case 'approval.resolved': {
      const tool = Object.values(run.tools).find((t) => t.approvalId === event.approval_id);
      return tool
        ? patchTool(run, tool.callId, {
            approvalBy: event.by,
            status: event.approved ? 'requested' : 'denied',
          })
        : run;
    }
    case 'input.requested':
    case 'input.resolved':
      // A server's form shows from the pending inputs list (inputs.list), placed by its call id.
      return run;
    case 'tool.started':
      return patchTool(run, event.call_id, { status: 'running' });
    case 'tool.finished':
      return patchTool(run, event.call_id, {
        status: event.status,
        durationMs: event.duration_ms,
        output: event.output ?? null,
      });
    case 'run.finished':
      return { ...run, finished: { outcome: event.outcome, reason: event.reason } };
  }
}
