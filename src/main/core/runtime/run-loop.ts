/**
 * The agent loop as one function: assemble context -> call the model (streaming) -> if it asks
 * for tools: ask the policy, execute, append results, call the model again; otherwise the reply
 * ends the run. It only states what happens (`scope.emit`): the run store, the audit, telemetry
 * and every surface are subscribers of those facts, so a killed process can resume from disk and
 * every reader tells the same story.
 */
import { toolCallsOf, userText, userTurn } from '../../../shared/messages.js';
import { describeNotice, fitRequestToContext } from '../models/index.js';
import type { InputEvents } from '../policy/index.js';
import type { RunOutcome } from '../terms.js';
import { absorbOutsideSpend, checkBudget } from './budget.js';
import { runDirectCalls, runSingleCall } from './direct-calls.js';
import { eventOrigin, eventUsage } from './events.js';
import { callModel } from './model-call.js';
import type { RunScope } from './run-scope.js';
import { isFinal } from './state.js';
import { RunStop, type StopCause } from './stops.js';
import { originOf } from './store.js';
import { finishInterruptedTools, toolStep } from './tool-phase.js';
import type { RunResult, StartOptions } from './types.js';

/** Drives one run from its start (or resume) to its end; never throws: failures are outcomes. */
export async function driveRun(
  scope: RunScope,
  options: StartOptions,
  resumed: boolean,
): Promise<RunResult> {
  const { run, deps } = scope;
  const timer = setTimeout(
    () => scope.controller.abort('run_timeout' satisfies StopCause),
    scope.guards.runTimeoutMs,
  );
  const stopInputs = followInputs(scope, deps.inputs);
  try {
    const origin = originOf(run);
    scope.emit({
      type: 'run.started',
      goal: run.goal,
      resumed,
      ...(run.parentRunId ? { parent_run_id: run.parentRunId } : {}),
      ...(options.parentSpanId && !resumed ? { parent_span_id: options.parentSpanId } : {}),
      ...(origin ? { origin: eventOrigin(origin) } : {}),
    });
    if (resumed) {
      // A run whose process died is still in an active state on disk: record that first.
      if (!isFinal(scope.state)) scope.go('fail');
      const stored = deps.store.branch(scope.lastMessageId);
      scope.history = stored.map(({ id, message }) => ({ id, message }));
      scope.go('start');
      // The repeat guard counts this run's calls only, not the session's earlier runs.
      for (const m of stored.filter((m) => m.runId === run.id)) {
        for (const call of toolCallsOf(m.message)) scope.remember(call);
      }
      if (!run.startMessageId) scope.append(userText(run.goal), scope.lastMessageId, true);
      await finishInterruptedTools(scope);
    } else {
      const parent =
        options.fromMessageId !== undefined
          ? options.fromMessageId
          : deps.store.latestMessage(run.sessionId);
      scope.history = deps.store.branch(parent).map(({ id, message }) => ({ id, message }));
      scope.go('start');
      scope.append(userTurn(options.text, options.images), parent, true);
    }
    if (options.calls && !resumed)
      return end(scope, 'completed', await runDirectCalls(scope, options.calls));
    if (options.toolCall && !resumed)
      return end(scope, 'completed', await runSingleCall(scope, options.toolCall));
    if (resumed && run.options.direct === true)
      return end(scope, 'completed', 'the interrupted calls were settled');
    await modelLoop(scope, options.requireToolFirst === true && !resumed);
    return end(scope, 'completed', 'the model answered');
  } catch (error) {
    return stop(scope, error);
  } finally {
    clearTimeout(timer);
    stopInputs();
  }
}

