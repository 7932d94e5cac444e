/**
 * The `claw.swarm.*` methods of CKP §9.3.3 over a swarm backend, in the protocol's shapes, for the
 * CKP server to call: `delegate` acknowledges at once and the report arrives later (kept for
 * `reportOf`, or announced through `onReport`); `report` records what a peer sent back.
 */
import type { Peer, SwarmBackend, SwarmReport, SwarmTask } from './types.js';

export interface DelegateParams {
  task_id: string;
  task: { description: string; input?: unknown };
  context: { request_id: string; swarm: string };
}

export interface ReportParams {
  task_id: string;
  status: SwarmReport['status'];
  result: unknown;
  token_usage?: number;
  duration_ms?: number;
}

export class SwarmService {
  private readonly reports = new Map<string, SwarmReport>();
  private readonly listeners = new Set<(report: SwarmReport) => void>();

  constructor(
    private readonly backend: SwarmBackend,
    /** How long a delegated task may take before it is reported failed. */
    private readonly timeoutMs = 600_000,
  ) {}

  delegate(params: DelegateParams): { acknowledged: true } {
    const task: SwarmTask = {
      id: params.task_id,
      swarm: params.context.swarm,
      operation: params.context.request_id,
      description: params.task.description,
      ...(params.task.input === undefined ? {} : { input: params.task.input }),
    };
    this.backend.delegate(task, this.timeoutMs).then(
      (report) => this.record(report),
      (error: unknown) =>
        this.record({
          taskId: task.id,
          status: 'failed',
          result: (error as Error).message,
          worker: '',
          tokens: 0,
          costUsd: 0,
          durationMs: 0,
          attempt: 0,
        }),
    );
    return { acknowledged: true };
  }

  report(params: ReportParams, from = ''): { acknowledged: true } {
    this.record({
      taskId: params.task_id,
      status: params.status,
      result: typeof params.result === 'string' ? params.result : JSON.stringify(params.result),
      worker: from,
      tokens: params.token_usage ?? 0,
      costUsd: 0,
      durationMs: params.duration_ms ?? 0,
      attempt: 1,
    });
    return { acknowledged: true };
  }

  broadcast(params: { swarm: string; message: unknown }): Promise<void> {
    return this.backend.broadcast(params.swarm, params.message);
  }

  async discover(params: { swarm?: string } = {}): Promise<{
    peers: Array<{ identity: string; uri: string; status: Peer['status'] }>;
  }> {
    const peers = await this.backend.discover(params.swarm);
    return {
      peers: peers.map((peer) => ({
        identity: peer.identity,
        uri: `claw://local/identity/${peer.identity}`,
        status: peer.status,
      })),
    };
  }

  reportOf(taskId: string): SwarmReport | undefined {
    return this.reports.get(taskId);
  }

  onReport(listener: (report: SwarmReport) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private record(report: SwarmReport): void {
    // The first report of a task is the one (a redelivery may report again).
    if (this.reports.has(report.taskId)) return;
    this.reports.set(report.taskId, report);
    for (const listener of this.listeners) listener(report);
  }
}
