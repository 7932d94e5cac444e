import { describe, expect, it } from 'vitest';
import { callSignature } from '../../../src/main/core/runtime/guards.js';
import {
  advance,
  FINAL_STATES,
  IllegalTransition,
  type RunState,
  type RunTransition,
  TRANSITIONS,
} from '../../../src/main/core/runtime/state.js';

const STATES = Object.keys(TRANSITIONS) as RunState[];
const EVENTS: RunTransition[] = [
  'start',
  'call_model',
  'tool_needed',
  'user_call',
  'answered',
  'approval_needed',
  'approval_resolved',
  'tools_done',
  'continue',
  'halt',
  'fail',
  'time_out',
  'deny',
];

describe('run state machine', () => {
  it('walks the happy path of a tool-using run', () => {
    const path: RunTransition[] = [
      'start',
      'call_model',
      'tool_needed',
      'approval_needed',
      'approval_resolved',
      'tools_done',
      'continue',
      'call_model',
      'answered',
    ];
    const states = path.reduce<RunState[]>(
      (acc, t) => [...acc, advance(acc.at(-1) as RunState, t)],
      ['IDLE'],
    );
    expect(states).toEqual([
      'IDLE',
      'PLANNING',
      'EXECUTING',
      'WAITING_TOOL',
      'WAITING_APPROVAL',
      'WAITING_TOOL',
      'REFLECTING',
      'PLANNING',
      'EXECUTING',
      'IDLE',
    ]);
  });

  it('allows exactly the listed transitions and throws on every other pair', () => {
    let legal = 0;
    for (const state of STATES) {
      for (const event of EVENTS) {
        const to = TRANSITIONS[state][event];
        if (to) {
          legal++;
          expect(advance(state, event)).toBe(to);
        } else {
          expect(() => advance(state, event)).toThrow(IllegalTransition);
          expect(() => advance(state, event)).toThrow(`a run in ${state} cannot take "${event}"`);
        }
      }
    }
    expect(legal).toBe(34);
  });

  it('lets every active state stop four ways and every final state only resume', () => {
    for (const state of STATES) {
      if (FINAL_STATES.has(state)) {
        expect(Object.keys(TRANSITIONS[state])).toEqual(['start']);
      } else if (state !== 'IDLE') {
        expect([
          advance(state, 'halt'),
          advance(state, 'fail'),
          advance(state, 'time_out'),
          advance(state, 'deny'),
        ]).toEqual(['HALTED', 'ERROR', 'TIMEOUT', 'DENIED']);
      }
    }
  });

  it('cannot reach WAITING_APPROVAL except from WAITING_TOOL', () => {
    const into = STATES.filter((s) => Object.values(TRANSITIONS[s]).includes('WAITING_APPROVAL'));
    expect(into).toEqual(['WAITING_TOOL']);
  });
});

describe('callSignature', () => {
  it('ignores key order but not values', () => {
    expect(callSignature('a', { x: 1, y: [1, { b: 2, a: 1 }] })).toBe(
      callSignature('a', { y: [1, { a: 1, b: 2 }], x: 1 }),
    );
    expect(callSignature('a', { x: 1 })).not.toBe(callSignature('a', { x: 2 }));
    expect(callSignature('a', { x: 1 })).not.toBe(callSignature('b', { x: 1 }));
  });
});
