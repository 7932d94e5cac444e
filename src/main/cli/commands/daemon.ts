/**
 * `pincer daemon`: the agent without a window, serving the manifest's channels (Telegram,
 * webhook, schedules) until SIGINT/SIGTERM, which drain it. One per data dir. `pincer daemon
 * status` reads the status file the running daemon keeps. `--ckp-http` / `--ckp-ws` also serve
 * the agent over the Claw Kernel Protocol, as `pincer serve --http/--ws` does, and `--mcp-http`
 * over MCP's Streamable HTTP; all of them bind `--ckp-host` and want the one bearer token, from
 * `--ckp-token-env` or kept in the data dir (never printed or logged).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import {
  ckpTokenFileOf,
  type DaemonA2aOptions,
  type DaemonCkpOptions,
  type DaemonMcpOptions,
  type DaemonStatus,
  installService,
  lockHolder,
  planService,
  ServiceError,
  type ServicePlan,
  type ServicePlatform,
  spawnRunner,
  startDaemon,
  statusFileOf,
  storedCkpToken,
  uninstallService,
} from '../../core/daemon/index.js';
import { serveAgentAttachPoint } from '../../core/gateway/index.js';
import {
  addModelChoiceOptions,
  addModelOptions,
  agentOptionsOf,
  checkModelChoice,
  type ModelChoiceOptions,
} from '../agent-options.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';
import { stopSignal } from '../stop-signal.js';

type DaemonOptions = ModelChoiceOptions & {
  drain: number;
  attach: boolean;
  dataDir?: string;
  ckpHttp?: string;
  ckpWs?: string;
  mcpHttp?: string;
  a2aHttp?: string;
  a2aPushHosts?: string;
  ckpHost?: string;
  ckpTokenEnv?: string;
};

/** Flags whose value is a path: the service runs elsewhere, so they travel absolute. */
const PATH_FLAGS = new Set(['manifest', 'modelPath', 'workspace']);
/** Flags install handles itself rather than passing on. */
const NOT_FORWARDED = new Set(['dataDir']);

