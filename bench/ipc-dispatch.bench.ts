/**
 * What validation at the IPC door costs: a direct handler call (baseline) against the same call
 * through `dispatch`, which checks the channel, the size and the zod schema of request and reply.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createAssistant } from '../src/main/core/assistant/index.js';
import { dispatch } from '../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../src/main/core/ipc/handlers.js';
import { viaProvider } from '../src/main/core/models/access.js';
import { ScriptedProvider } from '../test/support/scripted-provider.js';
import { measure, report } from './lib.js';

export async function run(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-'));
  const assistant = await createAssistant({
    dataDir,
    appDir: path.resolve(import.meta.dirname, '..'),
    model: { kind: 'fixed', access: viaProvider(new ScriptedProvider([]), 'none'), label: 'none' },
  });
  const handlers = createCoreHandlers({ assistant, electronVersion: null });
  const request = { theme: 'dark' as const };
  try {
    const results = await measure([
      { name: 'handler called directly', fn: () => handlers['settings.set'](request) },
      {
        name: 'dispatch (validate + handler)',
        fn: () => dispatch(handlers, 'settings.set', request),
      },
      {
        name: 'dispatch of an invalid request',
        fn: () => dispatch(handlers, 'settings.set', { theme: 1 }),
      },
    ]);
    report('ipc-dispatch: per-call cost of contract validation', results);
  } finally {
    await assistant.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
