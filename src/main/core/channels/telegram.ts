/**
 * A `telegram` channel over long polling with grammY. Each chat talks in its own session; a
 * typing indicator shows while a run works; replies are sent as Markdown split at the platform's
 * 4096 characters (as plain text when Telegram cannot parse the Markdown). The Bot API root is
 * configurable (x-pincer.api_root), which is also how tests reach a Bot API server on 127.0.0.1.
 *
 * Approvals of background runs (any run a channel or schedule started) are sent to the admin
 * chats only (allowlisted ids, or role admin) with Approve/Deny buttons; a button pressed by
 * anyone else is refused. They wait in the same broker as the app's and the terminal's: the
 * first answer wins, and the rule's timeout denies. An admin may also approve a pairing code
 * from the chat with `/pair CODE`. Where `features.files` allows, documents and photos come in and
 * the files a run wrote go out (telegram-files.ts); otherwise a file gets a sentence saying files
 * are not accepted, as a voice or audio message always does (voice is off).
 */
import type { Bot } from 'grammy';
import type { PendingApproval } from '../policy/index.js';
import type { RunEvent, RunHandle } from '../runtime/index.js';
import { originOf } from '../runtime/index.js';
import type { RunId } from '../terms.js';
import { ChannelAccess } from './access.js';
import type { ChannelHub } from './hub.js';
import { ChannelLimits } from './limits.js';
import { splitMessage } from './split-message.js';
import {
  type Carried,
  carriedBy,
  filesWritten,
  messageWithFile,
  outgoingFile,
  receiveFile,
  TELEGRAM_DOWNLOAD_LIMIT,
  TELEGRAM_UPLOAD_LIMIT,
} from './telegram-files.js';
import {
  type Channel,
  type ChannelDecl,
  ChannelError,
  type ChannelStatus,
  type Role,
  settingsOf,
} from './types.js';

const TYPING_EVERY_MS = 4_000;
const APPROVE = 'y';
const DENY = 'n';

export interface TelegramChannelOptions {
  /** The bot token (the value of auth.secret_ref). */
  token: string;
  /** Files larger than this are refused both ways (never above Telegram's own limits). */
  maxFileBytes?: number;
  log?: (line: string) => void;
}

const DEFAULT_API_ROOT = 'https://api.telegram.org';

export class TelegramChannel implements Channel {
  readonly name: string;
  readonly type = 'telegram';
  private bot: Bot | undefined;
  /** grammY, loaded when a Telegram channel starts: every other start-up goes without it. */
  private grammy: typeof import('grammy') | undefined;
  private readonly access: ChannelAccess;
  private readonly limits: ChannelLimits;
  private readonly log: (line: string) => void;
  private readonly unsubscribe: Array<() => void> = [];
  /** Approval messages sent, to mark them answered wherever the answer came from. */
  private readonly approvalMessages = new Map<
    string,
    { sent: Array<{ chat: string; message: number }>; answer?: string }
  >();
  private state: ChannelStatus['state'] = 'stopped';
  private lastMessageAt: string | null = null;
  private lastError: string | null = null;
  private runs = 0;
  private polling: Promise<void> | undefined;
  private apiRoot = DEFAULT_API_ROOT;

  constructor(
    private readonly decl: ChannelDecl,
    private readonly hub: ChannelHub,
    private readonly options: TelegramChannelOptions,
  ) {
    this.name = decl.name;
    this.access = new ChannelAccess(decl, hub.records);
    this.limits = new ChannelLimits(decl);
    this.log = options.log ?? (() => undefined);
  }

  async start(): Promise<void> {
    if (this.bot) return;
    if (!this.options.token) {
      this.fail(`no bot token: store ${this.decl.spec.auth.secret_ref} with pincer secrets set`);
    }
    const apiRoot = settingsOf(this.decl).api_root?.replace(/\/+$/, '');
    this.apiRoot = apiRoot ?? DEFAULT_API_ROOT;
    const grammy = await import('grammy');
    this.grammy = grammy;
    const bot = new grammy.Bot(this.options.token, { client: apiRoot ? { apiRoot } : {} });
    bot.on('message', (ctx) => {
      const message = ctx.message;
      const from = String(ctx.from.id);
      const chat = String(ctx.chat.id);
      this.lastMessageAt = new Date().toISOString();
      const carried = carriedBy(message, this.maxBytes(TELEGRAM_DOWNLOAD_LIMIT));
      if (message.text === undefined && !carried) {
        void this.say(
          chat,
          this.filesOn
            ? 'Only text, documents and photos are taken here.'
            : 'Only text messages are taken here.',
        );
        return;
      }
      // Not awaited: a run may wait for an approval answered by a button of this same bot.
      void this.onMessage(from, chat, message.text ?? message.caption ?? '', carried).catch(
        (error: unknown) => this.noteError(error),
      );
    });
    bot.on('callback_query:data', (ctx) => {
      void this.onButton(String(ctx.from.id), ctx.callbackQuery.id, ctx.callbackQuery.data).catch(
        (error: unknown) => this.noteError(error),
      );
    });
    bot.catch((error) => this.noteError(error.error));
    try {
      await bot.init();
    } catch (error) {
      this.fail(`cannot reach the Bot API: ${(error as Error).message}`);
    }
    this.bot = bot;
    this.watchApprovals();
    this.state = 'running';
    this.polling = bot.start({ drop_pending_updates: false }).catch((error: unknown) => {
      this.state = 'failed';
      this.noteError(error);
    });
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    const bot = this.bot;
    this.bot = undefined;
    if (this.state === 'running') this.state = 'stopped';
    if (!bot) return;
    await bot.stop().catch(() => undefined);
    await this.polling;
  }

