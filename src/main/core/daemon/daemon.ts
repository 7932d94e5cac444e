/**
 * The agent without a window: the root's agent, the manifest's channels on a hub, the single
 * instance lock of the data dir, a rotated log, and a status file that `pincer channels status`
 * and `pincer daemon status` read. Runs a killed daemon left unfinished continue at start-up
 * (completed side effects are not repeated). Stopping drains: channels stop taking work, runs in
 * flight get `drainMs` to finish, then are cancelled (and stay resumable).
 *
 * With `attach` (the CLI passes the gateway's attach point) it also serves the UI's IPC contract on
 * 127.0.0.1, named in gateway.json, so `pincer tui` attaches to this agent instead of being
 * refused by the instance lock. Passed in, not imported: the gateway builds on the desktop
 * module, which builds on this one.
 *
 * With `ckp` it serves the Claw Kernel Protocol over the same agent on HTTP and/or WebSocket
 * (`ckp.ts`); a peer's `claw.shutdown` leaves the agent running, and stopping drains CKP calls
 * in flight together with the channels' runs. With `mcp` it serves MCP over Streamable HTTP
 * on the same agent (`mcp.ts`), drained the same way.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Agent, type AgentOptions, openAgent } from '../agent/index.js';
import type { ChannelStatus } from '../channels/index.js';
import {
  ChannelHub,
  type ChannelSet,
  type LiveChannels,
  liveChannels,
  openChannels,
} from '../channels/index.js';
import type { RunHandle } from '../runtime/index.js';
import { type DaemonA2a, type DaemonA2aOptions, serveDaemonA2a } from './a2a.js';
import { type DaemonCkp, type DaemonCkpOptions, type DaemonServer, serveDaemonCkp } from './ckp.js';
import { acquireInstanceLock } from './instance-lock.js';
import { type DaemonMcp, type DaemonMcpOptions, serveDaemonMcp } from './mcp.js';
import { RotatingLog } from './rotating-log.js';

export interface DaemonStatus {
  pid: number;
  startedAt: string;
  updatedAt: string;
  model: string;
  paused: boolean;
  activeRuns: number;
  channels: ChannelStatus[];
  skipped: Array<{ name: string; type: string; reason: string }>;
  pendingPairings: Array<{ channel: string; userId: string; code: string; expiresAt: string }>;
  /** The protocol listeners over the agent (CKP, MCP): their URLs, never their token. */
  servers: DaemonServer[];
}

/** A way in for other surfaces over the daemon's agent (the attach gateway). */
export interface DaemonAttach {
  gateway: { port: number; clients(): number };
  /** Stops taking connections: the first step of stopping. */
  close(): Promise<void>;
  /** Releases what it opened over the agent, the agent included: the last step. */
  closeWithAgent(): Promise<void>;
}

export interface Daemon {
  agent: Agent;
  hub: ChannelHub;
  channels: ChannelSet;
  log: RotatingLog;
  /** Where a dashboard attaches, if served. */
  attach?: DaemonAttach;
  /** The CKP listeners, when asked for. */
  ckp?: DaemonCkp;
  /** The MCP listener, when asked for. */
  mcp?: DaemonMcp;
  /** The A2A listener, when asked for. */
  a2a?: DaemonA2a;
  status(): DaemonStatus;
  /** Drains and releases everything; resolves once done. */
  stop(): Promise<{ drained: boolean }>;
}

export function statusFileOf(dataDir: string): string {
  return path.join(dataDir, 'daemon', 'status.json');
}

