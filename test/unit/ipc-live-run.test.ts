/**
 * The renderer's fold of run events into the reply being streamed (pure): what the chat shows
 * before the stored history takes over.
 */
import { describe, expect, it } from 'vitest';
import type { RunEventView } from '../../src/shared/ipc.js';
import { applyRunEvent, startLiveRun } from '../../src/shared/live-run.js';

const ids = { trace_id: 't', task_id: 'k', run_id: 'run_1', at: '2026-11-23T12:00:00.000Z' };
let seq = 0;
const ev = (body: Record<string, unknown>) => ({ ...ids, seq: ++seq, ...body }) as RunEventView;
const call = { id: 'c1', name: 'fs/write', input: { path: 'a.txt' } };

describe('applyRunEvent', () => {
  it('joins text deltas, keeps reasoning apart, and places tool cards in order', () => {
    const events = [
      ev({ type: 'model.delta', kind: 'reasoning', text: 'thinking ' }),
      ev({ type: 'model.delta', kind: 'text', text: 'Hel' }),
      ev({ type: 'model.delta', kind: 'text', text: 'lo' }),
      ev({ type: 'tool.requested', call, read_only: false }),
      ev({ type: 'model.delta', kind: 'text', text: 'after' }),
    ];
    const run = events.reduce((r, e) => applyRunEvent(r, e, 50), startLiveRun('run_1', 'hi', 0));
    expect(run.items).toEqual([
      { kind: 'reasoning', text: 'thinking ' },
      { kind: 'text', text: 'Hello' },
      { kind: 'tool', callId: 'c1' },
      { kind: 'text', text: 'after' },
    ]);
    expect(run.firstTokenMs).toBe(50);
  });

  it('follows a tool call through policy, approval, execution and result', () => {
    let run = startLiveRun('run_1', 'hi', 0);
    run = applyRunEvent(run, ev({ type: 'tool.requested', call, read_only: false }));
    run = applyRunEvent(
      run,
      ev({ type: 'policy.decided', call_id: 'c1', decision: 'ask', rule: 'p/r', reason: 'asks' }),
    );
    run = applyRunEvent(run, ev({ type: 'approval.requested', approval_id: 'apr_1', call }));
    expect(run.tools.c1).toMatchObject({
      status: 'waiting_approval',
      approvalId: 'apr_1',
      rule: 'p/r',
    });
    run = applyRunEvent(
      run,
      ev({ type: 'approval.resolved', approval_id: 'apr_1', approved: true, by: 'ui' }),
    );
    run = applyRunEvent(run, ev({ type: 'tool.started', call_id: 'c1', name: 'fs/write' }));
    expect(run.tools.c1?.status).toBe('running');
    run = applyRunEvent(
      run,
      ev({
        type: 'tool.finished',
        call_id: 'c1',
        name: 'fs/write',
        is_error: false,
        status: 'ok',
        duration_ms: 12,
        output: 'wrote 1 byte',
      }),
    );
    expect(run.tools.c1).toMatchObject({
      status: 'ok',
      durationMs: 12,
      output: 'wrote 1 byte',
      approvalBy: 'ui',
      decision: 'ask',
    });
  });

  it('a denied approval marks the card denied; usage adds up; the end is recorded', () => {
    let run = startLiveRun('run_1', 'hi', 0);
    run = applyRunEvent(run, ev({ type: 'tool.requested', call, read_only: false }));
    run = applyRunEvent(run, ev({ type: 'approval.requested', approval_id: 'apr_2', call }));
    run = applyRunEvent(
      run,
      ev({ type: 'approval.resolved', approval_id: 'apr_2', approved: false, by: 'ui: no' }),
    );
    expect(run.tools.c1).toMatchObject({ status: 'denied', approvalBy: 'ui: no' });
    const usage = { input_tokens: 10, output_tokens: 5 };
    for (let i = 0; i < 2; i++)
      run = applyRunEvent(
        run,
        ev({ type: 'model.finished', model: 'm', stop_reason: 'end_turn', usage, cost_usd: 0.01 }),
      );
    expect(run).toMatchObject({ inputTokens: 20, outputTokens: 10, model: 'm' });
    expect(run.costUsd).toBeCloseTo(0.02);
    run = applyRunEvent(
      run,
      ev({
        type: 'run.finished',
        outcome: 'cancelled',
        reason: 'cancelled',
        usage,
        cost_usd: 0,
        turns: 2,
      }),
    );
    expect(run.finished).toEqual({ outcome: 'cancelled', reason: 'cancelled' });
  });

  it('ignores events about calls it never saw', () => {
    const run = startLiveRun('run_1', 'hi', 0);
    expect(applyRunEvent(run, ev({ type: 'tool.started', call_id: 'nope', name: 'x' }))).toBe(run);
  });
});
