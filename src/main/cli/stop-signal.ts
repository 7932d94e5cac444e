/**
 * Resolves on the first Ctrl+C (SIGINT) or SIGTERM, for the commands that serve until stopped.
 * Its listeners stay registered until the signal's other listeners have run: node-llama-cpp
 * brings signal-exit (through proper-lockfile), which re-raises a signal when it finds itself
 * the only listener left, and a `process.once` listener is already removed by then, so the
 * process died by the signal before it could close (drain, remove gateway.json, close the store).
 * A second signal, once the listeners are gone, still ends the process at once.
 */
export function stopSignal(signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      setImmediate(() => {
        for (const signal of signals) process.off(signal, stop);
      });
      resolve();
    };
    for (const signal of signals) process.on(signal, stop);
  });
}