export function registerDaemon(program: Command, ctx: CliContext, setExit: SetExitCode) {
  const daemon = addModelChoiceOptions(
    addModelOptions(
      program
        .command('daemon')
        .description('run the agent without a window: channels and schedules (Ctrl+C stops)')
        .option(
          '--drain <seconds>',
          'on stop, how long runs in flight may finish before they are cancelled',
          (v) => Number.parseInt(v, 10),
          30,
        )
        .option('--no-attach', 'serve no gateway for `pincer tui` to attach to')
        .option(
          '--data-dir <dir>',
          'serve this data dir instead of the usual one (the installed service passes it)',
        )
        .option('--ckp-http <port>', 'also serve the agent over CKP on HTTP (as `pincer serve`)')
        .option('--ckp-ws <port>', 'also serve the agent over CKP on WebSocket')
        .option(
          '--mcp-http <port>',
          'also serve the agent over MCP (Streamable HTTP, at /mcp) with the CKP token',
        )
        .option(
          '--a2a-http <port>',
          'also serve the agent over A2A (AgentCard, tasks, push) with the CKP token',
        )
        .option(
          '--a2a-push-hosts <hosts>',
          'A2A: internal addresses push notifications may reach (e.g. 127.0.0.1:8080)',
        )
        .option(
          '--ckp-host <host>',
          'the interface the CKP, MCP and A2A listeners bind (default 127.0.0.1)',
        )
        .option(
          '--ckp-token-env <name>',
          'the CKP and MCP bearer token is in this environment variable (default: kept in ' +
            '<data dir>/daemon/ckp-token, mode 0600)',
        ),
    ),
  ).action(async (options: DaemonOptions) => {
    const problem = checkModelChoice(options) ?? checkListeners(options);
    if (problem) {
      ctx.stderr.write(`pincer daemon: ${problem}\n`);
      setExit(ExitCode.usage);
      return;
    }
    let running: Awaited<ReturnType<typeof startDaemon>> | undefined;
    const agentOptions = agentOptionsOf(
      options.dataDir ? { ...ctx, dataDir: path.resolve(options.dataDir) } : ctx,
      options,
    );
    let ckp: DaemonCkpOptions | undefined;
    let mcp: DaemonMcpOptions | undefined;
    let a2a: DaemonA2aOptions | undefined;
    try {
      ({ ckp, mcp, a2a } = listenerOptionsOf(options, agentOptions.dataDir));
    } catch (error) {
      ctx.stderr.write(`pincer daemon: ${(error as Error).message}\n`);
      setExit(ExitCode.failed);
      return;
    }
    try {
      running = await startDaemon({
        ckp,
        mcp,
        a2a,
        agent: agentOptions,
        drainMs: options.drain * 1000,
        attach: options.attach
          ? (agent, live) =>
              serveAgentAttachPoint(agent, {
                live,
                model: agentOptions.model,
                dataDir: agentOptions.dataDir,
                rendererDir: path.join(agentOptions.appDir, 'out', 'renderer'),
                onError: (error) => running?.log.write(`attach gateway: ${error.message}`),
              })
          : undefined,
        echo: (line) => ctx.stdout.write(`${line}\n`),
      });
    } catch (error) {
      ctx.stderr.write(`pincer daemon: ${(error as Error).message}\n`);
      setExit(ExitCode.failed);
      return;
    }
    ctx.stdout.write(`Pincer daemon ready (pid ${process.pid}); log: ${running.log.file}\n`);
    // Served until a signal even with no channel or gateway holding the event loop open (Node
    // would otherwise end the process, exit 13, with this wait unsettled).
    const keepAlive = setInterval(() => undefined, 1 << 30);
    await stopSignal();
    clearInterval(keepAlive);
    const { drained } = await running.stop();
    if (!drained) setExit(ExitCode.failed);
  });

  daemon
    .command('install')
    .description(
      'run the daemon at login as a per-user service (systemd, launchd, a scheduled task) with ' +
        "this data dir and the daemon's flags given before or after `install`",
    )
    .option('--dry-run', 'print what would be written and run, change nothing')
    .action((options: { dryRun?: boolean }) => {
      const plan = servicePlanOf(daemon, ctx, setExit, 'install');
      if (!plan) return;
      reportService(ctx, setExit, 'install', () =>
        installService(plan, { run: spawnRunner, dryRun: options.dryRun }),
      );
    });

  daemon
    .command('uninstall')
    .description('stop the per-user service `pincer daemon install` wrote, and remove it')
    .option('--dry-run', 'print what would be run and removed, change nothing')
    .action((options: { dryRun?: boolean }) => {
      const plan = servicePlanOf(daemon, ctx, setExit, 'uninstall');
      if (!plan) return;
      reportService(ctx, setExit, 'uninstall', () =>
        uninstallService(plan, { run: spawnRunner, dryRun: options.dryRun }),
      );
    });

  daemon
    .command('status')
    .description('whether a daemon serves this data dir, and its channels')
    .option('--json', 'print the status as JSON')
    .action((options: { json?: boolean }) => {
      const status = readStatus(ctx.dataDir);
      const pid = lockHolder(ctx.dataDir);
      if (options.json) {
        ctx.stdout.write(
          `${JSON.stringify({ running: pid !== undefined, pid: pid ?? null, status: status ?? null }, null, 2)}\n`,
        );
        if (pid === undefined) setExit(ExitCode.failed);
        return;
      }
      if (pid === undefined) {
        ctx.stdout.write('No daemon serves this data dir.\n');
        setExit(ExitCode.failed);
        return;
      }
      ctx.stdout.write(
        `Daemon pid ${pid}, since ${status?.startedAt ?? '?'}, model ${status?.model ?? '?'}\n`,
      );
      if (status) ctx.stdout.write(`${describeServers(status)}${describeChannels(status)}`);
    });
}

/** The protocol listeners, one line each (URLs only: the token is never in the status). */
export function describeServers(status: DaemonStatus): string {
  // A status file written before listeners were reported has none.
  return (status.servers ?? [])
    .map(
      (server) =>
        `  ${server.protocol.toUpperCase()} (${server.transport}): ` +
        `${server.url ?? `not served: ${server.error ?? 'unknown'}`}\n`,
    )
    .join('');
}

