/**
 * The tool-call phase: a step's calls recorded, validated, decided by the policy (a person asked
 * when it says so), run (read-only calls in parallel, side effects in order) and settled into
 * results the model reads; and, after a crash, the interrupted step finished without repeating
 * a side effect.
 */
import type { ToolCall, ToolResultBlock } from '../../../shared/messages.js';
import { toolCallsOf } from '../../../shared/messages.js';
import { CKP_ERRORS } from '../errors.js';
import { type CapabilityGrant, newId, type StepId } from '../terms.js';
import type { ToolOutcome } from '../tools/index.js';
import { eventGrant } from './events.js';
import type { RunScope } from './run-scope.js';
import { abortStop, RunStop, refusal } from './stops.js';

/** One step's calls: recorded, authorized, run, and their results appended. */
export async function toolStep(
  scope: RunScope,
  calls: ToolCall[],
  truncated = false,
): Promise<ToolResultBlock[]> {
  const { tools } = scope.deps;
  for (const call of calls) scope.remember(call);
  const stepId = scope.startStep('tools');
  scope.emit({
    type: 'step.calls',
    step_id: stepId,
    calls: calls.map((call) => ({ ...call, read_only: tools.isReadOnly(call.name) })),
  });
  const cut = new Map<string, ToolOutcome>();
  if (truncated) {
    for (const call of calls) {
      scope.emit({ type: 'tool.requested', call, read_only: tools.isReadOnly(call.name) });
      const refused = refusal(
        'truncated_reply',
        CKP_ERRORS.invalidParams,
        'not run: your reply was cut off at the output token limit, so this call may be incomplete; write it again, shorter',
      );
      cut.set(call.id, settle(scope, call, refused, 0, false, 'denied'));
    }
  }
  const results = await runTools(scope, calls, cut);
  scope.append({ role: 'user', content: results }, scope.lastMessageId, false);
  scope.endStep();
  scope.go('tools_done');
  return results;
}

/**
 * Results in call order. Policy decisions (and approvals) are taken one call at a time, in
 * order, so a person is never asked two things at once; then allowed read-only calls run in
 * parallel batches while each side effect is a barrier that runs alone, in order.
 */
async function runTools(
  scope: RunScope,
  calls: ToolCall[],
  known: Map<string, ToolOutcome>,
): Promise<ToolResultBlock[]> {
  const { tools } = scope.deps;
  const { maxParallelTools } = scope.guards;
  const results = new Map<string, ToolOutcome>(known);
  const pending = calls.filter((call) => !results.has(call.id));
  for (const call of pending)
    scope.emit({ type: 'tool.requested', call, read_only: tools.isReadOnly(call.name) });
  const allowed: Array<{ call: ToolCall; grant?: CapabilityGrant }> = [];
  for (const call of pending) {
    const invalid = await tools.validate(call);
    if (invalid) {
      results.set(call.id, settle(scope, call, invalid));
      continue;
    }
    const verdict = await authorize(scope, call);
    if ('content' in verdict) results.set(call.id, verdict);
    else allowed.push({ call, grant: verdict.grant });
  }
  let batch: typeof allowed = [];
  const flush = async () => {
    const running = batch;
    batch = [];
    for (let at = 0; at < running.length; at += maxParallelTools) {
      const slice = running.slice(at, at + maxParallelTools);
      const outcomes = await Promise.all(
        slice.map(({ call, grant }) => execute(scope, call, grant)),
      );
      for (const [i, { call }] of slice.entries()) results.set(call.id, outcomes[i] as ToolOutcome);
    }
  };
  for (const entry of allowed) {
    if (tools.isReadOnly(entry.call.name)) {
      batch.push(entry);
      continue;
    }
    await flush();
    results.set(entry.call.id, await execute(scope, entry.call, entry.grant));
  }
  await flush();
  return calls.map((call) => {
    const outcome = results.get(call.id) ?? { content: 'no result', isError: true };
    const block: ToolResultBlock = {
      type: 'tool_result',
      toolUseId: call.id,
      content: outcome.content,
    };
    if (outcome.isError) block.isError = true;
    return block;
  });
}

