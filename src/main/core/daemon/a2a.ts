/**
 * The daemon's A2A listener: the a2a-server module over the daemon's own agent (never a second
 * one), bound to 127.0.0.1 unless told otherwise and wanting the same bearer token as its CKP
 * and MCP listeners. Its tasks are also CKP's `claw.task.*` on the daemon's CKP listeners.
 *
 * A task's approval goes to the surfaces attached to the daemon (the desktop app, `pincer tui`)
 * through its gateway; with none attached when it is asked, nobody could answer: it is denied
 * at once, as for MCP calls.
 */
import type { Agent } from '../agent/index.js';
import type { CkpTasks } from '../ckp-server/index.js';
import type { DaemonServer } from './ckp.js';

export interface DaemonA2aOptions {
  /** Port to listen on (0: any free one). */
  http: number;
  /** Interface to bind; 127.0.0.1 by default. */
  host?: string;
  /** The bearer token every call must carry. */
  token: string;
  /** Host grants push notifications may reach besides public addresses. */
  pushGrants?: readonly string[];
}

export interface DaemonA2a {
  servers: DaemonServer[];
  /** The tasks, for CKP's claw.task.* on the daemon's CKP listeners. */
  tasks: CkpTasks;
  /** Answers new calls 503, waits up to `ms` for tasks in flight, cancels what is left. */
  drain(ms: number): Promise<{ drained: boolean }>;
  close(): Promise<void>;
}

export async function serveDaemonA2a(
  agent: Agent,
  options: DaemonA2aOptions,
  deps: { attached: () => number; log: (line: string) => void },
): Promise<DaemonA2a> {
  // The SDK loads only when A2A is served.
  const { A2aTasks, listenA2a } = await import('../a2a-server/index.js');
  const tasks = new A2aTasks({
    claw: agent.claw,
    pushGrants: options.pushGrants,
    nobodyThere: () => deps.attached() === 0,
    log: (line) => deps.log(`a2a: ${line}`),
  });
  const servers: DaemonServer[] = [];
  let listener: Awaited<ReturnType<typeof listenA2a>> | undefined;
  try {
    listener = await listenA2a({
      agent,
      tasks,
      port: options.http,
      host: options.host,
      token: options.token,
    });
    servers.push({ protocol: 'a2a', transport: 'http', url: listener.url });
    deps.log(
      `A2A (http) on ${listener.url}, card at ${listener.cardUrl} (Authorization: Bearer <token>)`,
    );
  } catch (error) {
    const reason = (error as Error).message;
    servers.push({ protocol: 'a2a', transport: 'http', error: reason });
    deps.log(`A2A (http) not served: ${reason}`);
  }
  return {
    servers,
    tasks,
    async drain(ms) {
      listener?.refuse();
      const deadline = Date.now() + ms;
      while (tasks.inFlight() > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const drained = tasks.inFlight() === 0;
      if (!drained) tasks.cancelAll();
      return { drained };
    },
    async close() {
      tasks.close();
      await listener?.close();
    },
  };
}
