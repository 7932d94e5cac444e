/**
 * `pincer serve --stdio|--http PORT|--ws PORT`: the agent as a Claw Kernel Protocol server.
 * stdout carries protocol messages only on --stdio; HTTP and WebSocket bind 127.0.0.1 and want
 * a bearer token. The agent is the root's, opened on `claw.initialize` and closed on
 * `claw.shutdown`; `--manifest` names the agent served.
 */
import { type Agent, openAgent } from '../../core/agent/index.js';
import { loadActiveClaw, resourcesDirOf } from '../../core/ckp/index.js';
import {
  CkpHost,
  type Listener,
  listenHttp,
  listenWebSocket,
  newToken,
  serveStdio,
  sessionFactory,
  swarmFor,
  ToolCalls,
} from '../../core/ckp-server/index.js';
import { agentOptionsOf } from '../agent-options.js';
import { type CliContext, ExitCode } from '../context.js';
import { protocolStdout } from '../protocol-stdout.js';
import { stopSignal } from '../stop-signal.js';

export interface CkpServeOptions {
  stdio?: boolean;
  http?: string;
  ws?: string;
  host: string;
  heartbeat?: string;
  tokenEnv?: string;
  manifest?: string;
  provider?: string;
  tools?: string;
  modelPath?: string;
  threads?: number;
  contextSize?: number;
  /** A2A over HTTP on this port: the AgentCard, message/send and stream, tasks, push. */
  a2a?: string;
  /** Host grants a push notification may reach besides public addresses (comma-separated). */
  a2aPushHosts?: string;
}

/** Every tool of the registry is served; the manifest's policy decides each call. */
const SERVED_TOOLS = '**';

export function wantsCkp(options: CkpServeOptions): boolean {
  return (
    options.stdio === true ||
    options.http !== undefined ||
    options.ws !== undefined ||
    options.a2a !== undefined
  );
}

export async function serveCkp(ctx: CliContext, options: CkpServeOptions): Promise<number> {
  const usage = (message: string) => {
    ctx.stderr.write(`pincer serve: ${message}\n`);
    return ExitCode.usage;
  };
  const ports = { http: portOf(options.http), ws: portOf(options.ws), a2a: portOf(options.a2a) };
  if (ports.http === null || ports.ws === null || ports.a2a === null)
    return usage('a port is 0-65535');
  const heartbeatMs = options.heartbeat === undefined ? undefined : Number(options.heartbeat);
  if (heartbeatMs !== undefined && !(Number.isInteger(heartbeatMs) && heartbeatMs > 0))
    return usage('--heartbeat is a positive number of milliseconds');
  const token = options.tokenEnv ? process.env[options.tokenEnv] : newToken();
  if (!token) return usage(`${options.tokenEnv} is not set`);

  const diverted = options.stdio ? protocolStdout(ctx) : undefined;
  try {
    const { claw } = await loadActiveClaw(
      { dataDir: ctx.dataDir, resourcesDir: resourcesDirOf(ctx.appDir) },
      options.manifest,
    );
    const agentOptions = agentOptionsOf(ctx, {
      manifest: claw.file,
      provider: options.provider,
      modelPath: options.modelPath,
      threads: options.threads,
      contextSize: options.contextSize,
      tools: options.tools ?? SERVED_TOOLS,
    });
    // Without a model flag the served manifest's primary provider answers.
    if (!options.provider && !options.modelPath)
      agentOptions.model = { kind: 'provider', name: claw.providers[0]?.name ?? '' };
    const host = new CkpHost({
      claw,
      open: (): Promise<Agent> => openAgent(agentOptions),
      heartbeatMs,
      onLifecycle: (event) => ctx.stderr.write(`${JSON.stringify(event)}\n`),
    });
    const swarm = swarmFor(claw);
    // A2A tasks, shared by the A2A listener and CKP's claw.task.*; nobody here answers approvals.
    const { A2aTasks, listenA2a } = await import('../../core/a2a-server/index.js');
    const tasks = new A2aTasks({
      claw,
      pushGrants: listOf(options.a2aPushHosts),
      log: (line) => ctx.stderr.write(`pincer serve: ${line}\n`),
    });
    const open = sessionFactory({
      host,
      services: { tools: new ToolCalls({ channel: 'ckp', type: 'ckp' }), swarm, tasks },
    });
    const listeners: Listener[] = [];
    const bind = { host: options.host, token };
    if (ports.http !== undefined)
      listeners.push(await listenHttp(open, { ...bind, port: ports.http }));
    if (ports.ws !== undefined)
      listeners.push(await listenWebSocket(open, { ...bind, port: ports.ws }));
    for (const listener of listeners)
      ctx.stderr.write(`pincer serve: CKP on ${listener.url} (Authorization: Bearer <token>)\n`);
    if (ports.a2a !== undefined) {
      // A2A has no initialize: the agent opens now and serves until the server stops.
      await host.start();
      const agent = host.ready();
      if (!agent) throw new Error(`the agent did not start (${host.state})`);
      const listener = await listenA2a({ agent, tasks, ...bind, port: ports.a2a });
      listeners.push(listener);
      ctx.stderr.write(
        `pincer serve: A2A on ${listener.url}, card at ${listener.cardUrl} (Authorization: Bearer <token>)\n`,
      );
    }
    if (listeners.length && !options.tokenEnv) ctx.stderr.write(`pincer serve: token ${token}\n`);
    if (diverted) await serveStdio(open, process.stdin, diverted.stream);
    else await stopSignal();
    await Promise.all(listeners.map((listener) => listener.close()));
    tasks.close();
    await host.stop(0);
    await swarm.close?.();
    return ExitCode.ok;
  } catch (error) {
    ctx.stderr.write(`pincer serve: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.failed;
  } finally {
    diverted?.restore();
  }
}

function portOf(value: string | undefined): number | undefined | null {
  if (value === undefined) return undefined;
  const port = Number(value);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : null;
}

function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}
