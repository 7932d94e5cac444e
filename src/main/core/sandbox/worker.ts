/**
 * A tool worker: a child process that loads the JS tools once and runs calls sent by the pool,
 * one at a time, inside the OS sandbox the pool started it in. Extra tool modules (absolute
 * paths) come as arguments. Messages travel as NDJSON on fd 3 (channel.ts); it exits when the
 * pool goes away (the channel closes).
 */
import { fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { Tool, ToolOutput } from '../tools/index.js';
import { CHANNEL_FD, encodeLine, LineSplitter, WIRE_CONTENT_BYTES } from './channel.js';
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

async function loadTools(
  builtins: readonly Tool[],
  modules: readonly string[],
): Promise<Map<string, Tool>> {
  const tools = new Map<string, Tool>();
  for (const tool of builtins) if (!runsOnHost(tool)) tools.set(tool.name, tool);
  for (const file of modules) {
    const loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const value of Object.values(loaded).flatMap((v) => (Array.isArray(v) ? v : [v]))) {
      if (isTool(value)) tools.set(value.name, value);
    }
  }
  return tools;
}

/**
 * The exact shape the host accepts: a tool's sloppy output (a number for content, extra fields)
 * is made well-formed here, so only a tool writing to the channel itself breaks the protocol.
 * Content past the wire budget is trimmed (the host caps it far lower anyway).
 */
function wireOutput(output: ToolOutput | undefined): ToolOutput {
  let content = String(output?.content ?? '');
  if (Buffer.byteLength(content) > WIRE_CONTENT_BYTES)
    content = Buffer.from(content)
      .subarray(0, WIRE_CONTENT_BYTES)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
  const isError = output?.isError === true;
  const code = output?.code;
  return {
    content,
    ...(isError ? { isError } : {}),
    ...(isError && typeof code === 'number' && Number.isInteger(code) ? { code } : {}),
  };
}

async function main(): Promise<void> {
  let isSocket = false;
  try {
    isSocket = fstatSync(CHANNEL_FD).isSocket();
  } catch {
    // No fd 3 at all.
  }
  if (!isSocket)
    throw new Error(`the tool worker must be started by the pool (no channel on fd ${CHANNEL_FD})`);
  // The tools by their own files, not through the tools module's index: a worker needs only
  // them, and the index brings the registry, validators and storage (1.8 MB to load).
  const [{ BUILTIN_TOOLS }, { isToolError }] = await Promise.all([
    import('../tools/builtins/index.js'),
    import('../tools/types.js'),
  ]);
  const tools = await loadTools(BUILTIN_TOOLS, process.argv.slice(2));
  const channel = new Socket({ fd: CHANNEL_FD, readable: true, writable: true });
  const send = (message: FromWorker) => channel.write(encodeLine(message));
  const running = new Map<number, AbortController>();
  const handle = (message: ToWorker) => {
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
    Promise.resolve()
      .then(() => tool.run(message.input, { ...message.context, signal: controller.signal }))
      .then(
        (output) => send({ type: 'result', id: message.id, output: wireOutput(output) }),
        (error: unknown) =>
          send({
            type: 'failed',
            id: message.id,
            message: error instanceof Error ? error.message : String(error),
            toolError: isToolError(error),
            // A ToolError's CKP code (the pool keeps it only when CKP defines it).
            ...(Number.isInteger((error as { code?: unknown } | undefined)?.code)
              ? { code: (error as { code: number }).code }
              : {}),
          }),
      )
      .finally(() => running.delete(message.id));
  };
  // The host is trusted: its lines are parsed as they come, without a bound.
  const lines = new LineSplitter(Number.POSITIVE_INFINITY);
  channel.on('data', (chunk: Buffer) => {
    for (const line of lines.push(chunk)) handle(JSON.parse(line) as ToWorker);
  });
  // The pool is gone (or closed the channel): nothing more will come.
  channel.on('end', () => process.exit(0));
  channel.on('error', () => process.exit(0));
  send({ type: 'ready', tools: [...tools.keys()] });
}

main().catch((error: unknown) => {
  process.stderr.write(`tool worker failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(70);
});
