/**
 * `pincer gateway`: the real assistant (same model options as `pincer run`) behind the IPC
 * contract's WebSocket transport, and the built renderer, on 127.0.0.1.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { type Assistant, createAssistant } from '../../core/assistant/index.js';
import { lockHolder } from '../../core/daemon/index.js';
import {
  readGatewayFile,
  startAssistantGateway,
  writeGatewayFile,
} from '../../core/gateway/index.js';
import {
  addModelChoiceOptions,
  addModelOptions,
  agentOptionsOf,
  checkModelChoice,
  type ModelChoiceOptions,
} from '../agent-options.js';
import { type CliContext, ExitCode } from '../context.js';
import { describeError } from '../errors.js';
import type { SetExitCode } from '../program.js';
import { stopSignal } from '../stop-signal.js';

type GatewayOptions = ModelChoiceOptions & { port: string };

export function registerGateway(program: Command, ctx: CliContext, setExit: SetExitCode) {
  addModelChoiceOptions(
    addModelOptions(
      program
        .command('gateway')
        .description('serve the chat UI and its WebSocket bridge on 127.0.0.1')
        .option('--port <port>', 'port to listen on (default: a free one)', '0'),
    ),
  ).action(async (options: GatewayOptions) => {
    const port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      ctx.stderr.write(`pincer gateway: --port must be 0-65535, got ${options.port}\n`);
      setExit(ExitCode.usage);
      return;
    }
    const problem = checkModelChoice(options);
    if (problem) {
      ctx.stderr.write(`pincer gateway: ${problem}\n`);
      setExit(ExitCode.usage);
      return;
    }
    const rendererDir = path.join(ctx.appDir, 'out', 'renderer');
    if (!existsSync(path.join(rendererDir, 'index.html'))) {
      ctx.stderr.write(`pincer gateway: the UI is not built (${rendererDir}); run npm run build\n`);
      setExit(ExitCode.failed);
      return;
    }
    // One agent per data directory: a gateway already serving it is where this one's user goes
    // (its address, as it printed it); an agent holding it without one is named, and nothing
    // starts. Only the owner ever removes gateway.json.
    const running = readGatewayFile(ctx.dataDir);
    if (running) {
      ctx.stdout.write(
        `Pincer already serves this data directory (pid ${running.pid}): attach to it.\nOpen: http://127.0.0.1:${running.port}/#token=${running.token}\n`,
      );
      return;
    }
    const holder = lockHolder(ctx.dataDir);
    if (holder !== undefined) {
      ctx.stderr.write(
        `pincer gateway: another Pincer agent (pid ${holder}: the daemon or the desktop app) holds this data directory and serves no gateway; stop it, or restart it without --no-attach\n`,
      );
      setExit(ExitCode.failed);
      return;
    }
    let assistant: Assistant;
    try {
      assistant = await openServedAssistant(ctx, options, true);
    } catch (error) {
      ctx.stderr.write(`pincer gateway: ${describeError(ctx, error)}\n`);
      setExit(ExitCode.failed);
      return;
    }
    let gateway: Awaited<ReturnType<typeof startAssistantGateway>>;
    try {
      gateway = await startAssistantGateway({
        assistant,
        rendererDir,
        port,
        onError: (error) => ctx.stderr.write(`pincer gateway: ${error.message}\n`),
      });
    } catch (error) {
      // A port in use, for instance: say so, and release what the assistant opened.
      ctx.stderr.write(`pincer gateway: ${describeError(ctx, error)}\n`);
      await assistant.close();
      setExit(ExitCode.failed);
      return;
    }
    // A terminal dashboard on this data directory attaches here instead of opening a second agent.
    const removeGatewayFile = writeGatewayFile(ctx.dataDir, {
      pid: process.pid,
      port: gateway.port,
      token: gateway.token,
    });
    // The token is printed once, inside the URL fragment, and never logged anywhere else.
    ctx.stdout.write(
      `Pincer gateway on ${gateway.origin} (loopback only), model: ${assistant.modelLabel()}\nOpen: ${gateway.openUrl}\nCtrl+C stops it.\n`,
    );
    await stopSignal();
    removeGatewayFile();
    await gateway.close();
    await assistant.close();
  });
}

/** The assistant `pincer gateway` serves; the terminal dashboard opens the same one standalone. */
export function openServedAssistant(
  ctx: CliContext,
  options: ModelChoiceOptions,
  /** The browser UI can fill a server's form; the terminal dashboard cannot yet. */
  askForInput = false,
): Promise<Assistant> {
  // Long-lived: a tool call finds its sandboxed worker already started.
  return createAssistant({ ...agentOptionsOf(ctx, options), askForInput, warmTools: true });
}
