/**
 * The `in-process` coordination backend: the same semantics as `nats` inside one process. Tasks
 * wait in a queue; each serving member takes one at a time; a handler that throws (the stand-in
 * for a crashed worker) gets its task delivered again, up to `maxDeliveries`, then dead-lettered.
 */
import { EventEmitter } from 'node:events';
import {
  type BackendOptions,
  DEFAULT_BACKEND_OPTIONS,
  type DeadLetter,
  type Peer,
  type Serving,
  type SwarmBackend,
  SwarmError,
  type SwarmReport,
  type SwarmTask,
  type TaskHandler,
} from './types.js';

interface Member {
  peer: Peer;
  handler: TaskHandler;
  running?: { task: SwarmTask; controller: AbortController };
}

interface Queued {
  task: SwarmTask;
  deliveries: number;
  traceparent?: string;
  settle(report: SwarmReport): void;
}

export class InProcessBackend implements SwarmBackend {
  readonly kind = 'in-process' as const;
  private readonly members = new Set<Member>();
  private readonly queue: Queued[] = [];
  private readonly dead: DeadLetter[] = [];
  private readonly events = new EventEmitter();
  private readonly options: BackendOptions;

  constructor(options: Partial<BackendOptions> = {}) {
    this.options = { ...DEFAULT_BACKEND_OPTIONS, ...options };
  }

  async serve(peer: Omit<Peer, 'status' | 'seenAt'>, handler: TaskHandler): Promise<Serving> {
    const member: Member = {
      peer: { ...peer, status: 'ready', seenAt: new Date().toISOString() },
      handler,
    };
    this.members.add(member);
    this.dispatch();
    return {
      stop: async () => {
        this.members.delete(member);
        member.running?.controller.abort('stopped');
      },
    };
  }

  delegate(task: SwarmTask, timeoutMs: number, traceparent?: string): Promise<SwarmReport> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const at = this.queue.findIndex((queued) => queued.task.id === task.id);
        if (at >= 0) this.queue.splice(at, 1);
        reject(new SwarmError('deadline', `no report for task ${task.id} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.queue.push({
        task,
        deliveries: 0,
        ...(traceparent ? { traceparent } : {}),
        settle: (report) => {
          clearTimeout(timer);
          resolve(report);
        },
      });
      this.dispatch();
    });
  }

  async broadcast(swarm: string, message: unknown): Promise<void> {
    this.events.emit(`broadcast:${swarm}`, message);
  }

  onBroadcast(swarm: string, listener: (message: unknown) => void): () => void {
    this.events.on(`broadcast:${swarm}`, listener);
    return () => this.events.off(`broadcast:${swarm}`, listener);
  }

  async stopOperation(swarm: string, operation: string): Promise<void> {
    for (const member of this.members) {
      const running = member.running;
      if (running && running.task.swarm === swarm && running.task.operation === operation)
        running.controller.abort('stopped');
    }
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const queued = this.queue[i] as Queued;
      if (queued.task.swarm === swarm && queued.task.operation === operation) {
        this.queue.splice(i, 1);
        queued.settle(stoppedReport(queued.task, queued.deliveries));
      }
    }
  }

  async discover(swarm?: string): Promise<Peer[]> {
    return [...this.members]
      .map((member) => member.peer)
      .filter((peer) => swarm === undefined || peer.swarm === swarm);
  }

  async deadLetter(task: SwarmTask, reason: string): Promise<void> {
    this.dead.push({ task, reason, at: new Date().toISOString() });
  }

  async deadLetters(swarm: string): Promise<DeadLetter[]> {
    return this.dead.filter((letter) => letter.task.swarm === swarm);
  }

  async close(): Promise<void> {
    for (const member of this.members) member.running?.controller.abort('closed');
    this.members.clear();
    this.events.removeAllListeners();
  }

  /** Hands queued tasks to idle members of their swarm, one task per member at a time. */
  private dispatch(): void {
    for (const member of this.members) {
      if (member.running) continue;
      const at = this.queue.findIndex((queued) => queued.task.swarm === member.peer.swarm);
      if (at < 0) continue;
      const queued = this.queue.splice(at, 1)[0] as Queued;
      void this.runOn(member, queued);
    }
  }

  private async runOn(member: Member, queued: Queued): Promise<void> {
    const controller = new AbortController();
    member.running = { task: queued.task, controller };
    member.peer.status = 'busy';
    queued.deliveries++;
    const started = Date.now();
    try {
      const outcome = await member.handler(queued.task, {
        signal: controller.signal,
        attempt: queued.deliveries,
        ...(queued.traceparent ? { traceparent: queued.traceparent } : {}),
      });
      queued.settle({
        ...outcome,
        taskId: queued.task.id,
        worker: member.peer.id,
        attempt: queued.deliveries,
      });
    } catch (error) {
      // The worker failed without a report: deliver again, or give up to the dead letters.
      if (queued.deliveries < this.options.maxDeliveries && this.members.has(member)) {
        this.queue.unshift(queued);
      } else {
        const reason = `delivered ${queued.deliveries} times; last: ${(error as Error).message}`;
        await this.deadLetter(queued.task, reason);
        queued.settle({
          taskId: queued.task.id,
          status: 'failed',
          result: reason,
          worker: member.peer.id,
          tokens: 0,
          costUsd: 0,
          durationMs: Date.now() - started,
          attempt: queued.deliveries,
        });
      }
    } finally {
      member.running = undefined;
      member.peer.status = 'ready';
      member.peer.seenAt = new Date().toISOString();
      this.dispatch();
    }
  }
}

export function stoppedReport(task: SwarmTask, attempt: number): SwarmReport {
  return {
    taskId: task.id,
    status: 'failed',
    result: 'stopped: the swarm operation was stopped before this task ran',
    worker: '',
    tokens: 0,
    costUsd: 0,
    durationMs: 0,
    attempt,
  };
}
