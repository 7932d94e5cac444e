/**
 * A `cron` channel: `trigger.schedule` runs the declared task (x-pincer.prompt, or the text of
 * a workspace file such as HEARTBEAT.md read at each firing through the workspace confinement)
 * as a run on the agent, under the same policy and approvals as a run started by hand.
 * `max_parallel` and `overlap_policy` decide what a firing does while earlier ones still run.
 * A firing whose time passed while the machine slept is reported as missed, not replayed: after
 * a night asleep an hourly task runs at the next hour, once, not eight times at wake-up.
 */
import { Cron } from 'croner';
import type { RunOrigin } from '../terms.js';
import { readTextInside } from '../workspace-fs/index.js';
import { type Clock, systemClock } from './clock.js';
import type { ChannelHub } from './hub.js';
import { TriggerGate } from './trigger-gate.js';
import {
  type Channel,
  type ChannelDecl,
  ChannelError,
  type ChannelStatus,
  settingsOf,
} from './types.js';

/** A firing this much later than its time counts as missed (the machine slept, or was busy). */
export const DEFAULT_LATE_TOLERANCE_MS = 60_000;
/** Timers are re-armed at least this often, so a long sleep is noticed at wake-up. */
const MAX_TIMER_MS = 60 * 60_000;
const MAX_PROMPT_BYTES = 64 * 1024;

export interface CronChannelOptions {
  workspace: string;
  clock?: Clock;
  lateToleranceMs?: number;
  log?: (line: string) => void;
}

export class CronChannel implements Channel {
  readonly name: string;
  readonly type = 'cron';
  private cron: Cron | undefined;
  private cancelTimer: (() => void) | undefined;
  private readonly gate: TriggerGate;
  private readonly clock: Clock;
  private readonly tolerance: number;
  private readonly log: (line: string) => void;
  private state: ChannelStatus['state'] = 'stopped';
  private lastMessageAt: string | null = null;
  private lastError: string | null = null;
  private runs = 0;
  private missed = 0;
  private skipped = 0;
  private next: Date | null = null;

  constructor(
    private readonly decl: ChannelDecl,
    private readonly hub: ChannelHub,
    private readonly options: CronChannelOptions,
  ) {
    this.name = decl.name;
    const trigger = decl.spec.trigger;
    this.gate = new TriggerGate(trigger?.max_parallel ?? 1, trigger?.overlap_policy ?? 'skip');
    this.clock = options.clock ?? systemClock;
    this.tolerance = options.lateToleranceMs ?? DEFAULT_LATE_TOLERANCE_MS;
    this.log = options.log ?? (() => undefined);
  }

  async start(): Promise<void> {
    if (this.cron) return;
    const schedule = this.decl.spec.trigger?.schedule;
    const settings = settingsOf(this.decl);
    try {
      if (!schedule) throw new ChannelError('not_configured', 'no trigger.schedule');
      if (!settings.prompt && !settings.prompt_file) {
        throw new ChannelError(
          'not_configured',
          'no task: give x-pincer.prompt or x-pincer.prompt_file',
        );
      }
      try {
        this.cron = new Cron(schedule, { paused: true });
      } catch (error) {
        throw new ChannelError(
          'not_configured',
          `trigger.schedule "${schedule}" is not a cron expression: ${(error as Error).message}`,
        );
      }
    } catch (error) {
      this.state = 'failed';
      this.lastError = (error as Error).message;
      throw error;
    }
    this.state = 'running';
    this.arm();
  }

  async stop(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.cron?.stop();
    this.cron = undefined;
    this.gate.clearQueue();
    this.next = null;
    if (this.state === 'running') this.state = 'stopped';
  }

  /** Resolves when no firing runs or waits (tests, and the daemon's drain). */
  idle(): Promise<void> {
    return this.gate.idle();
  }

  status(): ChannelStatus {
    return {
      name: this.name,
      type: this.type,
      state: this.state,
      lastMessageAt: this.lastMessageAt,
      lastError: this.lastError,
      runs: this.runs,
      missed: this.missed,
      detail: {
        schedule: this.decl.spec.trigger?.schedule ?? '',
        next: this.next?.toISOString() ?? 'none',
        running: String(this.gate.running),
        queued: String(this.gate.queued),
        skipped: String(this.skipped),
      },
    };
  }

  private arm(): void {
    if (!this.cron) return;
    const now = this.clock.now();
    const next = this.cron.nextRun(new Date(now));
    this.next = next;
    if (!next) return;
    const wait = Math.min(Math.max(next.getTime() - now, 0), MAX_TIMER_MS);
    this.cancelTimer = this.clock.setTimer(wait, () => this.wake(next));
  }

  private wake(due: Date): void {
    this.cancelTimer = undefined;
    if (!this.cron) return;
    const now = this.clock.now();
    if (now < due.getTime()) {
      this.arm();
      return;
    }
    if (now - due.getTime() > this.tolerance) {
      const count = this.countSince(due, now);
      this.missed += count;
      this.lastError = `missed ${count} firing(s) from ${due.toISOString()} to ${new Date(now).toISOString()} (asleep or stopped); not replayed`;
      this.log(`${this.name}: ${this.lastError}`);
    } else {
      this.fire(due);
    }
    this.arm();
  }

  private fire(due: Date): void {
    this.lastMessageAt = new Date(this.clock.now()).toISOString();
    const admission = this.gate.submit(() => this.execute(due));
    if (admission === 'skipped') {
      this.skipped++;
      this.log(
        `${this.name}: firing of ${due.toISOString()} skipped: ${this.gate.running} run(s) still going (overlap_policy ${this.gate.policy})`,
      );
    }
  }

  private async execute(due: Date): Promise<void> {
    try {
      const text = await this.task();
      const origin: RunOrigin = {
        channel: this.name,
        type: this.type,
        schedule: this.decl.spec.trigger?.schedule,
      };
      this.runs++;
      const result = await this.hub.runTask(this.decl, text, origin);
      if (result.outcome !== 'completed') {
        this.lastError = `run ${result.runId} of ${due.toISOString()} ended: ${result.outcome}`;
      }
    } catch (error) {
      this.lastError = `firing of ${due.toISOString()}: ${(error as Error).message}`;
      this.log(`${this.name}: ${this.lastError}`);
    }
  }

  /** The prompt: inline, or the workspace file's text as it is now. */
  private async task(): Promise<string> {
    const settings = settingsOf(this.decl);
    if (settings.prompt) return settings.prompt;
    const file = settings.prompt_file as string;
    const read = await readTextInside(this.options.workspace, file, MAX_PROMPT_BYTES);
    if (!read) throw new ChannelError('not_configured', `${file} is not in the workspace`);
    if ('refused' in read) throw new ChannelError('refused', read.refused);
    if (!read.text.trim()) throw new ChannelError('not_configured', `${file} is empty`);
    return read.text;
  }

  /** Firings due from `due` up to `now`, inclusive (bounded: two months of minutes). */
  private countSince(due: Date, now: number): number {
    let count = 1;
    let cursor = this.cron?.nextRun(due);
    while (cursor && cursor.getTime() <= now && count < 100_000) {
      count++;
      cursor = this.cron?.nextRun(cursor);
    }
    return count;
  }
}