function portOf(value: string | undefined): number | undefined | null {
  if (value === undefined) return undefined;
  const port = Number(value);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : null;
}

/** What is wrong with the protocol listeners' flags, if anything (checked before anything starts). */
function checkListeners(options: DaemonOptions, check = { env: true }): string | undefined {
  const ports = [
    portOf(options.ckpHttp),
    portOf(options.ckpWs),
    portOf(options.mcpHttp),
    portOf(options.a2aHttp),
  ];
  if (ports.includes(null)) return 'a CKP, MCP or A2A port is 0-65535';
  if (options.a2aPushHosts !== undefined && options.a2aHttp === undefined)
    return '--a2a-push-hosts goes with --a2a-http';
  if (ports.every((port) => port === undefined)) {
    if (options.ckpHost !== undefined || options.ckpTokenEnv !== undefined)
      return '--ckp-host and --ckp-token-env go with --ckp-http, --ckp-ws, --mcp-http or --a2a-http';
    return undefined;
  }
  if (check.env && options.ckpTokenEnv !== undefined && !process.env[options.ckpTokenEnv])
    return `${options.ckpTokenEnv} is not set (the CKP and MCP token)`;
  return undefined;
}

/** The CKP and MCP listeners asked for, with their one token; each undefined when not asked. */
function listenerOptionsOf(
  options: DaemonOptions,
  dataDir: string,
): { ckp?: DaemonCkpOptions; mcp?: DaemonMcpOptions; a2a?: DaemonA2aOptions } {
  const http = portOf(options.ckpHttp) ?? undefined;
  const ws = portOf(options.ckpWs) ?? undefined;
  const mcpHttp = portOf(options.mcpHttp) ?? undefined;
  const a2aHttp = portOf(options.a2aHttp) ?? undefined;
  if (http === undefined && ws === undefined && mcpHttp === undefined && a2aHttp === undefined)
    return {};
  const token = options.ckpTokenEnv
    ? (process.env[options.ckpTokenEnv] as string)
    : storedCkpToken(dataDir);
  return {
    ckp:
      http === undefined && ws === undefined
        ? undefined
        : { http, ws, host: options.ckpHost, token },
    mcp: mcpHttp === undefined ? undefined : { http: mcpHttp, host: options.ckpHost, token },
    a2a:
      a2aHttp === undefined
        ? undefined
        : {
            http: a2aHttp,
            host: options.ckpHost,
            token,
            pushGrants: (options.a2aPushHosts ?? '')
              .split(',')
              .map((part) => part.trim())
              .filter(Boolean),
          },
  };
}

function reportService(
  ctx: CliContext,
  setExit: SetExitCode,
  verb: string,
  act: () => { ok: boolean; lines: string[] },
): void {
  try {
    const report = act();
    ctx.stdout.write(`${report.lines.join('\n')}\n`);
    if (!report.ok) setExit(ExitCode.failed);
  } catch (error) {
    ctx.stderr.write(`pincer daemon ${verb}: ${(error as Error).message}\n`);
    setExit(
      error instanceof ServiceError && error.code !== 'foreign_file'
        ? ExitCode.usage
        : ExitCode.failed,
    );
  }
}

/**
 * The service for this machine from the daemon's flags: the ones given on the command line
 * (before or after `install`; commander keeps them on `daemon`) travel on, paths made absolute.
 */
