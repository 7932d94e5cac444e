/**
 * The channels' one door into the agent. A message from a channel passes access control, the
 * channel's limits and the input screen, then runs on the agent from the root in the session of
 * its chat, with its origin recorded; a schedule's task runs the same way in a session of its
 * own. Runs meet the same policy and approvals as a run started by hand (never looser: see
 * policy/origin-guard). While paused (the tray), new work is held, shown, and started on resume.
 */
import type { Agent } from '../agent/index.js';
import type { RunHandle, RunResult } from '../runtime/index.js';
import { isFinal, originOf } from '../runtime/index.js';
import type { RunId, RunOrigin, SessionId } from '../terms.js';
import type { AccessDecision, ChannelAccess } from './access.js';
import type { ChannelLimits } from './limits.js';
import { ChannelRecords } from './records.js';
import { type ChannelDecl, ChannelError, type Inbound } from './types.js';

export type ConverseOutcome =
  | { kind: 'reply'; text: string; runId: RunId; outcome: RunResult['outcome'] }
  | { kind: 'pairing'; text: string; code: string }
  /** Not let in, or the message broke a limit: `text` says why (the caller decides if it is sent). */
  | { kind: 'refused'; text: string; code: ChannelError['code']; stranger?: boolean };

export interface HeldWork {
  channel: string;
  /** The sender's platform id, or the schedule. */
  from: string;
  preview: string;
  since: string;
}

export interface ChannelHubOptions {
  log?: (line: string) => void;
  now?: () => Date;
}

export class ChannelHub {
  readonly records: ChannelRecords;
  private pausedFlag = false;
  private readonly held = new Map<number, { work: HeldWork; release: () => void }>();
  private heldSerial = 0;
  private readonly runListeners = new Set<(handle: RunHandle, origin: RunOrigin) => void>();
  private readonly changeListeners = new Set<() => void>();
  private readonly log: (line: string) => void;
  private readonly now: () => Date;

