/**
 * `pincer chat` in line mode beside a running agent: instead of a second agent on the same
 * data directory, a client of the one running (the daemon, the desktop app, `pincer gateway`)
 * over the IPC contract. Each line is `chat.send` on the session; the reply is printed from the
 * run's events as the local chat prints its own; the approvals of this chat's run are asked
 * inline with the local chat's words and keys; those of the agent's other runs (its channels,
 * its schedules) are announced and answered with slash commands. First answer of any surface wins.
 */
import { createInterface } from 'node:readline';
import type { AssistantEvent, PendingApprovalView, RunEventView } from '../../shared/ipc.js';
import { readTypedInput } from '../core/toolcall/index.js';
import type { AttachedAgent } from './attach-agent.js';
import {
  approvalLine,
  BackgroundApprovals,
  originOf,
  runAttachedCommand,
} from './attached-commands.js';
import type { ChatState } from './chat-commands.js';
import { type CliContext, ExitCode } from './context.js';
import { printRun } from './run-events.js';
import { askApproval } from './terminal-approvals.js';
import { rawStream } from './terminal-text.js';

type ToolFinished = Extract<RunEventView, { type: 'tool.finished' }>;

/** The reply in progress: its run, and its events until the run finishes. */
interface Turn {
  /** Known once chat.send answers; until then every event is held, as it may be this run's. */
  runId: string | undefined;
  held: AssistantEvent[];
  events: EventQueue<RunEventView>;
  tools: ToolFinished[];
  cancelWanted: boolean;
}

/** An approval of this chat's run, asked (or waiting to be) on the terminal. */
interface InlineQuestion {
  stop: AbortController;
  /** Set when another surface answered it first. */
  answeredElsewhere?: string;
}

export async function attachedRepl(
  ctx: CliContext,
  { link, pid }: AttachedAgent,
  sessionId: string | undefined,
): Promise<number> {
  const rl = createInterface({ input: process.stdin, output: rawStream(ctx.stdout), prompt: '> ' });
  const lines = new LineSource(rl);
  const state: ChatState = { sessionId: sessionId as ChatState['sessionId'] };
  const background = new BackgroundApprovals();
  const inline = new Map<string, InlineQuestion>();
  let questions = Promise.resolve();
  let turn: Turn | undefined;
  let atPrompt = false;
  let lost = false;

  const prompt = () => {
    atPrompt = true;
    rl.prompt();
  };
  /** A line about something that happened meanwhile, the prompt drawn again after it. */
  const notice = (text: string) => {
    ctx.stderr.write(`${atPrompt ? '\n' : ''}${text}\n`);
    if (atPrompt) rl.prompt();
  };

  const askInline = (approval: PendingApprovalView) => {
    if (inline.has(approval.id)) return;
    const question: InlineQuestion = { stop: new AbortController() };
    inline.set(approval.id, question);
    questions = questions.then(async () => {
      try {
        if (question.answeredElsewhere) return;
        const verdict = await askApproval(ctx, approval, () => lines.next(question.stop.signal));
        if (question.answeredElsewhere) {
          ctx.stderr.write(`\n  ${question.answeredElsewhere}\n`);
          return;
        }
        if (!verdict) ctx.stderr.write('\n  no answer (input closed): denied\n');
        const { result } = await link.invoke('approvals.resolve', {
          approvalId: approval.id,
          verdict: verdict ?? 'deny',
        });
        if (result === 'already_resolved' || result === 'unknown')
          ctx.stderr.write('  it was already answered elsewhere\n');
      } catch (error) {
        ctx.stderr.write(`  ${error instanceof Error ? error.message : String(error)}\n`);
      } finally {
        inline.delete(approval.id);
      }
    });
  };

  const announce = (approval: PendingApprovalView) => {
    const number = background.add(approval);
    if (number === undefined) return;
    void originOf(link, approval).then((origin) => {
      if (background.get(number)) notice(approvalLine(number, approval, origin));
    });
  };

  const route = (event: AssistantEvent): void => {
    if (turn && turn.runId === undefined) {
      turn.held.push(event);
      return;
    }
    if (event.topic === 'run') {
      if (!turn || event.event.run_id !== turn.runId) return;
      if (event.event.type === 'tool.finished') turn.tools.push(event.event);
      turn.events.push(event.event);
      if (event.event.type === 'run.finished') turn.events.end();
    } else if (event.topic === 'approval.requested') {
      if (turn && event.approval.runId === turn.runId) askInline(event.approval);
      else announce(event.approval);
    } else if (event.topic === 'approval.resolved') {
      const outcome = `${event.approved ? 'approved' : 'denied'} by ${event.by}`;
      const question = inline.get(event.id);
      if (question) {
        question.answeredElsewhere = `answered elsewhere first: ${outcome}`;
        question.stop.abort();
      }
      const number = background.settle(event.id, outcome);
      if (number !== undefined) notice(`[approval ${number} answered elsewhere: ${outcome}]`);
    }
  };
  const offEvents = link.subscribe(route);
  const offState = link.onStateChange((linkState) => {
    if (linkState !== 'disconnected') return;
    lost = true;
    turn?.events.end();
    for (const question of inline.values()) question.stop.abort();
    rl.close();
  });

  const interrupt = () => {
    if (!turn) rl.close();
    else if (turn.runId) void link.invoke('chat.cancel', { runId: turn.runId }).catch(() => {});
    else turn.cancelWanted = true;
  };
  // On a terminal readline turns Ctrl+C into its own event; piped, it arrives as a signal.
  rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);

  try {
    // Those waiting from before we came: the agent's other runs'.
    for (const approval of await link.invoke('approvals.list', {})) background.add(approval);
    ctx.stderr.write(await banner(link, pid, state, background.list().length));
    prompt();
    for (let line = await lines.next(); line !== undefined; line = await lines.next()) {
      atPrompt = false;
      const text = line.trim();
      const command = await runAttachedCommand(text, ctx, link, state, background).catch(
        (error: unknown) => {
          ctx.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
          return 'handled' as const;
        },
      );
      if (command === 'exit') break;
      if (command === 'handled' || !text) {
        prompt();
        continue;
      }
      await reply(text);
      if (lost) break;
      prompt();
    }
  } finally {
    process.off('SIGINT', interrupt);
    offEvents();
    offState();
    rl.close();
    link.close();
  }
  if (lost) {
    ctx.stderr.write(`pincer chat: the agent at ${link.where} went away\n`);
    return ExitCode.failed;
  }
  return ExitCode.ok;

  /** One message: sent, its reply printed as it streams, its end reported. */
  async function reply(text: string): Promise<void> {
    const current: Turn = {
      runId: undefined,
      held: [],
      events: new EventQueue(),
      tools: [],
      cancelWanted: false,
    };
    turn = current;
    try {
      const started = await link.invoke('chat.send', {
        text,
        ...(state.sessionId ? { sessionId: state.sessionId } : {}),
      });
      current.runId = started.runId;
      if (state.sessionId !== started.sessionId)
        ctx.stderr.write(`session: ${started.sessionId}\n`);
      state.sessionId = started.sessionId as ChatState['sessionId'];
    } catch (error) {
      ctx.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      turn = undefined;
      return;
    } finally {
      for (const event of current.held.splice(0)) route(event);
    }
    if (current.cancelWanted)
      void link.invoke('chat.cancel', { runId: current.runId }).catch(() => {});
    const finished = await printRun(ctx, current.events, false);
    turn = undefined;
    // A typed tool call has no model reply: its answer is the tools' output.
    if (readTypedInput(text).kind === 'calls') {
      for (const tool of current.tools) {
        const output = tool.output.endsWith('\n') ? tool.output : `${tool.output}\n`;
        if (tool.output) (tool.is_error ? ctx.stderr : ctx.stdout).write(output);
      }
    }
    if (finished?.outcome === 'cancelled') ctx.stdout.write('[cancelled]\n');
    else if (finished && finished.outcome !== 'completed')
      ctx.stderr.write(`[${finished.reason}]\n`);
  }
}

