/**
 * `pincer serve`: the agent for other programs. Transport flags pick the server: the Claw
 * Kernel Protocol over `--stdio` (stdout carries protocol messages only), `--http PORT` and
 * `--ws PORT` (127.0.0.1, bearer token). The agent is the root's, opened on `claw.initialize`
 * and closed on `claw.shutdown`; `--manifest` names the agent served.
 */
import type { Command } from 'commander';
import { type Agent, openAgent } from '../../core/agent/index.js';
import { loadActiveClaw, resourcesDirOf } from '../../core/ckp/index.js';
import {
  CkpHost,
  InProcessSwarm,
  type Listener,
  listenHttp,
  listenWebSocket,
  newToken,
  serveStdio,
  sessionFactory,
  ToolCalls,
} from '../../core/ckp/server/index.js';
import {
  addModelChoiceOptions,
  addModelOptions,
  agentOptionsOf,
  checkModelChoice,
  type ModelChoiceOptions,
} from '../agent-options.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';
import { protocolStdout } from '../protocol-stdout.js';

interface ServeOptions extends ModelChoiceOptions {
  stdio?: boolean;
  http?: string;
  ws?: string;
  host: string;
  heartbeat?: string;
  tokenEnv?: string;
}

/** Every tool of the registry is served; the manifest's policy decides each call. */
const SERVED_TOOLS = '**';

export function registerServe(program: Command, ctx: CliContext, setExit: SetExitCode) {
  addModelChoiceOptions(
    addModelOptions(
      program
        .command('serve')
        .description('serve the agent to other programs: the Claw Kernel Protocol (JSON-RPC)')
        .option('--stdio', 'CKP over stdin/stdout, one JSON-RPC message per line')
        .option('--http <port>', 'CKP over HTTP POST on 127.0.0.1 (bearer token)')
        .option('--ws <port>', 'CKP over WebSocket on 127.0.0.1 (bearer token)')
        .option('--host <address>', 'address the HTTP and WebSocket servers bind', '127.0.0.1')
        .option('--heartbeat <ms>', 'heartbeat interval (default: the manifest annotation, 30 s)')
        .option(
          '--token-env <NAME>',
          'environment variable holding the bearer token (default: a new one, printed on stderr)',
        ),
    ),
  ).action(async (options: ServeOptions) => {
    const usage = (message: string) => {
      ctx.stderr.write(`pincer serve: ${message}\n`);
      setExit(ExitCode.usage);
    };
    const ports = { http: portOf(options.http), ws: portOf(options.ws) };
    if (!options.stdio && options.http === undefined && options.ws === undefined)
      return usage('choose a transport: --stdio, --http PORT or --ws PORT');
    if (ports.http === null || ports.ws === null) return usage('a port is 0-65535');
    const heartbeatMs = options.heartbeat === undefined ? undefined : Number(options.heartbeat);
    if (heartbeatMs !== undefined && !(Number.isInteger(heartbeatMs) && heartbeatMs > 0))
      return usage('--heartbeat is a positive number of milliseconds');
    const problem = checkModelChoice(options);
    if (problem) return usage(problem);
    const token = options.tokenEnv ? process.env[options.tokenEnv] : newToken();
    if (!token) return usage(`${options.tokenEnv} is not set`);

    // stdout is the protocol's alone: anything else that writes there goes to stderr instead.
    const diverted = options.stdio ? protocolStdout(ctx) : undefined;
    try {
      const { claw } = await loadActiveClaw(
        { dataDir: ctx.dataDir, resourcesDir: resourcesDirOf(ctx.appDir) },
        options.manifest,
      );
      const agentOptions = agentOptionsOf(ctx, {
        ...options,
        manifest: claw.file,
        tools: options.tools ?? SERVED_TOOLS,
      });
      // Without a model flag the served manifest's primary provider answers.
      if (!options.provider && options.protocol === 'local' && !options.modelPath)
        agentOptions.model = { kind: 'provider', name: claw.providers[0]?.name ?? '' };
      const host = new CkpHost({
        claw,
        open: (): Promise<Agent> => openAgent(agentOptions),
        heartbeatMs,
        onLifecycle: (event) => ctx.stderr.write(`${JSON.stringify(event)}\n`),
      });
      const open = sessionFactory({
        host,
        services: { tools: new ToolCalls(), swarm: new InProcessSwarm() },
      });
      const listeners: Listener[] = [];
      const bind = { host: options.host, token };
      if (ports.http !== undefined)
        listeners.push(await listenHttp(open, { ...bind, port: ports.http }));
      if (ports.ws !== undefined)
        listeners.push(await listenWebSocket(open, { ...bind, port: ports.ws }));
      for (const listener of listeners)
        ctx.stderr.write(`pincer serve: CKP on ${listener.url} (Authorization: Bearer <token>)\n`);
      if (listeners.length && !options.tokenEnv) ctx.stderr.write(`pincer serve: token ${token}\n`);
      if (diverted) await serveStdio(open, process.stdin, diverted.stream);
      else await untilSignal();
      await Promise.all(listeners.map((listener) => listener.close()));
      await host.stop(0);
    } catch (error) {
      ctx.stderr.write(`pincer serve: ${error instanceof Error ? error.message : String(error)}\n`);
      setExit(ExitCode.failed);
    } finally {
      diverted?.restore();
    }
  });
}

function portOf(value: string | undefined): number | undefined | null {
  if (value === undefined) return undefined;
  const port = Number(value);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : null;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
