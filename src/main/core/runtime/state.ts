/**
 * A run's state machine (seed 000's diagram, as the loop actually moves). Transitions are named
 * events looked up in one table: a state changes only through `advance`, and an event that the
 * table does not list for the current state throws, so an illegal transition cannot happen
 * quietly. The table is exported for the exhaustive test.
 */
import { PincerError } from '../errors.js';

export type RunState =
  | 'IDLE'
  | 'PLANNING'
  | 'EXECUTING'
  | 'WAITING_TOOL'
  | 'WAITING_APPROVAL'
  | 'REFLECTING'
  | 'HALTED'
  | 'ERROR'
  | 'TIMEOUT'
  | 'DENIED';

export type RunTransition =
  /** A user message (or a resume) starts work. */
  | 'start'
  /** The context is assembled; the model is being called. */
  | 'call_model'
  /** The model asked for tools. */
  | 'tool_needed'
  /** The user called tools directly (`@fs/list{...}`): no model call in between. */
  | 'user_call'
  /** The model answered without tools: the run is done and the agent idle again. */
  | 'answered'
  /** A tool call needs a person's decision. */
  | 'approval_needed'
  /** The decision arrived (approved or denied: a denied call still gets a result). */
  | 'approval_resolved'
  /** Every tool call of the step has a result. */
  | 'tools_done'
  /** Results are in; guards allow another model call. */
  | 'continue'
  /** Cancelled, or a guard (turns, tokens, cost, repeats) stopped the run. */
  | 'halt'
  | 'fail'
  | 'time_out'
  /** The policy refuses the whole run (e.g. an observer identity asked to act). */
  | 'deny';

/** States a run never leaves by itself; `start` (resume) is the only way out. */
export const FINAL_STATES: ReadonlySet<RunState> = new Set([
  'IDLE',
  'HALTED',
  'ERROR',
  'TIMEOUT',
  'DENIED',
]);

const STOPS = { halt: 'HALTED', fail: 'ERROR', time_out: 'TIMEOUT', deny: 'DENIED' } as const;

export const TRANSITIONS: Readonly<
  Record<RunState, Readonly<Partial<Record<RunTransition, RunState>>>>
> = {
  IDLE: { start: 'PLANNING' },
  PLANNING: { call_model: 'EXECUTING', user_call: 'WAITING_TOOL', ...STOPS },
  EXECUTING: { tool_needed: 'WAITING_TOOL', answered: 'IDLE', ...STOPS },
  WAITING_TOOL: { approval_needed: 'WAITING_APPROVAL', tools_done: 'REFLECTING', ...STOPS },
  WAITING_APPROVAL: { approval_resolved: 'WAITING_TOOL', ...STOPS },
  REFLECTING: { continue: 'PLANNING', answered: 'IDLE', ...STOPS },
  // A stopped run can be resumed: that is the seed's "recover".
  HALTED: { start: 'PLANNING' },
  ERROR: { start: 'PLANNING' },
  TIMEOUT: { start: 'PLANNING' },
  DENIED: { start: 'PLANNING' },
};

export class IllegalTransition extends PincerError {
  override readonly name = 'IllegalTransition';
  constructor(
    readonly from: RunState,
    readonly transition: RunTransition,
  ) {
    super('internal', `a run in ${from} cannot take "${transition}"`);
  }
}

export function advance(from: RunState, transition: RunTransition): RunState {
  const to = TRANSITIONS[from][transition];
  if (!to) throw new IllegalTransition(from, transition);
  return to;
}

export const isFinal = (state: RunState) => FINAL_STATES.has(state);
