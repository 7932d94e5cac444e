import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { type Agent, ModelOptions } from '../../core/agent/index.js';
import { SessionBook } from '../../core/assistant/index.js';
import { ConnectionBook } from '../../core/models/index.js';
import type { RunHandle } from '../../core/runtime/index.js';
import type { SessionId } from '../../core/terms.js';
import {
  addModelChoiceOptions,
  addModelOptions,
  checkModelChoice,
  type ModelChoiceOptions,
  modelChoiceOf,
  openCliAgent,
} from '../agent-options.js';
import { type AttachChoice, findAgent } from '../attach-agent.js';
import { attachedRepl } from '../attached-chat.js';
import { type ChatState, type ChatSurface, runChatCommand } from '../chat-commands.js';
import { type CliContext, ExitCode } from '../context.js';
import { describeError } from '../errors.js';
import type { SetExitCode } from '../program.js';
import { printRun } from '../run-events.js';
import { rawStream } from '../terminal-text.js';
import { terminalFits } from '../tui/fits.js';
import { printToolResults, startTyped } from '../typed-calls.js';
import { openDashboard } from './tui.js';

interface ChatOptions extends ModelChoiceOptions, AttachChoice {
  session?: string;
  plain?: boolean;
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
    .option('--plain', 'line mode even on a terminal (the dashboard opens otherwise)')
    .option(
      '--attach <url>',
      'the gateway to attach to: the Open URL it printed (token in PINCER_GATEWAY_TOKEN otherwise)',
    )
    .action(async (options: ChatOptions) => {
      // On a terminal big enough, the conversation is the dashboard's chat pane.
      if (!options.plain && terminalFits())
        return setExit(await openDashboard(ctx, 'chat', options));
      const problem = checkModelChoice(options);
      if (problem) {
        ctx.stderr.write(`pincer chat: ${problem}\n`);
        return setExit(ExitCode.usage);
      }
      try {
        // Beside a running agent (the daemon, the app), a client of it, not a second agent.
        const attached = await findAgent(ctx, options);
        if (attached) setExit(await attachedRepl(ctx, attached, options.session));
        else await repl(ctx, options, setExit);
      } catch (error) {
        ctx.stderr.write(`pincer chat: ${describeError(ctx, error)}\n`);
        setExit(ExitCode.failed);
      }
    });
}

/** The banner: what answers (for the local engine, how it runs) and which conversation. */
async function banner(agent: Agent, sessionId: string | undefined): Promise<string> {
  // The local engine loads up front, so a broken model is reported before the first prompt.
  const info = await agent.models.load();
  const what = info
    ? `${info.file.name ?? agent.models.label()} (${info.gpu || 'cpu'}, ${info.threads} threads, context ${info.contextSize})`
    : agent.models.label();
  return (
    `Pincer chat · model ${what} · session ${sessionId ?? '(new)'}\n` +
    `Workspace ${agent.governance.workspace}\n` +
    'Ctrl+C stops a reply; /help lists commands; Ctrl+D or /exit quits.\n'
  );
}

async function repl(ctx: CliContext, options: ChatOptions, setExit: SetExitCode): Promise<void> {
  // readline echoes what the user types and edits the line: it writes to the terminal itself.
  const rl = createInterface({ input: process.stdin, output: rawStream(ctx.stdout), prompt: '> ' });
  // One reader of stdin: chat lines and approval answers come from the same iterator, and
  // never at once (a run waits for its approvals before the next chat line is read).
  const lines = rl[Symbol.asyncIterator]();
  const readLine = async () => {
    const next = await lines.next();
    return next.done ? undefined : next.value;
  };
  const opened = await openCliAgent(ctx, options, readLine).catch((error: unknown) => {
    rl.close();
    throw error;
  });
  const { agent, close } = opened;
  const { store } = agent;
  const state: ChatState = { sessionId: options.session as SessionId | undefined };
  const picker = new ModelOptions(agent, new ConnectionBook(store.db), modelChoiceOf(options));
  const surface = localSurface(agent, picker);
  let current: RunHandle | undefined;
  const interrupt = () => {
    if (current) current.cancel();
    else rl.close();
  };
  // On a terminal readline turns Ctrl+C into its own event; piped, it arrives as a signal.
  rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  try {
    ctx.stderr.write(await banner(agent, state.sessionId));
    rl.prompt();
    for (let line = await readLine(); line !== undefined; line = await readLine()) {
      const text = line.trim();
      const command = await runChatCommand(text, ctx, surface, state).catch((error: unknown) => {
        ctx.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
        return 'handled' as const;
      });
      if (command === 'exit') break;
      if (command === 'handled') {
        rl.prompt();
        continue;
      }
      if (!text) {
        rl.prompt();
        continue;
      }
      const started = await startTyped(ctx, agent, { text, sessionId: state.sessionId });
      if ('error' in started) {
        ctx.stderr.write(`${started.error}\n`);
        rl.prompt();
        continue;
      }
      current = started;
      if (state.sessionId !== current.sessionId)
        ctx.stderr.write(`session: ${current.sessionId}\n`);
      state.sessionId = current.sessionId;
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
  setExit(ExitCode.ok);
}

/** The slash commands over the agent in this process. */
function localSurface(agent: Agent, picker: ModelOptions): ChatSurface {
  const book = new SessionBook(agent.store, () => false);
  return {
    activeModel: async () => agent.models.label(),
    models: async () => ({ options: await picker.list(), selectedId: picker.selectedId }),
    findModel: (text) => picker.find(text),
    selectModel: async (id) => {
      await picker.select(id);
      return agent.models.label();
    },
    sessions: async () => book.list(),
    hasSession: async (id) => book.exists(id),
  };
}
