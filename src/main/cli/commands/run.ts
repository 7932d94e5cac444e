import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { MAX_IMAGE_BYTES, MAX_IMAGE_SIZE_TEXT, MAX_IMAGES } from '../../../shared/images.js';
import { textOf } from '../../../shared/messages.js';
import {
  type Agent,
  ImageError,
  type ImageFile,
  imageBlocks,
  openAgentRecords,
} from '../../core/agent/index.js';
import type { AgentRuntime, RunHandle, RunRow, RunStore } from '../../core/runtime/index.js';
import type { MessageId, RunId, SessionId } from '../../core/terms.js';
import {
  addModelChoiceOptions,
  addModelOptions,
  checkModelChoice,
  type ModelChoiceOptions,
  openCliAgent,
} from '../agent-options.js';
import { type CliContext, ExitCode } from '../context.js';
import { describeError } from '../errors.js';
import type { SetExitCode } from '../program.js';
import { printRun } from '../run-events.js';
import { messageTooLong, printToolResults, startTyped } from '../typed-calls.js';

interface RunOptions extends ModelChoiceOptions {
  json?: boolean;
  session?: string;
  from?: string;
  requireTool?: boolean;
  image: string[];
}

/** `pincer run "<message>"` drives one agent run; `pincer runs` lists, shows and resumes them. */
export function registerRun(program: Command, ctx: CliContext, setExit: SetExitCode) {
  addModelChoiceOptions(
    addModelOptions(
      program
        .command('run')
        .description(
          'ask the agent once and print the reply as it streams (the local model by default)',
        )
        .argument('<message>', 'what to ask, or tool calls to run directly: @fs/list{path="."}'),
    ),
  )
    .option('--session <id>', 'continue this session (see `pincer runs list`)')
    .option('--from <message-id>', 'branch the session from this earlier message')
    .option('--require-tool', 'the first model call must call a tool (tests, demos)')
    .option(
      '--image <file>',
      `a PNG, JPEG, GIF or WebP image for the model to see (repeatable: at most ${MAX_IMAGES}, each at most ${MAX_IMAGE_SIZE_TEXT}); the model must take images`,
      (file: string, previous: string[]) => [...previous, file],
      [] as string[],
    )
    .option('--json', 'print every run event as one JSON line')
    .action(async (message: string, options: RunOptions) => {
      // Refused before a model is loaded for it.
      const tooLong = messageTooLong(message);
      if (tooLong) {
        ctx.stderr.write(`pincer run: ${tooLong}\n`);
        return setExit(ExitCode.usage);
      }
      const files = await readImages(options.image);
      if ('error' in files) {
        ctx.stderr.write(`pincer run: ${files.error}\n`);
        return setExit(ExitCode.usage);
      }
      return driveRun(ctx, setExit, 'pincer run', options, (_runtime, signal, agent) => {
        let images: ReturnType<typeof imageBlocks>;
        try {
          images = imageBlocks(files.images, {
            takesImages: agent.models.takesImages,
            label: agent.models.label(),
          });
        } catch (error) {
          if (error instanceof ImageError) {
            const hint =
              error.code === 'text_only_model'
                ? ' (with --protocol, say --takes-images if the model does; a manifest provider declares capabilities: [text, image])'
                : '';
            return { error: `${error.message}${hint}` };
          }
          throw error;
        }
        return startTyped(ctx, agent, {
          text: message,
          ...(images.length > 0 ? { images } : {}),
          sessionId: options.session as SessionId | undefined,
          fromMessageId: options.from as MessageId | undefined,
          signal,
          requireToolFirst: options.requireTool === true,
        });
      });
    });

  const runs = program.command('runs').description('list, inspect and resume agent runs');

  runs
    .command('list')
    .description('recent runs, newest first; interrupted ones can be resumed')
    .option('--session <id>', 'only this session')
    .option('--json', 'print JSON')
    .action((options: { session?: string; json?: boolean }) => {
      const { store, close } = openAgentRecords(ctx.dataDir);
      try {
        const rows = store.listRuns({ sessionId: options.session as SessionId | undefined });
        if (options.json) {
          ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        } else if (rows.length === 0) {
          ctx.stdout.write('no runs yet\n');
        } else {
          for (const row of rows) {
            const status = row.outcome ?? `interrupted in ${row.state}`;
            ctx.stdout.write(
              `${row.id}  ${row.createdAt}  ${status.padEnd(24)}  ${row.goal.slice(0, 60)}\n`,
            );
          }
        }
        setExit(ExitCode.ok);
      } finally {
        close();
      }
    });

  runs
    .command('show')
    .description('one run: its state, outcome, messages and tool calls')
    .argument('<id>', 'run id')
    .option('--json', 'print JSON')
    .action((id: string, options: { json?: boolean }) => {
      const { store, close } = openAgentRecords(ctx.dataDir);
      try {
        const run = store.getRun(id as RunId);
        if (!run) {
          ctx.stderr.write(`pincer runs show: no run ${id}\n`);
          return setExit(ExitCode.failed);
        }
        const messages = store.branch(run.lastMessageId).filter((m) => m.runId === run.id);
        const toolCalls = store.toolCalls(run.id);
        const tree = runTree(store, run);
        if (options.json) {
          ctx.stdout.write(
            `${JSON.stringify({ run, messages, toolCalls, children: tree.children }, null, 2)}\n`,
          );
          return setExit(ExitCode.ok);
        }
        ctx.stdout.write(
          `run ${run.id} (session ${run.sessionId})\n` +
            (run.parentRunId ? `delegated by run ${run.parentRunId}\n` : '') +
            `state ${run.state}, outcome ${run.outcome ?? 'none (interrupted)'}${run.reason ? `: ${run.reason}` : ''}\n` +
            `turns ${run.turns}, tokens ${run.usage.inputTokens} in / ${run.usage.outputTokens} out, $${run.costUsd.toFixed(4)}\n\n`,
        );
        for (const { id: messageId, message } of messages) {
          const text = textOf(message);
          const calls = message.content.filter((b) => b.type === 'tool_use').length;
          const results = message.content.filter((b) => b.type === 'tool_result').length;
          const what = [
            text,
            calls ? `[${calls} tool call(s)]` : '',
            results ? `[${results} tool result(s)]` : '',
          ]
            .filter(Boolean)
            .join(' ');
          ctx.stdout.write(`${message.role.padEnd(9)} ${messageId}  ${what}\n`);
        }
        for (const call of toolCalls) {
          ctx.stdout.write(
            `tool      ${call.name} ${JSON.stringify(call.input)} -> ${call.status}${call.isError ? ' (error)' : ''}\n`,
          );
        }
        if (tree.children.length) {
          ctx.stdout.write('\nsub-agents\n');
          const print = (nodes: RunNode[], indent: string) => {
            for (const node of nodes) {
              const { run: child } = node;
              ctx.stdout.write(
                `${indent}${child.id}  ${(child.outcome ?? `interrupted in ${child.state}`).padEnd(12)}  ${child.usage.inputTokens + child.usage.outputTokens} tokens  ${child.goal.slice(0, 60)}\n`,
              );
              print(node.children, `${indent}  `);
            }
          };
          print(tree.children, '  ');
        }
        setExit(ExitCode.ok);
      } finally {
        close();
      }
    });

  addModelChoiceOptions(
    addModelOptions(
      runs
        .command('resume')
        .description(
          'continue a run that was interrupted or stopped, repeating no completed side effect',
        )
        .argument('<id>', 'run id'),
    ),
  )
    .option('--json', 'print every run event as one JSON line')
    .action((id: string, options: RunOptions) =>
      driveRun(ctx, setExit, 'pincer runs resume', options, (runtime, signal) =>
        runtime.resume(id as RunId, { signal }),
      ),
    );
}

