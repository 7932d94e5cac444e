/**
 * `pincer daemon`: the agent without a window, serving the manifest's channels (Telegram,
 * webhook, schedules) until SIGINT/SIGTERM, which drain it. One per data dir. `pincer daemon
 * status` reads the status file the running daemon keeps.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import {
  type DaemonStatus,
  lockHolder,
  startDaemon,
  statusFileOf,
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

type DaemonOptions = ModelChoiceOptions & { drain: number; attach: boolean };

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
        .option('--no-attach', 'serve no gateway for `pincer tui` to attach to'),
    ),
  ).action(async (options: DaemonOptions) => {
    const problem = checkModelChoice(options);
    if (problem) {
      ctx.stderr.write(`pincer daemon: ${problem}\n`);
      setExit(ExitCode.usage);
      return;
    }
    let running: Awaited<ReturnType<typeof startDaemon>> | undefined;
    const agentOptions = agentOptionsOf(ctx, options);
    try {
      running = await startDaemon({
        agent: agentOptions,
        drainMs: options.drain * 1000,
        attach: options.attach
          ? (agent) =>
              serveAgentAttachPoint(agent, {
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
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    clearInterval(keepAlive);
    const { drained } = await running.stop();
    if (!drained) setExit(ExitCode.failed);
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
      if (status) ctx.stdout.write(describeChannels(status));
    });
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
