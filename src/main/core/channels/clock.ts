/** Time as channels see it: tests drive schedules with a clock they advance by hand. */
export interface Clock {
  now(): number;
  /** Calls `fire` after `ms`; returns the cancel function. */
  setTimer(ms: number, fire: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fire) {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};
