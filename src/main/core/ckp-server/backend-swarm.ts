/**
 * `claw.swarm.*` (§9.3.3) over the manifest's coordination backend (NATS): a delegated task
 * goes to the swarm's work queue through `SwarmService`, any member serving the swarm runs it
 * (`pincer swarm join`, on this machine or another), and its report goes back to whoever
 * delegated it as a `claw.swarm.report` request. The backend is opened with the served agent's
 * secrets the first time a swarm method needs it, and again after a re-initialize.
 */
import type { Agent } from '../agent/index.js';
import { CKP_ERRORS } from '../ckp/index.js';
import { openSwarm, type SwarmBackend, type SwarmReport, SwarmService } from '../swarm/index.js';
import { RpcError } from './jsonrpc.js';
import {
  type CkpSwarm,
  type CkpTaskReport,
  checkSwarm,
  type Discovered,
  InProcessSwarm,
} from './swarm.js';

interface Opened {
  agent: Agent;
  backend: Promise<SwarmBackend>;
  service: Promise<SwarmService>;
}

export class BackendSwarm implements CkpSwarm {
  private opened: Opened | undefined;
  /** Tasks this server delegated, by id: their reports are the ones a peer may send back. */
  private readonly tasks = new Map<string, CkpTaskReport['status'] | 'running'>();

  constructor(
    private readonly openBackend: (agent: Agent) => Promise<SwarmBackend> = async (agent) =>
      (await openSwarm(agent.claw.swarm, agent.secrets)).backend,
    /** How long a delegated task may take before it is reported failed. */
    private readonly timeoutMs?: number,
  ) {}

  delegate(
    agent: Agent,
    params: { task_id: string; task: { description: string; input?: unknown }; swarm: string },
    reportTo: (report: CkpTaskReport) => void,
    track: (work: Promise<unknown>) => void = () => {},
  ): { acknowledged: boolean } {
    checkSwarm(agent, params.swarm);
    if (this.tasks.has(params.task_id)) {
      throw new RpcError(CKP_ERRORS.invalidParams, 'Invalid params: task_id is already in use', {
        task_id: params.task_id,
      });
    }
    this.tasks.set(params.task_id, 'running');
    const reported = this.serviceFor(agent).then(
      (service) =>
        new Promise<CkpTaskReport>((resolve) => {
          const off = service.onReport((report) => {
            if (report.taskId !== params.task_id) return;
            off();
            resolve(ckpReport(report));
          });
          service.delegate({
            task_id: params.task_id,
            task: params.task,
            context: { request_id: params.task_id, swarm: params.swarm },
          });
        }),
      // No backend (the NATS server is down, a credential is missing): the task failed.
      (error: unknown): CkpTaskReport => ({
        task_id: params.task_id,
        status: 'failed',
        result: { error: { message: error instanceof Error ? error.message : String(error) } },
      }),
    );
    track(
      reported.then((report) => {
        this.tasks.set(params.task_id, report.status);
        reportTo(report);
      }),
    );
    return { acknowledged: true };
  }

  /** A peer's report: recorded when it answers a task this server delegated. */
  report(report: CkpTaskReport): { acknowledged: boolean } {
    if (!this.tasks.has(report.task_id)) return { acknowledged: false };
    this.tasks.set(report.task_id, report.status);
    return { acknowledged: true };
  }

  async broadcast(agent: Agent, swarm: string, message: unknown): Promise<void> {
    if (agent.claw.swarm?.name !== swarm) return;
    await (await this.serviceFor(agent)).broadcast({ swarm, message });
  }

  async discover(agent: Agent, swarm?: string): Promise<Discovered> {
    const declared = agent.claw.swarm;
    if (!declared || (swarm !== undefined && swarm !== declared.name)) return { peers: [] };
    return (await this.serviceFor(agent)).discover({ swarm: declared.name });
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    await opened?.backend.then((backend) => backend.close()).catch(() => undefined);
  }

  private serviceFor(agent: Agent): Promise<SwarmService> {
    if (this.opened?.agent !== agent) {
      // A new agent (re-initialized): the old connection goes with the old agent.
      void this.close();
      const backend = this.openBackend(agent);
      // A failed open is retried by the next call rather than remembered.
      backend.catch(() => {
        if (this.opened?.backend === backend) this.opened = undefined;
      });
      this.opened = {
        agent,
        backend,
        service: backend.then((opened) => new SwarmService(opened, this.timeoutMs)),
      };
    }
    return this.opened.service;
  }
}

/** The swarm module's report in the protocol's shape (the in-process server's `result` too). */
function ckpReport(report: SwarmReport): CkpTaskReport {
  const result =
    report.status === 'failed'
      ? { error: { message: report.result }, worker: report.worker }
      : { summary: report.result, worker: report.worker };
  return {
    task_id: report.taskId,
    status: report.status,
    result,
    token_usage: report.tokens,
    duration_ms: report.durationMs,
  };
}

/** The served manifest's coordination backend decides where delegated tasks run. */
export function swarmFor(claw: Pick<Agent['claw'], 'swarm'>): CkpSwarm {
  const backend = claw.swarm?.spec.coordination.backend;
  return backend === undefined || backend === 'in-process'
    ? new InProcessSwarm()
    : new BackendSwarm();
}