  constructor(
    readonly agent: Agent,
    options: ChannelHubOptions = {},
  ) {
    this.records = new ChannelRecords(agent.store.db);
    this.log = options.log ?? (() => undefined);
    this.now = options.now ?? (() => new Date());
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  /** Pausing holds new work; resuming starts what was held, in arrival order. */
  setPaused(paused: boolean): void {
    if (this.pausedFlag === paused) return;
    this.pausedFlag = paused;
    if (!paused) {
      const waiting = [...this.held.values()];
      this.held.clear();
      for (const entry of waiting) entry.release();
    }
    this.changed();
  }

  heldWork(): HeldWork[] {
    return [...this.held.values()].map((entry) => entry.work);
  }

  /** Every run a channel starts (the app tracks them for its tray and its quit drain). */
  onRun(listener: (handle: RunHandle, origin: RunOrigin) => void): () => void {
    this.runListeners.add(listener);
    return () => this.runListeners.delete(listener);
  }

  /** Pause state or held work changed. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /**
   * One message of a conversation: access, limits, screen, what it brings besides its text (a
   * file, fetched only now), then a run in the chat's session.
   * Resolves with the reply once the run ended (approvals it waits for included).
   */
  async converse(
    decl: ChannelDecl,
    guard: { access: Pick<ChannelAccess, 'decide'>; limits: ChannelLimits },
    inbound: Inbound,
    started?: (handle: RunHandle) => void,
  ): Promise<ConverseOutcome> {
    const decision: AccessDecision = guard.access.decide(inbound.userId, this.now());
    if (decision.kind === 'refused') {
      this.log(`${decl.name}: ${inbound.userId} refused: ${decision.reason}`);
      return {
        kind: 'refused',
        text: `Not allowed: ${decision.reason}.`,
        code: 'refused',
        stranger: true,
      };
    }
    if (decision.kind === 'pairing') {
      if (decision.fresh) this.log(`${decl.name}: pairing code issued to ${inbound.userId}`);
      return {
        kind: 'pairing',
        code: decision.code,
        text:
          `This chat is not paired yet. Pairing code: ${decision.code} (valid until ` +
          `${decision.expiresAt}). The owner approves it with \`pincer channels pair ${decision.code}\`.`,
      };
    }
    let text = inbound.text;
    try {
      guard.limits.admit(inbound.userId, inbound.text);
      this.screen(inbound.text);
      if (inbound.expand) text = await inbound.expand(decision.role);
    } catch (error) {
      if (!(error instanceof ChannelError)) throw error;
      this.log(`${decl.name}: message from ${inbound.userId} refused: ${error.message}`);
      return { kind: 'refused', text: error.message, code: error.code };
    }
    await this.admitted(decl.name, inbound.userId, inbound.text);
    const sessionId = this.records.sessionOf(
      this.agent.store,
      decl.name,
      inbound.chatId,
      `${decl.name}: ${inbound.chatId}`,
    );
    const origin: RunOrigin = {
      channel: decl.name,
      type: decl.spec.type,
      userId: inbound.userId,
      chatId: inbound.chatId,
      role: decision.role,
    };
    const handle = this.start(text, sessionId, origin);
    started?.(handle);
    const result = await handle.done;
    return { kind: 'reply', text: replyText(result), runId: result.runId, outcome: result.outcome };
  }

  /**
   * A scheduled task: a run in a session of its own (held while paused, like any message).
   * `started` hears of the run as soon as it is recorded, before it does anything.
   */
  async runTask(
    decl: ChannelDecl,
    text: string,
    origin: RunOrigin,
    started?: (handle: RunHandle) => void,
  ): Promise<RunResult> {
    await this.admitted(decl.name, origin.schedule ?? origin.queue ?? 'schedule', text);
    const sessionId = this.agent.store.createSession(`${decl.name} ${this.now().toISOString()}`);
    const handle = this.start(text, sessionId, origin);
    started?.(handle);
    return handle.done;
  }

  /**
   * A message from a queue: the channel's limits and the input screen as for a chat message (a
   * ChannelError says why it is refused), then a task's run in a session of its own.
   */
  async runMessage(
    decl: ChannelDecl,
    limits: ChannelLimits,
    text: string,
    origin: RunOrigin,
    started?: (handle: RunHandle) => void,
  ): Promise<RunResult> {
    limits.admit(origin.queue ?? decl.name, text);
    this.screen(text);
    return this.runTask(decl, text, origin, started);
  }

  /**
   * A run this hub started, met again (its message was delivered again): the run itself while it
   * goes on, or continued where it stopped when a killed process left it unfinished; undefined
   * once it has ended.
   */
  followRun(runId: RunId): RunHandle | undefined {
    const live = this.agent.runtime.handle(runId);
    if (live) return live;
    const run = this.agent.store.getRun(runId);
    if (!run || isFinal(run.state)) return undefined;
    const origin = originOf(run);
    this.log(`${origin?.channel ?? 'channel'}: resuming run ${runId} interrupted by a stop`);
    const handle = this.agent.runtime.resume(runId);
    if (origin) this.announce(handle, origin);
    return handle;
  }

  /**
   * Runs a channel started that a killed process left unfinished: each continues where it
   * stopped (completed side effects are not repeated) and its reply goes where it was asked for.
   */
  resumeInterrupted(
    channels: ReadonlySet<string>,
  ): Array<{ origin: RunOrigin; done: Promise<RunResult> }> {
    const resumed: Array<{ origin: RunOrigin; done: Promise<RunResult> }> = [];
    for (const run of this.agent.runtime.interrupted()) {
      const origin = originOf(run);
      if (!origin || !channels.has(origin.channel)) continue;
      this.log(`${origin.channel}: resuming run ${run.id} interrupted by a stop`);
      const handle = this.agent.runtime.resume(run.id);
      this.announce(handle, origin);
      resumed.push({ origin, done: handle.done });
    }
    return resumed;
  }

  private start(text: string, sessionId: SessionId, origin: RunOrigin): RunHandle {
    const handle = this.agent.runtime.start({ text, sessionId, origin });
    this.announce(handle, origin);
    return handle;
  }

  private announce(handle: RunHandle, origin: RunOrigin): void {
    for (const listener of this.runListeners) {
      try {
        listener(handle, origin);
      } catch {
        // A surface failing to show a run must not stop it.
      }
    }
  }

  /** Null bytes, invalid UTF-8, and (when the policy blocks them) injection phrases are refused. */
  private screen(text: string): void {
    const scanner = this.agent.governance.scanner;
    const bad = scanner.checkInput(text);
    if (bad) throw new ChannelError('bad_request', `message refused: ${bad}`);
    if (scanner.injectionAction !== 'block-and-log') return;
    const found = scanner.findInjection(text);
    if (found.length) {
      throw new ChannelError(
        'refused',
        `message refused: it reads like instructions to the agent (${found.join(', ')})`,
      );
    }
  }

  private admitted(channel: string, from: string, text: string): Promise<void> {
    if (!this.pausedFlag) return Promise.resolve();
    return new Promise((release) => {
      const id = this.heldSerial++;
      this.held.set(id, {
        work: { channel, from, preview: text.slice(0, 80), since: this.now().toISOString() },
        release,
      });
      this.log(`${channel}: paused, holding work from ${from}`);
      this.changed();
    });
  }

  private changed(): void {
    for (const listener of this.changeListeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}

/** The text a channel sends back: the model's words, or why the run ended without them. */
export function replyText(result: RunResult): string {
  const text = (result.reply?.content ?? [])
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('')
    .trim();
  if (result.outcome === 'completed') return text || '(no reply)';
  const why = `(the run ended: ${result.outcome}${result.reason ? `, ${result.reason}` : ''})`;
  return text ? `${text}\n\n${why}` : why;
}
