/**
 * The slash commands of `pincer chat` attached to a running agent (its gateway), over the IPC contract:
 * the line-mode commands (`/model`, `/models`, `/new`, `/sessions`, `/open`) the way the local
 * chat has them, plus the answers to the agent's other runs' approvals (its channels' and
 * schedules' runs), which are announced as they arrive and answered by number.
 */
import { abridge, summarizeArguments } from '../../shared/abridge.js';
import type { PendingApprovalView, RequestOf, RunOriginView } from '../../shared/ipc.js';
import type { CoreLink } from '../core/gateway/index.js';
import {
  CHAT_HELP,
  type ChatState,
  type ChatSurface,
  type CommandResult,
  runChatCommand,
} from './chat-commands.js';
import type { CliContext } from './context.js';

export const ATTACHED_HELP = `${CHAT_HELP}Approvals of the agent's other runs (its channels, its schedules):
  /approvals       the ones waiting, numbered
  /approve N       approve number N once
  /approve-session N  approve it for the rest of its session (where offered)
  /deny N [REASON] deny it (the reason goes to the model)
`;

type ApprovalVerdict = RequestOf<'approvals.resolve'>['verdict'];

/**
 * The other runs' approvals, numbered as they arrive. A number stays with its approval until it
 * is answered (here or elsewhere), so `/approve 2` never lands on another one.
 */
export class BackgroundApprovals {
  private next = 1;
  private readonly waiting = new Map<number, PendingApprovalView>();
  /** Answered: how, for a late `/approve N`. */
  private readonly gone = new Map<number, string>();
  /** Those this chat is answering: their resolution is not news here. */
  private readonly ours = new Set<string>();

  /** Its number; undefined when it is already listed. */
  add(approval: PendingApprovalView): number | undefined {
    if (this.numberOf(approval.id) !== undefined) return undefined;
    const number = this.next++;
    this.waiting.set(number, approval);
    return number;
  }

  /** The approval this chat answers now. */
  claim(number: number): PendingApprovalView | undefined {
    const approval = this.waiting.get(number);
    if (approval) this.ours.add(approval.id);
    return approval;
  }

  /** Forgets an answered approval; its number where it was listed and answered elsewhere. */
  settle(id: string, outcome: string): number | undefined {
    const number = this.numberOf(id);
    if (number === undefined) return undefined;
    this.waiting.delete(number);
    this.gone.set(number, outcome);
    return this.ours.has(id) ? undefined : number;
  }

  get(number: number): PendingApprovalView | undefined {
    return this.waiting.get(number);
  }

  answeredAs(number: number): string | undefined {
    return this.gone.get(number);
  }

  list(): Array<[number, PendingApprovalView]> {
    return [...this.waiting.entries()];
  }

  private numberOf(id: string): number | undefined {
    for (const [number, approval] of this.waiting) if (approval.id === id) return number;
    return undefined;
  }
}

/** One line about an approval: the tool, what it would do, and the channel that started it. */
export function approvalLine(
  number: number,
  approval: PendingApprovalView,
  origin: RunOriginView | null | undefined,
): string {
  const from = origin ? ` · from ${originText(origin)}` : '';
  return `[approval ${number}] ${approval.call.name} ${previewText(approval)}${from} · /approve ${number}, /deny ${number}`;
}

function previewText(approval: PendingApprovalView): string {
  const preview = approval.preview;
  if (preview?.kind === 'file') return `(${preview.change} ${preview.path})`;
  if (preview?.kind === 'command') return `($ ${abridgeLine(preview.command)})`;
  if (preview?.kind === 'fetch') return `(${abridgeLine(preview.url)})`;
  return summarizeArguments(approval.call.input, { valueChars: 40, totalChars: 120 });
}

const abridgeLine = (text: string) => abridge(text.replace(/\s+/g, ' '), 80);

function originText(origin: RunOriginView): string {
  const who = origin.userId ?? origin.schedule ?? origin.queue;
  return `${origin.type} ${origin.channel}${who ? ` (${who})` : ''}`;
}

/** The slash commands over the agent attached to, through the contract. */
export function linkSurface(link: CoreLink): ChatSurface {
  return {
    activeModel: async () => (await link.invoke('models.list', {})).active,
    models: () => link.invoke('models.list', {}),
    async findModel(text) {
      const { options } = await link.invoke('models.list', {});
      const exact = options.find((option) => option.id === text);
      const loose = options.filter(
        (option) =>
          option.label === text || option.detail === text || option.id.endsWith(`:${text}`),
      );
      return exact ?? (loose.length === 1 ? loose[0] : undefined);
    },
    selectModel: async (id, sessionId) =>
      (await link.invoke('models.select', { id, ...(sessionId ? { sessionId } : {}) })).active,
    sessions: () => link.invoke('sessions.list', {}),
    hasSession: async (id) =>
      (await link.invoke('sessions.list', {})).some((session) => session.id === id),
  };
}

/** The chat's commands, plus answering the approvals of the agent's other runs. */
export async function runAttachedCommand(
  line: string,
  ctx: CliContext,
  link: CoreLink,
  state: ChatState,
  approvals: BackgroundApprovals,
): Promise<CommandResult> {
  const [command = '', numberText = '', ...reasonWords] = line.split(/\s+/);
  const say = (text: string) => ctx.stderr.write(`${text}\n`);
  switch (command) {
    case '/approvals': {
      const waiting = approvals.list();
      if (waiting.length === 0) say('no approvals waiting');
      for (const [number, approval] of waiting) {
        say(approvalLine(number, approval, await originOf(link, approval)));
      }
      return 'handled';
    }
    case '/approve':
    case '/approve-session':
    case '/deny': {
      const verdict: ApprovalVerdict =
        command === '/approve' ? 'approve' : command === '/deny' ? 'deny' : 'approve-for-session';
      say(await answer(link, approvals, Number(numberText), verdict, reasonWords.join(' ')));
      return 'handled';
    }
    default:
      return runChatCommand(line, ctx, linkSurface(link), state, ATTACHED_HELP);
  }
}

/** Answers approval `number`; what to tell the person. The first answer of any surface wins. */
async function answer(
  link: CoreLink,
  approvals: BackgroundApprovals,
  number: number,
  verdict: ApprovalVerdict,
  reason: string,
): Promise<string> {
  const approval = Number.isInteger(number) ? approvals.claim(number) : undefined;
  if (!approval) {
    const gone = Number.isInteger(number) ? approvals.answeredAs(number) : undefined;
    return gone
      ? `approval ${number} was already answered (${gone})`
      : `no approval ${Number.isNaN(number) ? '' : number} waiting: /approvals lists them`;
  }
  const { result } = await link.invoke('approvals.resolve', {
    approvalId: approval.id,
    verdict,
    ...(verdict === 'deny' && reason ? { reason } : {}),
  });
  if (result === 'not_session_approvable')
    return `approval ${number} cannot be approved for the session: /approve ${number} approves it once`;
  const said =
    verdict === 'deny' ? 'denied' : verdict === 'approve' ? 'approved' : 'approved for the session';
  if (result !== 'resolved') {
    approvals.settle(approval.id, 'answered elsewhere first');
    return `approval ${number} was already answered elsewhere: first answer wins`;
  }
  approvals.settle(approval.id, `${said} here`);
  return `approval ${number}: ${said}`;
}

/** The channel or schedule that started the approval's run (null: a person at a window). */
export async function originOf(
  link: CoreLink,
  approval: PendingApprovalView,
): Promise<RunOriginView | null | undefined> {
  try {
    return (await link.invoke('runs.get', { runId: approval.runId })).run.origin;
  } catch {
    return undefined;
  }
}
