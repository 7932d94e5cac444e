/**
 * What validation at the IPC door costs: a direct handler call (baseline) against the same call
 * through `dispatch`, which checks the channel, the size and the zod schema of request and reply.
 */
import { dispatch } from '../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../src/main/core/ipc/handlers.js';
import { measure, report } from './lib.js';

export async function run(): Promise<void> {
  const handlers = createCoreHandlers({ dataDir: '/tmp/pincer-bench', electronVersion: null });
  const request = { message: 'hello from the benchmark' };
  const results = await measure([
    { name: 'handler called directly', fn: () => handlers['agent.ping'](request) },
    { name: 'dispatch (validate + handler)', fn: () => dispatch(handlers, 'agent.ping', request) },
    { name: 'dispatch of an invalid request', fn: () => dispatch(handlers, 'agent.ping', {}) },
  ]);
  report('ipc-dispatch: per-call cost of contract validation', results);
}
