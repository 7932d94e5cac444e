/**
 * `claw.swarm.*` (§9.3.3), in process: the served agent is the one peer that runs here. A
 * delegated task is a run of the agent's runtime (the model, tools and policy of the manifest);
 * when it ends, its report goes back to whoever delegated it as a `claw.swarm.report` request.
 * This is the server of a manifest whose swarm coordinates `in-process`: members declared but
 * not running here are listed as `unavailable`. Any other backend is `backend-swarm.ts`.
 */

import { textOf as messageText } from '../../../shared/messages.js';
import type { Agent } from '../agent/index.js';
import { CKP_ERRORS, refName } from '../ckp/index.js';
import { RpcError } from './jsonrpc.js';

/** A swarm task's report as `claw.swarm.report` carries it on the wire. */
export interface CkpTaskReport {
  task_id: string;
  status: 'completed' | 'failed' | 'partial';
  result: unknown;
  token_usage?: number;
  duration_ms?: number;
}

export interface Discovered {
  peers: Array<{ identity: string; uri: string; status: 'ready' | 'busy' | 'unavailable' }>;
}

/**
 * What the session asks of a swarm: in process (this file) or over the manifest's coordination
 * backend (`backend-swarm.ts`); `swarmFor` picks by the served manifest.
 */
export interface CkpSwarm {
  delegate(
    agent: Agent,
    params: { task_id: string; task: { description: string; input?: unknown }; swarm: string },
    reportTo: (report: CkpTaskReport) => void,
    /** Counts the task as in-flight work, so `claw.shutdown` drains it like a tool call. */
    track?: (work: Promise<unknown>) => void,
    /** Cancels a task this process runs when aborted (the server stopping gave up draining). */
    signal?: AbortSignal,
  ): { acknowledged: boolean };
  report(report: CkpTaskReport): { acknowledged: boolean };
  broadcast(agent: Agent, swarm: string, message: unknown): void | Promise<void>;
  discover(agent: Agent, swarm?: string): Discovered | Promise<Discovered>;
  close?(): Promise<void>;
}

interface Task {
  status: 'running' | CkpTaskReport['status'];
  report?: CkpTaskReport;
}

export class InProcessSwarm implements CkpSwarm {
  private readonly tasks = new Map<string, Task>();
  private readonly broadcasts: unknown[] = [];

  delegate(
    agent: Agent,
    params: { task_id: string; task: { description: string; input?: unknown }; swarm: string },
    reportTo: (report: CkpTaskReport) => void,
    track: (work: Promise<unknown>) => void = () => {},
    signal?: AbortSignal,
  ): { acknowledged: boolean } {
    checkSwarm(agent, params.swarm);
    if (this.tasks.has(params.task_id)) {
      throw new RpcError(CKP_ERRORS.invalidParams, 'Invalid params: task_id is already in use', {
        task_id: params.task_id,
      });
    }
    const task: Task = { status: 'running' };
    this.tasks.set(params.task_id, task);
    const text =
      params.task.input === undefined
        ? params.task.description
        : `${params.task.description}\n\nInput:\n${JSON.stringify(params.task.input, null, 2)}`;
    const started = performance.now();
    // A task from a swarm peer is a remote run: nobody here approves on its behalf.
    const handle = agent.runtime.start({
      text,
      signal,
      origin: { channel: `swarm:${params.swarm}`, type: 'ckp' },
    });
    const reported = handle.done.then((result) => {
      const report: CkpTaskReport = {
        task_id: params.task_id,
        status: result.outcome === 'completed' ? 'completed' : 'failed',
        result:
          result.outcome === 'completed'
            ? { summary: result.reply ? messageText(result.reply) : '', run_id: result.runId }
            : {
                error: {
                  ...(result.code !== undefined ? { code: result.code } : {}),
                  outcome: result.outcome,
                  message: result.reason,
                },
                run_id: result.runId,
              },
        token_usage: result.usage.inputTokens + result.usage.outputTokens,
        duration_ms: Math.round(performance.now() - started),
      };
      task.status = report.status;
      task.report = report;
      reportTo(report);
    });
    track(reported);
    return { acknowledged: true };
  }

  report(report: CkpTaskReport): { acknowledged: boolean } {
    const task = this.tasks.get(report.task_id);
    if (!task) return { acknowledged: false };
    task.status = report.status;
    task.report = report;
    return { acknowledged: true };
  }

  broadcast(agent: Agent, swarm: string, message: unknown): void {
    if (agent.claw.swarm?.name !== swarm) return;
    this.broadcasts.push(message);
  }

  discover(agent: Agent, swarm?: string): Discovered {
    const declared = agent.claw.swarm;
    if (!declared || (swarm !== undefined && swarm !== declared.name)) return { peers: [] };
    const self = agent.claw.identity.name;
    const busy = [...this.tasks.values()].some((task) => task.status === 'running');
    const others = declared.spec.agents
      .map((member) => refName(member.identity_ref))
      .filter((name, index, all) => name !== self && all.indexOf(name) === index);
    return {
      peers: [
        { identity: self, uri: `claw://local/identity/${self}`, status: busy ? 'busy' : 'ready' },
        ...others.map((identity) => ({
          identity,
          uri: `claw://local/identity/${identity}`,
          status: 'unavailable' as const,
        })),
      ],
    };
  }
}

/** A swarm method names the served manifest's swarm, or it is -32602. */
export function checkSwarm(agent: Agent, swarm: string): void {
  const declared = agent.claw.swarm;
  if (declared?.name !== swarm) {
    throw new RpcError(CKP_ERRORS.invalidParams, `Invalid params: no swarm "${swarm}"`, {
      swarm,
      available: declared ? [declared.name] : [],
    });
  }
}
