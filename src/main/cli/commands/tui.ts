/**
 * `pincer tui`: the terminal dashboard. It attaches to the gateway already serving this data
 * directory (`pincer gateway`, the daemon or the desktop app, found through gateway.json) or the
 * one `--attach` names, over the UI's WebSocket contract; with none running,
 * it serves itself the same assistant `pincer gateway` would, in-process. Either way it is a
 * client of the IPC contract and never composes an agent of its own.
 */
import type { Command } from 'commander';
import type { Assistant } from '../../core/assistant/index.js';
import { type CoreLink, inProcessLink } from '../../core/gateway/index.js';
import { createCoreHandlers } from '../../core/ipc/index.js';
import {
  addModelChoiceOptions,
  addModelOptions,
  checkModelChoice,
  type ModelChoiceOptions,
} from '../agent-options.js';
import { type AttachChoice, findAgent } from '../attach-agent.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';
import { terminalFits } from '../tui/fits.js';
import { openServedAssistant } from './gateway.js';

export interface DashboardOptions extends ModelChoiceOptions, AttachChoice {
  session?: string;
}

export function registerTui(program: Command, ctx: CliContext, setExit: SetExitCode) {
  addModelChoiceOptions(
    addModelOptions(
      program
        .command('tui')
        .description('the terminal dashboard: chat, agents, tools, approvals (F1 for help)'),
    ),
  )
    .option('--session <id>', 'continue this session')
    .option(
      '--attach <url>',
      'the gateway to attach to: the Open URL it printed (token in PINCER_GATEWAY_TOKEN otherwise)',
    )
    .option('--standalone', 'serve the agent in this process even if a gateway runs')
    .action(async (options: DashboardOptions) => {
      if (!terminalFits()) {
        ctx.stderr.write(
          'pincer tui: needs a terminal of at least 60x16; pincer chat --plain works anywhere\n',
        );
        return setExit(ExitCode.usage);
      }
      setExit(await openDashboard(ctx, 'tui', options));
    });
}

/** Shows the dashboard until the person leaves; the exit code. */
export async function openDashboard(
  ctx: CliContext,
  command: string,
  options: DashboardOptions,
): Promise<number> {
  const problem = checkModelChoice(options);
  if (problem) {
    ctx.stderr.write(`pincer ${command}: ${problem}\n`);
    return ExitCode.usage;
  }
  let link: CoreLink;
  let assistant: Assistant | undefined;
  try {
    const attached = await findAgent(ctx, options);
    if (attached) link = attached.link;
    else {
      assistant = await openServedAssistant(ctx, options);
      const served = assistant;
      link = inProcessLink(createCoreHandlers({ assistant: served, electronVersion: null }), (l) =>
        served.subscribe(l),
      );
    }
  } catch (error) {
    ctx.stderr.write(
      `pincer ${command}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    await assistant?.close();
    return ExitCode.failed;
  }
  try {
    // React's development build renders several times slower; set before React first loads.
    process.env.NODE_ENV ??= 'production';
    const { runDashboard } = await withoutCiFlags(() => import('../tui/run-dashboard.js'));
    await runDashboard({ link, sessionId: options.session });
    return ExitCode.ok;
  } finally {
    link.close();
    await assistant?.close();
  }
}

/**
 * Loads Ink with the CI flags hidden: Ink reads them once, at load, and under CI draws only its
 * last frame on exit. A dashboard asked for on a terminal is drawn there whatever the shell says.
 */
async function withoutCiFlags<T>(load: () => Promise<T>): Promise<T> {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  try {
    return await load();
  } finally {
    for (const [key, value] of Object.entries(saved))
      if (value !== undefined) process.env[key] = value;
  }
}