function servicePlanOf(
  daemon: Command,
  ctx: CliContext,
  setExit: SetExitCode,
  verb: string,
): ServicePlan | undefined {
  const options = daemon.opts<DaemonOptions>();
  const problem = checkModelChoice(options);
  if (problem) {
    ctx.stderr.write(`pincer daemon ${verb}: ${problem}\n`);
    setExit(ExitCode.usage);
    return undefined;
  }
  const platform = process.platform;
  if (platform !== 'linux' && platform !== 'darwin' && platform !== 'win32') {
    ctx.stderr.write(`pincer daemon ${verb}: no per-user service on ${platform}\n`);
    setExit(ExitCode.notYet);
    return undefined;
  }
  // The built CLI, never a development entry run through a TypeScript loader.
  const entry = path.join(ctx.appDir, 'dist', 'cli.js');
  if (!existsSync(entry)) {
    ctx.stderr.write(
      `pincer daemon ${verb}: ${entry} is missing; build the CLI first (npm run build:cli)\n`,
    );
    setExit(ExitCode.failed);
    return undefined;
  }
  const dataDir = path.resolve(options.dataDir ?? ctx.dataDir);
  const values = options as unknown as Record<string, unknown>;
  const forwarded: string[] = ['--data-dir', dataDir];
  for (const option of daemon.options) {
    const key = option.attributeName();
    if (NOT_FORWARDED.has(key) || daemon.getOptionValueSource(key) !== 'cli') continue;
    const value = values[key];
    if (option.negate) {
      if (value === false) forwarded.push(option.long ?? '');
    } else if (typeof value === 'boolean') {
      if (value) forwarded.push(option.long ?? '');
    } else if (value !== undefined) {
      const text = String(value);
      forwarded.push(option.long ?? '', PATH_FLAGS.has(key) ? path.resolve(text) : text);
    }
  }
  const ckpProblem = checkListeners(options, { env: false });
  if (ckpProblem) {
    ctx.stderr.write(`pincer daemon ${verb}: ${ckpProblem}\n`);
    setExit(ExitCode.usage);
    return undefined;
  }
  // A service that could never start: it does not get this shell's environment.
  if (options.ckpTokenEnv && verb === 'install') {
    ctx.stderr.write(
      `pincer daemon install: the service does not get this shell's environment, so ` +
        `${options.ckpTokenEnv} would be unset there; leave out --ckp-token-env and the daemon ` +
        `uses the token it keeps in ${ckpTokenFileOf(dataDir)}\n`,
    );
    setExit(ExitCode.usage);
    return undefined;
  }
  if (options.apiKeyEnv && verb === 'install') {
    ctx.stderr.write(
      `pincer daemon install: note: the service does not get this shell's environment, so ` +
        `${options.apiKeyEnv} will be unset there; store the key with \`pincer secrets set\`\n`,
    );
  }
  try {
    return planService({
      platform: platform satisfies ServicePlatform,
      home: os.homedir(),
      xdgConfigHome: process.env.XDG_CONFIG_HOME,
      uid: process.getuid?.(),
      windowsUser: windowsUser(),
      node: process.execPath,
      entry: realpathSync(entry),
      daemonArgs: forwarded,
      dataDir,
      drainSeconds: options.drain,
    });
  } catch (error) {
    ctx.stderr.write(`pincer daemon ${verb}: ${(error as Error).message}\n`);
    setExit(ExitCode.usage);
    return undefined;
  }
}

function windowsUser(): string | undefined {
  const user = process.env.USERNAME;
  if (!user) return undefined;
  return process.env.USERDOMAIN ? `${process.env.USERDOMAIN}\\${user}` : user;
}

export function readStatus(dataDir: string): DaemonStatus | undefined {
  try {
    return JSON.parse(readFileSync(statusFileOf(dataDir), 'utf8')) as DaemonStatus;
  } catch {
    return undefined;
  }
}

export function describeChannels(status: DaemonStatus): string {
  const lines = status.channels.map((channel) => {
    const detail = Object.entries(channel.detail)
      .filter(([, value]) => value !== '')
      .map(([key, value]) => `${key} ${value}`)
      .join(', ');
    return (
      `  ${channel.name} (${channel.type}): ${channel.state}, ${channel.runs} run(s)` +
      `${channel.missed ? `, ${channel.missed} missed` : ''}` +
      `${channel.lastMessageAt ? `, last ${channel.lastMessageAt}` : ''}` +
      `${detail ? `; ${detail}` : ''}` +
      `${channel.lastError ? `\n    last error: ${channel.lastError}` : ''}`
    );
  });
  for (const skipped of status.skipped)
    lines.push(`  ${skipped.name} (${skipped.type}): not served: ${skipped.reason}`);
  for (const pairing of status.pendingPairings) {
    lines.push(
      `  pairing ${pairing.code} for ${pairing.channel} user ${pairing.userId}, until ${pairing.expiresAt}`,
    );
  }
  if (status.paused) lines.push('  paused: new channel and schedule runs are held');
  return `${lines.join('\n')}\n`;
}
