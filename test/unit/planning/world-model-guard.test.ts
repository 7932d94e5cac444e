/**
 * The world-model guard's rules on their own: what a backend's text becomes, which calls are
 * predicted, what a cautious fallback does with a failure, retry once, and a hung backend.
 */
import { describe, expect, it } from 'vitest';
import type { Primitive, WorldModelSpec } from '../../../src/main/core/ckp/index.js';
import { type Planner, worldModelGuarded } from '../../../src/main/core/planning/index.js';
import { readPrediction } from '../../../src/main/core/planning/predictors.js';
import type { PolicyDecision, PolicyHook } from '../../../src/main/core/policy/index.js';

const spec = (over: Partial<WorldModelSpec> = {}): WorldModelSpec => ({
  paradigm: 'hybrid',
  scope: 'agent-wide',
  backend: { type: 'custom', ref: 'x' },
  ...over,
});
const model = (name: string, over: Partial<WorldModelSpec> = {}) =>
  ({ name, spec: spec(over) }) as Primitive<'WorldModel'>;
const call = { id: 'c1', name: 'fs/write', input: { path: 'a.md' } };
const context = { runId: 'r' as never, sessionId: 's' as never, stepId: 't' as never };
const policy = (decision: PolicyDecision): PolicyHook => ({ decide: async () => decision });

describe('readPrediction', () => {
  it('reads the declared fields of a JSON answer, even inside prose', () => {
    expect(
      readPrediction(
        'm',
        spec(),
        'Sure: {"state":"a.md is replaced","risk":"HIGH","cost":"1 s","extra":1} done',
      ),
    ).toEqual({ worldModel: 'm', summary: 'a.md is replaced', risk: 'high', cost: '1 s' });
  });
  it('takes a 0-1 risk score, and leaves out what the model does not declare it predicts', () => {
    const noCost = spec({ predicts: { state: true, risk: true } });
    expect(readPrediction('m', noCost, '{"state":"s","risk":0.8,"cost":"9"}')).toEqual({
      worldModel: 'm',
      summary: 's',
      risk: 'high',
    });
    expect(readPrediction('m', noCost, '{"state":"s","risk":0.4}').risk).toBe('medium');
    expect(readPrediction('m', spec({ predicts: { state: true } }), '{"risk":"high"}').risk).toBe(
      'unknown',
    );
  });
  it('keeps plain text as the summary, clipped; nothing at all is no prediction', () => {
    const long = readPrediction('m', spec(), 'x'.repeat(2000));
    expect(long.summary).toHaveLength(400);
    expect(long.risk).toBe('unknown');
    expect(readPrediction('m', spec(), '  ').unavailable).toBe('its backend answered nothing');
  });
});

describe('worldModelGuarded', () => {
  const planner = (
    name: string,
    answers: Array<() => Promise<unknown>>,
    over = {},
  ): Planner & { asked: number } => {
    const p = {
      asked: 0,
      worldModel: model(name, over),
      predict: async () => {
        const answer = answers[Math.min(p.asked, answers.length - 1)];
        p.asked++;
        return (await answer?.()) as never;
      },
    };
    return p;
  };
  const high = async () => ({ worldModel: 'm', summary: 'gone', risk: 'high' });
  const failed = async () => {
    throw new Error('backend down');
  };

  it('asks nothing for a denied or a read-only call', async () => {
    const p = planner('m', [high], { planning: { fallback: 'conservative' } });
    const deny = await worldModelGuarded(policy({ action: 'deny', reason: 'no' }), [p]).decide(
      call,
      {
        ...context,
        readOnly: false,
      },
    );
    expect(deny).toEqual({ action: 'deny', reason: 'no' });
    await worldModelGuarded(policy({ action: 'allow' }), [p]).decide(call, {
      ...context,
      readOnly: true,
    });
    expect(p.asked).toBe(0);
  });

  it('a failed backend under a conservative fallback asks; under retry it is asked again once', async () => {
    const cautious = planner('m', [failed], { planning: { fallback: 'conservative' } });
    const decided = await worldModelGuarded(policy({ action: 'allow' }), [cautious]).decide(call, {
      ...context,
      readOnly: false,
    });
    expect(decided).toMatchObject({
      action: 'ask',
      rule: 'world-model/m',
      sessionApprovable: false,
      prediction: { unavailable: 'backend down' },
    });
    const retrying = planner('r', [failed, high], { planning: { fallback: 'retry' } });
    const retried = await worldModelGuarded(policy({ action: 'allow' }), [retrying]).decide(call, {
      ...context,
      readOnly: false,
    });
    expect(retrying.asked).toBe(2);
    // Retry never hands the call to a person: the rule's allow stands, with the prediction.
    expect(retried).toMatchObject({ action: 'allow', prediction: { risk: 'high' } });
  });

  it('a backend that never answers counts as no prediction after the timeout', async () => {
    const hung = planner('h', [() => new Promise(() => {})], {
      planning: { fallback: 'escalate' },
    });
    const decided = await worldModelGuarded(policy({ action: 'allow' }), [hung], {
      timeoutMs: 50,
    }).decide(call, { ...context, readOnly: false });
    expect(decided).toMatchObject({
      action: 'ask',
      prediction: { unavailable: expect.any(String) },
    });
  });

  it('keeps an ask an ask, with the worst prediction; task-scoped models are not asked', async () => {
    const low = planner('low', [async () => ({ worldModel: 'low', summary: 's', risk: 'low' })]);
    const bad = planner('bad', [high]);
    const scoped = planner('scoped', [high], { scope: 'task-scoped' });
    const decided = await worldModelGuarded(
      policy({ action: 'ask', reason: 'rule asks', timeoutMs: 5 }),
      [low, bad, scoped],
    ).decide(call, { ...context, readOnly: false });
    expect(decided).toMatchObject({
      action: 'ask',
      reason: 'rule asks',
      prediction: { risk: 'high' },
    });
    expect(scoped.asked).toBe(0);
  });
});
