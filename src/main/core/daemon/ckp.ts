/**
 * The daemon's Claw Kernel Protocol listeners: the CKP server module over the daemon's own agent
 * (never a second one), on HTTP and/or WebSocket, bound to 127.0.0.1 unless told otherwise and
 * wanting a bearer token, exactly as `pincer serve --http/--ws`. The agent belongs to the
 * daemon: a peer's `claw.shutdown` stops serving it over CKP (in-flight calls drained, then
 * cancelled) but leaves it running for the channels, and a later `claw.initialize` serves it
 * again. Stopping the daemon drains CKP calls with its other runs.
 *
 * The token is never logged or written to the status file: it comes from an environment variable
 * the operator names, or from `<data dir>/daemon/ckp-token` (mode 0600), made once and kept
 * across restarts so a configured client keeps working (delete the file to change it).
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Agent } from '../agent/index.js';
import {
  CkpHost,
  type CkpTasks,
  type Listener,
  listenHttp,
  listenWebSocket,
  newToken,
  sessionFactory,
  swarmFor,
  ToolCalls,
} from '../ckp-server/index.js';
import { PincerError } from '../errors.js';

export interface DaemonCkpOptions {
  /** Ports to listen on (0: any free one); at least one. */
  http?: number;
  ws?: number;
  /** Interface to bind; 127.0.0.1 by default. */
  host?: string;
  /** The bearer token every request must carry. */
  token: string;
  /** The agent's A2A tasks, served as claw.task.* (absent: those methods are not served). */
  tasks?: CkpTasks;
}

/** One listener as status shows it: where it listens, or why it does not. */
export interface DaemonServer {
  protocol: 'ckp' | 'mcp' | 'a2a';
  transport: 'http' | 'websocket';
  url?: string;
  error?: string;
}

export interface DaemonCkp {
  servers: DaemonServer[];
  /** CKP's lifecycle state of the agent (INIT until a peer initializes). */
  state(): string;
  /**
   * Refuses new sessions' initialize, waits up to `ms` for CKP work in flight, cancels what is
   * left; the agent stays open (the daemon closes it).
   */
  drain(ms: number): Promise<{ drained: boolean }>;
  /** Closes the listeners and the swarm backend CKP opened. */
  close(): Promise<void>;
}

export class DaemonCkpError extends PincerError {
  constructor(
    readonly code: 'stopping' | 'empty_token',
    message: string,
  ) {
    super(code === 'stopping' ? 'unavailable' : 'invalid_request', message);
    this.name = 'DaemonCkpError';
  }
}

/** Where the daemon keeps the CKP token it made. */
export function ckpTokenFileOf(dataDir: string): string {
  return path.join(dataDir, 'daemon', 'ckp-token');
}

/**
 * The token in `<data dir>/daemon/ckp-token`, made (mode 0600) when there is none. A file with
 * looser permissions is tightened; an empty one is refused rather than served with no secret.
 */
export function storedCkpToken(dataDir: string): string {
  const file = ckpTokenFileOf(dataDir);
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text === undefined) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const token = newToken();
    try {
      writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
      return token;
    } catch (error) {
      // Another process made it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      text = readFileSync(file, 'utf8');
    }
  }
  if (process.platform !== 'win32') chmodSync(file, 0o600);
  const token = text.trim();
  if (!token)
    throw new DaemonCkpError('empty_token', `${file} is empty: delete it and a new token is made`);
  return token;
}

/** Serves CKP over `agent` on the listeners asked for; one that cannot bind is reported. */
export async function serveDaemonCkp(
  agent: Agent,
  options: DaemonCkpOptions,
  log: (line: string) => void,
): Promise<DaemonCkp> {
  let closing = false;
  const host = new CkpHost({
    claw: agent.claw,
    open: async () => {
      if (closing) throw new DaemonCkpError('stopping', 'the daemon is stopping');
      return agent;
    },
    ownsAgent: false,
    onLifecycle: (event) =>
      log(
        `ckp: ${event.from} -> ${event.to}` +
          `${event.details?.drained === false ? ' (drain time over: calls cancelled)' : ''}`,
      ),
  });
  const swarm = swarmFor(agent.claw);
  const open = sessionFactory({
    host,
    services: {
      tools: new ToolCalls({ channel: 'ckp', type: 'ckp' }),
      swarm,
      ...(options.tasks ? { tasks: options.tasks } : {}),
    },
  });
  const listeners: Listener[] = [];
  const servers: DaemonServer[] = [];
  const bind = { host: options.host, token: options.token };
  const wanted = [
    { transport: 'http' as const, port: options.http, listen: listenHttp },
    { transport: 'websocket' as const, port: options.ws, listen: listenWebSocket },
  ];
  for (const { transport, port, listen } of wanted) {
    if (port === undefined) continue;
    try {
      const listener = await listen(open, { ...bind, port });
      listeners.push(listener);
      servers.push({ protocol: 'ckp', transport, url: listener.url });
      log(`CKP (${transport}) on ${listener.url} (Authorization: Bearer <token>)`);
    } catch (error) {
      const reason = (error as Error).message;
      servers.push({ protocol: 'ckp', transport, error: reason });
      log(`CKP (${transport}) not served: ${reason}`);
    }
  }
  return {
    servers,
    state: () => host.state,
    async drain(ms) {
      closing = true;
      return host.stop(ms);
    },
    async close() {
      closing = true;
      await Promise.all(listeners.map((listener) => listener.close()));
      await host.stop(0);
      await swarm.close?.();
    },
  };
}
