/**
 * A tool worker: a child process that loads the JS tools once and runs calls sent by the pool,
 * one at a time, inside the OS sandbox the pool started it in. Extra tool modules (absolute
 * paths) come as arguments. It exits when the pool goes away.
 */
import { pathToFileURL } from 'node:url';
import { BUILTIN_TOOLS } from '../tools/builtins/index.js';
import { isToolError, type Tool } from '../tools/types.js';
import { type FromWorker, runsOnHost, type ToWorker } from './protocol.js';

function isTool(value: unknown): value is Tool {
  const candidate = value as Partial<Tool> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.name === 'string' &&
    typeof candidate.run === 'function'
  );
}

async function loadTools(modules: readonly string[]): Promise<Map<string, Tool>> {
  const tools = new Map<string, Tool>();
  for (const tool of BUILTIN_TOOLS) if (!runsOnHost(tool)) tools.set(tool.name, tool);
  for (const file of modules) {
    const loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const value of Object.values(loaded).flatMap((v) => (Array.isArray(v) ? v : [v]))) {
      if (isTool(value)) tools.set(value.name, value);
    }
  }
  return tools;
}

function send(message: FromWorker): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  if (!process.send)
    throw new Error('the tool worker must be started by the pool (no IPC channel)');
  const tools = await loadTools(process.argv.slice(2));
  const running = new Map<number, AbortController>();
  process.on('message', (message: ToWorker) => {
    if (message.type === 'cancel') {
      running.get(message.id)?.abort(new Error('cancelled'));
      return;
    }
    const tool = tools.get(message.tool);
    if (!tool) {
      send({
        type: 'failed',
        id: message.id,
        message: `no tool ${message.tool} in this worker`,
        toolError: true,
      });
      return;
    }
    const controller = new AbortController();
    running.set(message.id, controller);
    tool
      .run(message.input, { ...message.context, signal: controller.signal })
      .then(
        (output) => send({ type: 'result', id: message.id, output }),
        (error: unknown) =>
          send({
            type: 'failed',
            id: message.id,
            message: error instanceof Error ? error.message : String(error),
            toolError: isToolError(error),
            // A ToolError's CKP code (the pool keeps it only when CKP defines it).
            ...(typeof (error as { code?: unknown } | undefined)?.code === 'number'
              ? { code: (error as { code: number }).code }
              : {}),
          }),
      )
      .finally(() => running.delete(message.id));
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', tools: [...tools.keys()] });
}

main().catch((error: unknown) => {
  process.stderr.write(`tool worker failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(70);
});