interface RunNode {
  run: RunRow;
  children: RunNode[];
}

/** A run and the runs it delegated, recursively (agents/delegate). */
function runTree(store: RunStore, run: RunRow): RunNode {
  return { run, children: store.childRuns(run.id).map((child) => runTree(store, child)) };
}

/**
 * One run from the command line: the agent from the root, start (or resume) the run, print
 * it, and map its end to an exit code. Ctrl+C cancels the run.
 */
async function driveRun(
  ctx: CliContext,
  setExit: SetExitCode,
  command: string,
  options: RunOptions,
  launch: (
    runtime: AgentRuntime,
    signal: AbortSignal,
    agent: Agent,
  ) => RunHandle | { error: string } | Promise<RunHandle | { error: string }>,
): Promise<void> {
  const problem = checkModelChoice(options);
  if (problem) {
    ctx.stderr.write(`${command}: ${problem}\n`);
    return setExit(ExitCode.usage);
  }
  const controller = new AbortController();
  // Removed only after the signal's other listeners ran (see stop-signal.ts): a `once` listener
  // left signal-exit, loaded with the local model, alone to re-raise Ctrl+C and kill the process.
  const onSigint = () => {
    controller.abort();
    setImmediate(() => process.off('SIGINT', onSigint));
  };
  process.on('SIGINT', onSigint);
  let close: () => Promise<void> = async () => {};
  try {
    const opened = await openCliAgent(ctx, options);
    close = opened.close;
    const { runtime, store } = opened.agent;
    // Said when chosen, so a typo'd but existing folder shows; the default stays quiet for scripts.
    if (options.workspace !== undefined)
      ctx.stderr.write(`${command}: workspace ${opened.agent.governance.workspace}\n`);
    const handle = await launch(runtime, controller.signal, opened.agent);
    if ('error' in handle) {
      ctx.stderr.write(`${command}: ${handle.error}\n`);
      return setExit(ExitCode.usage);
    }
    const finished = await printRun(ctx, handle.events.all(), options.json === true);
    await handle.done;
    const direct = store.getRun(handle.runId)?.options.direct === true;
    const toolsOk = direct && !options.json ? printToolResults(ctx, store, handle.runId) : true;
    const code = reportEnd(ctx, finished?.outcome, finished?.reason, options.json === true);
    // A typed call that failed or was refused fails the command, like any shell command would.
    setExit(code === ExitCode.ok && !toolsOk ? ExitCode.failed : code);
  } catch (error) {
    ctx.stderr.write(`${command}: ${describeError(ctx, error)}\n`);
    setExit(ExitCode.failed);
  } finally {
    process.off('SIGINT', onSigint);
    await close();
  }
}

/**
 * The `--image` files, read whole only once their size is known to fit; what they are is
 * decided later from their bytes (agent/images.ts), with the model's declaration.
 */
async function readImages(files: string[]): Promise<{ images: ImageFile[] } | { error: string }> {
  if (files.length > MAX_IMAGES) return { error: `at most ${MAX_IMAGES} images per message` };
  const images: ImageFile[] = [];
  for (const file of files) {
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return { error: `--image ${file}: no such file` };
    if (info.size > MAX_IMAGE_BYTES) {
      return {
        error: `--image ${file}: ${info.size} bytes; an image is at most ${MAX_IMAGE_SIZE_TEXT} (${MAX_IMAGE_BYTES} bytes)`,
      };
    }
    images.push({ name: path.basename(file), bytes: await readFile(file) });
  }
  return { images };
}

function reportEnd(
  ctx: CliContext,
  outcome: string | undefined,
  reason: string | undefined,
  json: boolean,
) {
  if (outcome === 'completed') return ExitCode.ok;
  if (!json)
    ctx.stderr.write(
      outcome === 'cancelled'
        ? '[cancelled]\n'
        : `pincer run: ${reason ?? 'the run ended early'}\n`,
    );
  return ExitCode.failed;
}
