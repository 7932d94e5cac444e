/**
 * How a run ends early and how a call is refused: a `RunStop` is thrown inside the loop and
 * caught where it becomes the run's outcome; a refusal is a call's result the model can act on.
 */
import { categoryOfCkpCode, PincerError } from '../errors.js';
import type { RunOutcome } from '../terms.js';
import type { ToolOutcome } from '../tools/index.js';
import type { Guards } from './guards.js';
import type { RunTransition } from './state.js';

/** Why the run's abort signal fired. */
export type StopCause = 'cancelled' | 'run_timeout' | 'turn_timeout';

/** How a run ends early; caught inside the runtime, where it becomes the run's outcome. */
export class RunStop extends PincerError {
  constructor(
    readonly outcome: RunOutcome,
    readonly transition: RunTransition,
    message: string,
    /** The CKP code of the failure when the protocol names it (a provider's quota). */
    readonly code?: number,
  ) {
    super(code === undefined ? 'internal' : categoryOfCkpCode(code), message);
  }

  override get ckpCode(): number | undefined {
    return this.code;
  }
}

/** The stop an aborted signal means: the turn's own timeout first, then the run's reason. */
export function abortStop(
  guards: Pick<Guards, 'runTimeoutMs' | 'turnTimeoutMs'>,
  signal: AbortSignal,
  turn?: AbortSignal,
): RunStop {
  const cause = (turn?.aborted ? turn.reason : signal.reason) as StopCause;
  if (cause === 'run_timeout')
    return new RunStop(
      'run_timeout',
      'time_out',
      `the run took longer than ${guards.runTimeoutMs} ms`,
    );
  if (cause === 'turn_timeout')
    return new RunStop(
      'turn_timeout',
      'time_out',
      `a model call took longer than ${guards.turnTimeoutMs} ms`,
    );
  return new RunStop('cancelled', 'halt', 'cancelled');
}

/** A refused call's result: the CKP error code and a sentence the model can act on. */
export function refusal(error: string, code: number, message: string): ToolOutcome {
  return { content: JSON.stringify({ error, code, message }), isError: true, code };
}