/** Where the chat is attached, what answers and which conversation. */
async function banner(
  link: AttachedAgent['link'],
  pid: number | undefined,
  state: ChatState,
  waiting: number,
): Promise<string> {
  const [models, workspace] = await Promise.all([
    link.invoke('models.list', {}),
    link.invoke('workspace.get', {}),
  ]);
  const agent = pid === undefined ? '' : ` (agent pid ${pid})`;
  return (
    `Pincer chat · attached to ${link.where}${agent} · model ${models.active} · session ${state.sessionId ?? '(new)'}\n` +
    `Workspace ${workspace.path}\n` +
    (waiting > 0 ? `${waiting} approval(s) of other runs waiting: /approvals lists them\n` : '') +
    'Ctrl+C stops a reply; /help lists commands; Ctrl+D or /exit quits.\n'
  );
}

/** Lines typed, handed out one at a time; a reader that stops waiting takes none. */
class LineSource {
  private readonly lines: string[] = [];
  private readonly waiters: Array<(line: string | undefined) => void> = [];
  private closed = false;

  constructor(rl: ReturnType<typeof createInterface>) {
    rl.on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
    rl.on('close', () => {
      this.closed = true;
      for (const waiter of this.waiters.splice(0)) waiter(undefined);
    });
  }

  /** The next line; undefined once input closed or `signal` aborted. */
  next(signal?: AbortSignal): Promise<string | undefined> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve(undefined);
      const line = this.lines.shift();
      if (line !== undefined || this.closed) return resolve(line);
      const waiter = (next: string | undefined) => {
        signal?.removeEventListener('abort', stop);
        resolve(next);
      };
      const stop = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', stop, { once: true });
      this.waiters.push(waiter);
    });
  }
}

/** Events pushed by the link, read as a stream until `end`. */
class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | undefined;
  private ended = false;

  push(item: T): void {
    this.items.push(item);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      const item = this.items.shift();
      if (item !== undefined) yield item;
      else if (this.ended) return;
      else
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
    }
  }
}