export async function startDaemon(options: {
  agent: AgentOptions;
  drainMs?: number;
  /** Also told every log line (the terminal, when run in the foreground). */
  echo?: (line: string) => void;
  /** Serves the attach point over the agent once channels run; a failure only logs. */
  attach?: (agent: Agent, live: LiveChannels) => Promise<DaemonAttach>;
  /** Serves CKP over the agent on these listeners; one that cannot bind only logs. */
  ckp?: DaemonCkpOptions;
  /** Serves MCP over the agent on Streamable HTTP; a port that cannot be bound only logs. */
  mcp?: DaemonMcpOptions;
  /** Serves A2A over the agent on HTTP (its tasks also CKP's claw.task.*); a failure only logs. */
  a2a?: DaemonA2aOptions;
}): Promise<Daemon> {
  const dataDir = options.agent.dataDir;
  const release = acquireInstanceLock(dataDir);
  const log = new RotatingLog(path.join(dataDir, 'logs', 'daemon.log'));
  // Once the agent is open, its redactor screens every line (errors can quote a secret).
  let screen = (line: string) => line;
  const say = (line: string) => {
    const shown = screen(line);
    log.write(shown);
    options.echo?.(shown);
  };
  let agent: Agent;
  try {
    // Long-lived: a tool call finds its sandboxed worker already started.
    agent = await openAgent({ ...options.agent, warmTools: true });
    const { redactor } = agent;
    screen = (line) => redactor.redact(line).text;
  } catch (error) {
    release();
    throw error;
  }
  const startedAt = new Date().toISOString();
  const hub = new ChannelHub(agent, { log: say });
  const live = new Set<RunHandle>();
  hub.onRun((handle, origin) => {
    live.add(handle);
    say(`${origin.channel}: run ${handle.runId} started`);
    void handle.done
      .then((result) => say(`${origin.channel}: run ${result.runId} ${result.outcome}`))
      .catch(() => undefined)
      .finally(() => live.delete(handle));
  });
  const channels = await openChannels(hub, { log: say });
  for (const skipped of channels.skipped) say(`${skipped.name}: not served: ${skipped.reason}`);
  await channels.start();
  const resumed = await channels.resumeInterrupted();
  if (resumed) say(`resumed ${resumed} interrupted run(s)`);
  let attach: DaemonAttach | undefined;
  if (options.attach) {
    try {
      attach = await options.attach(agent, liveChannels(hub, channels));
      say(`attach gateway on 127.0.0.1:${attach.gateway.port} (token in gateway.json)`);
    } catch (error) {
      // Channels serve without it; only `pincer tui` beside this daemon is refused.
      say(`attach gateway not served: ${(error as Error).message}`);
    }
  }

  const attached = () => attach?.gateway.clients() ?? 0;
  const a2a = options.a2a
    ? await serveDaemonA2a(agent, options.a2a, { attached, log: say })
    : undefined;
  const ckp = options.ckp
    ? await serveDaemonCkp(agent, { ...options.ckp, ...(a2a ? { tasks: a2a.tasks } : {}) }, say)
    : undefined;
  const mcp = options.mcp
    ? await serveDaemonMcp(agent, options.mcp, {
        attached,
        log: say,
      })
    : undefined;

  const status = (): DaemonStatus => ({
    pid: process.pid,
    startedAt,
    updatedAt: new Date().toISOString(),
    model: agent.models.label(),
    paused: hub.paused,
    activeRuns: live.size,
    channels: channels.statuses(),
    skipped: channels.skipped,
    pendingPairings: hub.records.pending().map(({ channel, userId, code, expiresAt }) => ({
      channel,
      userId,
      code,
      expiresAt,
    })),
    servers: [...(ckp?.servers ?? []), ...(mcp?.servers ?? []), ...(a2a?.servers ?? [])],
  });
  const statusFile = statusFileOf(dataDir);
  const writeStatus = () => {
    try {
      mkdirSync(path.dirname(statusFile), { recursive: true });
      writeFileSync(`${statusFile}.tmp`, JSON.stringify(status(), null, 2), { mode: 0o600 });
      renameSync(`${statusFile}.tmp`, statusFile);
    } catch (error) {
      log.write(`status file: ${(error as Error).message}`);
    }
  };
  const watchMcp = mcpWatcher(agent, say);
  writeStatus();
  watchMcp();
  const timer = setInterval(() => {
    writeStatus();
    watchMcp();
  }, 2_000);
  timer.unref();
  say(
    `daemon ${process.pid} serving ${channels.channels.length} channel(s) with ${agent.models.label()}`,
  );

  let stopping: Promise<{ drained: boolean }> | undefined;
  return {
    agent,
    hub,
    channels,
    log,
    attach,
    ckp,
    mcp,
    a2a,
    status,
    stop() {
      stopping ??= (async () => {
        say('stopping: channels take no new work');
        await attach?.close();
        await channels.stop();
        const drainMs = options.drainMs ?? 30_000;
        const inFlight = [...live].map((handle) => handle.done.catch(() => undefined));
        let deadline: NodeJS.Timeout | undefined;
        // CKP and MCP calls in flight drain alongside the channels' runs, within the same time.
        const [runsDrained, ckpDrained, mcpDrained, a2aDrained] = await Promise.all([
          Promise.race([
            Promise.all(inFlight).then(() => true),
            new Promise<boolean>((resolve) => {
              deadline = setTimeout(() => resolve(false), drainMs);
            }),
          ]),
          ckp ? ckp.drain(drainMs).then((result) => result.drained) : true,
          mcp ? mcp.drain(drainMs).then((result) => result.drained) : true,
          a2a ? a2a.drain(drainMs).then((result) => result.drained) : true,
        ]);
        clearTimeout(deadline);
        const drained = runsDrained && ckpDrained && mcpDrained && a2aDrained;
        if (!runsDrained)
          say(`drain time over: cancelling ${live.size} run(s); they stay resumable`);
        await ckp?.close();
        await mcp?.close();
        await a2a?.close();
        clearInterval(timer);
        writeStatus();
        if (attach) await attach.closeWithAgent();
        else await agent.close();
        release();
        say('stopped');
        return { drained };
      })();
      return stopping;
    },
  };
}

/**
 * Logs each MCP server that failed or came back since the last look: a server the agent cut off
 * (or that crashes) shows in the log with its reason, while the daemon serves on.
 */
function mcpWatcher(agent: Agent, say: (line: string) => void): () => void {
  const seen = new Map<string, string>();
  return () => {
    for (const server of agent.mcp.status()) {
      // A restart in progress is neither: the last failure stands until it succeeds.
      if (server.state === 'connecting') continue;
      const now = server.state === 'down' ? `down: ${server.error ?? 'stopped'}` : server.state;
      const before = seen.get(server.name);
      seen.set(server.name, now);
      if (now === before || (before === undefined && now === 'ready')) continue;
      say(`MCP server ${server.name}: ${server.state === 'down' ? server.error : now}`);
    }
  };
}