  status(): ChannelStatus {
    return {
      name: this.name,
      type: this.type,
      state: this.state,
      lastMessageAt: this.lastMessageAt,
      lastError: this.lastError,
      runs: this.runs,
      missed: 0,
      detail: {
        bot: this.bot?.botInfo.username ?? '',
        pendingPairings: String(this.hub.records.pending(this.name).length),
      },
    };
  }

  /** Sends a reply to a chat (a resumed run's reply, after a restart). */
  async deliver(chat: string, text: string): Promise<void> {
    await this.sendLong(chat, text);
  }

  private fail(message: string): never {
    this.state = 'failed';
    this.lastError = message;
    throw new ChannelError('not_configured', message);
  }

  private noteError(error: unknown): void {
    this.lastError = error instanceof Error ? error.message : String(error);
    this.log(`${this.name}: ${this.lastError}`);
  }

  private get filesOn(): boolean {
    return this.decl.spec.features?.files === true;
  }

  private maxBytes(platformLimit: number): number {
    return Math.min(this.options.maxFileBytes ?? platformLimit, platformLimit);
  }

  private async onMessage(
    from: string,
    chat: string,
    text: string,
    carried: Carried | undefined,
  ): Promise<void> {
    const pair = carried ? null : /^\/pair(?:@\S+)?\s+(\S+)\s*$/.exec(text);
    if (pair && this.access.admins().includes(from)) {
      const result = this.hub.records.pair(
        pair[1] as string,
        `telegram:${from}`,
        new Date(),
        this.name,
      );
      await this.say(
        chat,
        result.kind === 'paired'
          ? `Paired: user ${result.userId} may now talk to me here.`
          : result.kind === 'expired'
            ? 'That code has expired: ask for a new one.'
            : 'No pending pairing has that code.',
      );
      return;
    }
    const stopTyping = this.typing(chat);
    let run: RunHandle | undefined;
    try {
      const outcome = await this.hub.converse(
        this.decl,
        { access: this.access, limits: this.limits },
        {
          userId: from,
          chatId: chat,
          text,
          ...(carried
            ? { expand: (role: Role) => this.receive(from, chat, text, carried, role) }
            : {}),
        },
        (handle: RunHandle) => {
          this.runs++;
          run = handle;
        },
      );
      stopTyping();
      // A stranger on an allowlist channel gets no answer: the bot does not advertise itself.
      if (outcome.kind === 'refused' && outcome.stranger) return;
      await this.sendLong(chat, outcome.text);
      if (run && this.filesOn) await this.sendWritten(chat, run.events.events);
    } finally {
      stopTyping();
    }
  }

  /** A message's file, taken only where the channel allows files; the text the run gets. */
  private async receive(
    from: string,
    chat: string,
    text: string,
    carried: Carried,
    role: Role,
  ): Promise<string> {
    if (carried.kind === 'voice') {
      throw new ChannelError(
        'refused',
        'Voice and audio messages are not taken on this channel: please write instead.',
      );
    }
    if (!this.filesOn) throw new ChannelError('refused', 'Files are not accepted on this channel.');
    // Storing a file writes to the workspace: a viewer triggers no side effect.
    if (role === 'viewer') throw new ChannelError('refused', 'A viewer cannot send files here.');
    const api = this.bot?.api;
    if (!api) throw new ChannelError('unreachable', 'The channel is stopping.');
    const stored = await receiveFile(api, carried, {
      workspace: this.hub.agent.governance.workspace,
      channel: this.name,
      chat,
      fileRoot: `${this.apiRoot}/file/bot${this.options.token}`,
      maxBytes: this.maxBytes(TELEGRAM_DOWNLOAD_LIMIT),
    });
    this.log(`${this.name}: stored a file from ${from} as ${stored.path}`);
    return messageWithFile(text, stored);
  }

