import { LocalEngineError } from './errors.js';

/** How long one native load may take before the caller gets an error instead of a hang. */
export const NATIVE_LOAD_DEADLINE_MS = 5 * 60_000;

/**
 * Settles with `work`, or rejects with a `load_timeout` error after `ms`. A promise cannot be
 * cancelled: native work (llama.cpp reading a model) goes on in its thread after the deadline,
 * and `onLate` receives whatever it produces later so it can be disposed rather than leaked.
 */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  what: string,
  onLate?: (value: T) => unknown,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      reject(
        new LocalEngineError(
          'load_timeout',
          `${what} did not finish within ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}; the file may be damaged or hostile`,
        ),
      );
    }, ms);
  });
  work.then(
    (value) => {
      if (late) void Promise.resolve(onLate?.(value)).catch(() => undefined);
    },
    () => undefined,
  );
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
