/** Shared set-up for runtime tests: a real SQLite file per test, scripted models, tool hosts. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RunEvent } from '../../../src/main/core/runtime/events.js';
import { RunStore } from '../../../src/main/core/runtime/store.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';
import type { ToolHost, ToolOutcome, ToolRunContext } from '../../../src/main/core/tools/host.js';
import type { ToolCall, ToolDef } from '../../../src/shared/messages.js';

export async function tempStore() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-runtime-'));
  const file = path.join(dir, 'pincer.db');
  const db = openDatabase(file, { vectors: false });
  return {
    dir,
    file,
    store: new RunStore(db),
    cleanup: async () => {
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

type Impl = (
  input: Record<string, unknown>,
  context: ToolRunContext,
) => Promise<ToolOutcome> | ToolOutcome;

/** A tool host from plain functions; `log` records start/end order across calls. */
export function toolHost(tools: Record<string, { readOnly?: boolean; run: Impl }>) {
  const log: string[] = [];
  const host: ToolHost = {
    definitions: (): ToolDef[] =>
      Object.keys(tools).map((name) => ({ name, parameters: { type: 'object', properties: {} } })),
    isReadOnly: (name) => tools[name]?.readOnly === true,
    // These tools take any arguments: validation is the registry's, tested through it.
    validate: async () => undefined,
    prepare: () => undefined,
    execute: async (call: ToolCall, context) => {
      const tool = tools[call.name];
      if (!tool) return { content: `unknown tool ${call.name}`, isError: true };
      log.push(`start ${call.name}`);
      try {
        return await tool.run(call.input, context);
      } finally {
        log.push(`end ${call.name}`);
      }
    },
  };
  return { host, log };
}

export async function drain(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** Resolves when the signal aborts; a tool that runs "forever". */
export function untilAborted(signal: AbortSignal): Promise<ToolOutcome> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve({ content: 'aborted', isError: true });
    signal.addEventListener('abort', () => resolve({ content: 'aborted', isError: true }), {
      once: true,
    });
  });
}