  /** The files the run's tools wrote go out as documents; what cannot go is said in one line. */
  private async sendWritten(chat: string, events: readonly RunEvent[]): Promise<void> {
    const workspace = this.hub.agent.governance.workspace;
    const notSent: string[] = [];
    for (const written of filesWritten(events)) {
      const bot = this.bot;
      if (!bot || !this.grammy) return;
      const out = await outgoingFile(workspace, written, this.maxBytes(TELEGRAM_UPLOAD_LIMIT));
      if ('gone' in out) continue;
      if ('refused' in out) {
        notSent.push(`${out.name} (${out.refused})`);
        continue;
      }
      try {
        await bot.api.sendDocument(chat, new this.grammy.InputFile(out.bytes, out.name));
      } catch (error) {
        this.noteError(error);
        notSent.push(`${out.name} (Telegram did not take it)`);
      }
    }
    if (notSent.length) await this.say(chat, `Not sent: ${notSent.join(', ')}.`);
  }

  private typing(chat: string): () => void {
    if (this.decl.spec.processing?.typing_indicator === false) return () => undefined;
    const send = () => {
      void this.bot?.api.sendChatAction(chat, 'typing').catch(() => undefined);
    };
    send();
    const timer = setInterval(send, TYPING_EVERY_MS);
    return () => clearInterval(timer);
  }

  private async sendLong(chat: string, text: string): Promise<void> {
    for (const piece of splitMessage(text)) {
      const bot = this.bot;
      if (!bot) return;
      try {
        await bot.api.sendMessage(chat, piece, { parse_mode: 'Markdown' });
      } catch (error) {
        // Model Markdown that Telegram cannot parse is sent as it is.
        if (!this.grammy || !(error instanceof this.grammy.GrammyError) || error.error_code !== 400)
          throw error;
        await bot.api.sendMessage(chat, piece);
      }
    }
  }

  private async say(chat: string, text: string): Promise<void> {
    await this.bot?.api.sendMessage(chat, text).catch((error: unknown) => this.noteError(error));
  }

  /** Background runs' approvals go to the admin chats; answers from anywhere mark them done. */
  private watchApprovals(): void {
    const broker = this.hub.agent.governance.broker;
    this.unsubscribe.push(
      broker.onRequest((pending) => {
        void this.offerApproval(pending).catch((error: unknown) => this.noteError(error));
      }),
      broker.onResolved((id, answer) => {
        const offer = this.approvalMessages.get(id);
        if (!offer) return;
        this.approvalMessages.delete(id);
        // Messages still being sent are marked when they arrive (see offerApproval).
        offer.answer = `${answer.approved ? 'Approved' : 'Denied'} (${answer.by}).`;
        for (const { chat, message } of offer.sent) this.markAnswered(chat, message, offer.answer);
      }),
    );
  }

  private async offerApproval(pending: PendingApproval): Promise<void> {
    const run = this.hub.agent.store.getRun(pending.runId as RunId);
    const origin = run ? originOf(run) : undefined;
    const admins = this.access.admins();
    if (!origin || admins.length === 0 || !this.bot || !this.grammy) return;
    const call = this.hub.agent.governance.scanner.redactValue(pending.call);
    const text =
      `Approval needed for a run from ${origin.channel}` +
      `${origin.userId ? ` (user ${origin.userId})` : origin.schedule ? ` (schedule ${origin.schedule})` : ''}:\n` +
      `${call.name} ${JSON.stringify(call.input).slice(0, 800)}\n${pending.reason}`;
    const keyboard = new this.grammy.InlineKeyboard()
      .text('Approve', `ap:${pending.id}:${APPROVE}`)
      .text('Deny', `ap:${pending.id}:${DENY}`);
    const offer: { sent: Array<{ chat: string; message: number }>; answer?: string } = {
      sent: [],
    };
    this.approvalMessages.set(pending.id, offer);
    // Private chats with the admins: their chat id is their user id.
    for (const admin of admins) {
      const message = await this.bot.api.sendMessage(admin, text, { reply_markup: keyboard });
      offer.sent.push({ chat: admin, message: message.message_id });
      if (offer.answer) this.markAnswered(admin, message.message_id, offer.answer);
    }
  }

  private markAnswered(chat: string, message: number, text: string): void {
    void this.bot?.api.editMessageText(chat, message, text).catch(() => undefined);
  }

  private async onButton(from: string, queryId: string, data: string): Promise<void> {
    const bot = this.bot;
    if (!bot) return;
    const match = /^ap:([\w-]+):([yn])$/.exec(data);
    if (!match) {
      await bot.api.answerCallbackQuery(queryId, { text: 'Unknown button.' });
      return;
    }
    if (!this.access.admins().includes(from)) {
      this.log(`${this.name}: approval button pressed by ${from}, who is not an admin; ignored`);
      await bot.api.answerCallbackQuery(queryId, {
        text: 'Only an admin of this channel can answer.',
      });
      return;
    }
    const verdict = match[2] === APPROVE ? 'approve' : 'deny';
    const result = this.hub.agent.governance.broker.resolve(
      match[1] as string,
      verdict,
      `telegram:${from}`,
    );
    await bot.api.answerCallbackQuery(queryId, {
      text:
        result === 'resolved'
          ? verdict === 'approve'
            ? 'Approved.'
            : 'Denied.'
          : 'Already answered.',
    });
  }
}
