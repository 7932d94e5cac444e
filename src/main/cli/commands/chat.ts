import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { LocalModelProvider } from '../../core/local/provider.js';
import { viaProvider } from '../../core/runtime/hooks.js';
import type { RunHandle } from '../../core/runtime/runtime.js';
import type { SessionId } from '../../core/runtime/terms.js';
import {
  addModelChoiceOptions,
  addModelOptions,
  checkModelChoice,
  chooseModel,
  type ModelChoiceOptions,
  type ModelSetup,
  openEngine,
  openRuntime,
  PROTOCOL_NAMES,
} from '../agent-setup.js';
import { type CliContext, ExitCode } from '../context.js';
import { describeError } from '../errors.js';
import type { SetExitCode } from '../program.js';
import { printRun } from '../run-events.js';
import { rawStream } from '../terminal-text.js';
import { printToolResults, startTyped } from '../typed-calls.js';

interface ChatOptions extends ModelChoiceOptions {
  session?: string;
}

/** `pincer chat`: a terminal conversation; each line is a run of one session. */
export function registerChat(program: Command, ctx: CliContext, setExit: SetExitCode) {
  addModelChoiceOptions(
    addModelOptions(
      program
        .command('chat')
        .description('chat with the agent in this terminal (Ctrl+C stops a reply)'),
    ),
  )
    .option('--session <id>', 'continue this session')
    .action(async (options: ChatOptions) => {
      const problem = checkModelChoice(options);
      if (problem) {
        ctx.stderr.write(`pincer chat: ${problem}\n`);
        return setExit(ExitCode.usage);
      }
      let model: ModelSetup | undefined;
      try {
        model = await chatModel(ctx, options);
        if (!model) return setExit(ExitCode.failed);
        await repl(ctx, model, options);
        setExit(ExitCode.ok);
      } catch (error) {
        ctx.stderr.write(`pincer chat: ${describeError(ctx, error)}\n`);
        setExit(ExitCode.failed);
      } finally {
        await model?.dispose();
      }
    });
}

/** The local engine opens up front, so a missing model is reported before the first prompt. */
async function chatModel(ctx: CliContext, options: ChatOptions): Promise<ModelSetup | undefined> {
  if (options.provider || PROTOCOL_NAMES[options.protocol] !== 'local') {
    ctx.stderr.write('Pincer chat. Ctrl+C stops a reply; Ctrl+D or /exit quits.\n');
    return chooseModel(ctx, options);
  }
  const engine = await openEngine(ctx, options);
  if (!engine) return undefined;
  const info = await engine.load();
  ctx.stderr.write(
    `Pincer chat with ${info.file.name ?? info.file.path} (${info.gpu || 'cpu'}, ${info.threads} threads, ` +
      `context ${info.contextSize}). Ctrl+C stops a reply; Ctrl+D or /exit quits.\n`,
  );
  const provider = new LocalModelProvider(engine, {
    sampling: { temperature: options.temperature },
  });
  return { access: viaProvider(provider, 'local'), dispose: () => engine.dispose() };
}

async function repl(ctx: CliContext, model: ModelSetup, options: ChatOptions): Promise<void> {
  // readline echoes what the user types and edits the line: it writes to the terminal itself.
  const rl = createInterface({ input: process.stdin, output: rawStream(ctx.stdout), prompt: '> ' });
  // One reader of stdin: chat lines and approval answers come from the same iterator, and
  // never at once (a run waits for its approvals before the next chat line is read).
  const lines = rl[Symbol.asyncIterator]();
  const readLine = async () => {
    const next = await lines.next();
    return next.done ? undefined : next.value;
  };
  const { runtime, store, close } = await openRuntime(ctx, model.access, options, readLine);
  let sessionId = options.session as SessionId | undefined;
  let current: RunHandle | undefined;
  const interrupt = () => {
    if (current) current.cancel();
    else rl.close();
  };
  // On a terminal readline turns Ctrl+C into its own event; piped, it arrives as a signal.
  rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  try {
    rl.prompt();
    for (let line = await readLine(); line !== undefined; line = await readLine()) {
      const text = line.trim();
      if (text === '/exit') break;
      if (!text) {
        rl.prompt();
        continue;
      }
      const started = await startTyped(ctx, runtime, { text, sessionId });
      if ('error' in started) {
        ctx.stderr.write(`${started.error}\n`);
        rl.prompt();
        continue;
      }
      current = started;
      sessionId = current.sessionId;
      const finished = await printRun(ctx, current.events.all(), false);
      await current.done;
      if (store.getRun(current.runId)?.options.direct === true)
        printToolResults(ctx, store, current.runId);
      current = undefined;
      if (finished?.outcome === 'cancelled') ctx.stdout.write('[cancelled]\n');
      else if (finished && finished.outcome !== 'completed')
        ctx.stderr.write(`[${finished.reason}]\n`);
      rl.prompt();
    }
  } finally {
    process.off('SIGINT', interrupt);
    rl.close();
    await close();
  }
}