/** Model calls and tool steps until the model answers without tools (or a stop is thrown). */
async function modelLoop(scope: RunScope, requireTool: boolean): Promise<void> {
  const { run, deps } = scope;
  // The context (identity, memory search, skills) depends on the run's goal, not on the turn:
  // built once per run.
  const system = await deps.system?.({ sessionId: run.sessionId, text: run.goal });
  for (let first = true; ; first = false) {
    absorbOutsideSpend(scope);
    checkBudget(scope);
    const request = {
      system,
      // A copy: the provider may read it lazily while the loop appends to the history.
      messages:
        deps.history?.view(run.sessionId, scope.history) ??
        scope.history.map((entry) => entry.message),
      tools: deps.tools.definitions({ runId: run.id, sessionId: run.sessionId }),
      providerOptions: { local: { conversationId: run.sessionId } },
      ...(typeof deps.generation === 'function' ? deps.generation() : deps.generation),
      ...(first && requireTool ? { toolChoice: 'required' as const } : {}),
    };
    scope.go('call_model');
    // Fitted to the model's window before it is sent; what was left out is said.
    const fitted = await fitRequestToContext(request, await deps.model.window?.());
    if (fitted.notice) {
      scope.emit({ type: 'context.fitted', ...fitted.notice, note: describeNotice(fitted.notice) });
    }
    scope.startStep('model');
    const message = await callModel(scope, fitted.request);
    scope.endStep(scope.lastSpend);
    deps.history?.afterTurn?.(run.sessionId, [...scope.history]);
    const calls = toolCallsOf(message);
    if (calls.length === 0) {
      scope.go('answered');
      return;
    }
    scope.go('tool_needed');
    // A reply cut off at max_tokens may hold a call whose arguments stop half-way, yet parse:
    // none of its calls runs, and the model is told why so it can write them again.
    await toolStep(scope, calls, scope.lastStop === 'max_tokens');
    scope.go('continue');
  }
}

/**
 * The forms this run's tool calls raised, as events of this run: field names and who answered
 * with which action, never the values typed (those go to the server only).
 */
function followInputs(scope: RunScope, inputs: InputEvents | undefined): () => void {
  if (!inputs) return () => undefined;
  const own = (runId: string) => runId === scope.run.id;
  const offRequest = inputs.onRequest((pending) => {
    if (!own(pending.runId)) return;
    scope.emit({
      type: 'input.requested',
      input_id: pending.id,
      ...(pending.callId ? { call_id: pending.callId } : {}),
      source: pending.source,
      fields: pending.fields.map((field) => field.name),
    });
  });
  const offResolved = inputs.onResolved((pending, outcome) => {
    if (!own(pending.runId)) return;
    const { answer } = outcome;
    scope.emit({
      type: 'input.resolved',
      input_id: pending.id,
      ...(pending.callId ? { call_id: pending.callId } : {}),
      action: answer.action,
      by: outcome.by,
      ...(answer.action === 'accept' ? { fields: Object.keys(answer.content) } : {}),
    });
  });
  return () => {
    offRequest();
    offResolved();
  };
}

function stop(scope: RunScope, error: unknown): RunResult {
  const stopped =
    error instanceof RunStop
      ? error
      : new RunStop('model_error', 'fail', error instanceof Error ? error.message : String(error));
  if (stopped.outcome === 'completed') return end(scope, 'completed', stopped.message);
  if (!isFinal(scope.state)) scope.go(stopped.transition);
  return end(scope, stopped.outcome, stopped.message, stopped.code);
}

function end(scope: RunScope, outcome: RunOutcome, given: string, code?: number): RunResult {
  absorbOutsideSpend(scope);
  // The reason may quote a model's or a tool's error: stored and returned redacted.
  const reason = scope.deps.redactor ? scope.deps.redactor.redact(given).text : given;
  scope.stepId = undefined;
  scope.emit({
    type: 'run.finished',
    outcome,
    reason,
    usage: eventUsage(scope.usage),
    cost_usd: scope.costUsd,
    turns: scope.turns,
    ...(code !== undefined ? { code } : {}),
  });
  const { run, state, reply, usage, costUsd, turns } = scope;
  return {
    runId: run.id,
    sessionId: run.sessionId,
    state,
    outcome,
    reason,
    ...(code !== undefined ? { code } : {}),
    reply,
    usage,
    costUsd,
    turns,
  };
}