/** The policy's answer for one call: a grant to run it, or the refusal as its result. */
async function authorize(
  scope: RunScope,
  call: ToolCall,
): Promise<{ grant?: CapabilityGrant } | ToolOutcome> {
  const { run, deps, controller } = scope;
  const decision = await deps.policy.decide(call, {
    runId: run.id,
    sessionId: run.sessionId,
    stepId: scope.stepId as StepId,
    readOnly: deps.tools.isReadOnly(call.name),
  });
  scope.emit({
    type: 'policy.decided',
    call_id: call.id,
    decision: decision.action,
    ...(decision.action !== 'allow' ? { reason: decision.reason } : {}),
    ...(decision.rule ? { rule: decision.rule } : {}),
    ...(decision.action !== 'deny' && decision.grant ? { grant: eventGrant(decision.grant) } : {}),
  });
  if (decision.action !== 'deny' && decision.prediction) {
    const { worldModel, risk, summary, cost, unavailable } = decision.prediction;
    scope.emit({
      type: 'world_model.predicted',
      call_id: call.id,
      world_model: worldModel,
      risk,
      summary,
      ...(cost !== undefined ? { cost } : {}),
      ...(unavailable !== undefined ? { unavailable } : {}),
    });
  }
  if (decision.action === 'allow') return { grant: decision.grant };
  if (decision.action === 'deny') {
    const refused = refusal(
      'policy_denied',
      CKP_ERRORS.policyDenied,
      `denied by policy: ${decision.reason}`,
    );
    return settle(scope, call, refused, 0, false, 'denied');
  }
  const approvalId = newId<string>('apr');
  scope.go('approval_needed');
  scope.emit({
    type: 'approval.requested',
    approval_id: approvalId,
    call,
    reason: decision.reason,
  });
  const answer = await deps.approvals.request({
    id: approvalId,
    runId: run.id,
    call,
    sessionId: run.sessionId,
    reason: decision.reason,
    rule: decision.rule,
    timeoutMs: decision.timeoutMs,
    defaultIfTimeout: decision.defaultIfTimeout,
    sessionApprovable: decision.sessionApprovable,
    ...(decision.sessionScope ? { sessionScope: decision.sessionScope } : {}),
    ...(decision.prediction ? { prediction: decision.prediction } : {}),
    signal: controller.signal,
  });
  scope.emit({
    type: 'approval.resolved',
    approval_id: approvalId,
    approved: answer.approved,
    by: answer.by,
  });
  scope.go('approval_resolved');
  if (controller.signal.aborted) throw abortStop(scope.guards, controller.signal);
  if (answer.approved) return { grant: decision.grant };
  const outcome = answer.timedOut
    ? refusal('approval_timeout', CKP_ERRORS.approvalTimeout, 'nobody approved this call in time')
    : refusal('approval_denied', CKP_ERRORS.approvalDenied, `not approved (${answer.by})`);
  return settle(scope, call, outcome, 0, false, 'denied');
}

async function execute(
  scope: RunScope,
  call: ToolCall,
  grant?: CapabilityGrant,
): Promise<ToolOutcome> {
  const { signal } = scope.controller;
  scope.emit({ type: 'tool.started', call_id: call.id, name: call.name });
  const started = performance.now();
  let outcome: ToolOutcome;
  try {
    outcome = await scope.deps.tools.execute(call, {
      signal,
      runId: scope.run.id,
      stepId: scope.stepId as StepId,
      grant,
    });
  } catch (error) {
    outcome = {
      content: `tool failed: ${error instanceof Error ? error.message : String(error)}`,
      isError: true,
    };
  }
  if (signal.aborted) throw abortStop(scope.guards, signal);
  return settle(scope, call, outcome, performance.now() - started);
}

/** A call's result, stated once: recorded (unless replayed) and published. */
function settle(
  scope: RunScope,
  call: ToolCall,
  outcome: ToolOutcome,
  durationMs = 0,
  replayed = false,
  status: 'completed' | 'denied' = 'completed',
): ToolOutcome {
  scope.emit({
    type: 'tool.finished',
    call_id: call.id,
    name: call.name,
    is_error: outcome.isError === true,
    duration_ms: Math.round(durationMs),
    status: status === 'denied' ? 'denied' : outcome.isError ? 'error' : 'ok',
    ...(outcome.isError && outcome.code !== undefined ? { code: outcome.code } : {}),
    output: outcome.content,
    ...(replayed ? { replayed } : {}),
  });
  return outcome;
}

/**
 * Resume after a crash between the model asking for tools and their results being saved:
 * completed calls keep their recorded results, read-only ones run again, and a side effect
 * that was started but never recorded is NOT repeated: the model is told it was interrupted.
 */
export async function finishInterruptedTools(scope: RunScope): Promise<void> {
  const { store, tools } = scope.deps;
  const last = scope.history.at(-1)?.message;
  if (last?.role !== 'assistant') return;
  const calls = toolCallsOf(last);
  if (calls.length === 0) {
    // The answer was saved before the process died: nothing left to do.
    scope.go('call_model');
    scope.go('answered');
    throw new RunStop('completed', 'answered', 'the model had already answered');
  }
  scope.go('call_model');
  scope.go('tool_needed');
  const rows = new Map(store.lastToolCalls(scope.run.id).map((row) => [row.callId, row]));
  const stepId = rows.values().next().value?.stepId;
  if (stepId) scope.stepId = stepId;
  else scope.startStep('tools');
  if (rows.size === 0) {
    scope.emit({
      type: 'step.calls',
      step_id: scope.stepId as StepId,
      calls: calls.map((call) => ({ ...call, read_only: tools.isReadOnly(call.name) })),
    });
  }
  const known = new Map<string, ToolOutcome>();
  for (const call of calls) {
    const row = rows.get(call.id);
    if (row?.status === 'completed' || row?.status === 'interrupted') {
      known.set(
        call.id,
        settle(scope, call, { content: row.result ?? '', isError: row.isError }, 0, true),
      );
    } else if (row?.status === 'started' && !row.readOnly) {
      const outcome = {
        content: `${call.name} was interrupted while running and was not repeated; check whether it took effect before trying again`,
        isError: true,
      };
      scope.emit({ type: 'tool.interrupted', call_id: call.id, output: outcome.content });
      known.set(call.id, settle(scope, call, outcome, 0, true));
    }
  }
  const results = await runTools(scope, calls, known);
  scope.append({ role: 'user', content: results }, scope.lastMessageId, false);
  scope.endStep();
  scope.go('tools_done');
  scope.go('continue');
}
