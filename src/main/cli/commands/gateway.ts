import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { startGateway } from '../../core/gateway/server.js';
import { createCoreHandlers } from '../../core/ipc/handlers.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';

export function registerGateway(program: Command, ctx: CliContext, setExit: SetExitCode) {
  program
    .command('gateway')
    .description('serve the chat UI and its WebSocket bridge on 127.0.0.1')
    .option('--port <port>', 'port to listen on (default: a free one)', '0')
    .action(async (options: { port: string }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        ctx.stderr.write(`pincer gateway: --port must be 0-65535, got ${options.port}\n`);
        setExit(ExitCode.usage);
        return;
      }
      const rendererDir = path.join(ctx.appDir, 'out', 'renderer');
      if (!existsSync(path.join(rendererDir, 'index.html'))) {
        ctx.stderr.write(
          `pincer gateway: the UI is not built (${rendererDir}); run npm run build\n`,
        );
        setExit(ExitCode.failed);
        return;
      }
      const gateway = await startGateway({
        handlers: createCoreHandlers({ dataDir: ctx.dataDir, electronVersion: null }),
        rendererDir,
        port,
      });
      // The token is printed once, inside the URL fragment, and never logged anywhere else.
      ctx.stdout.write(
        `Pincer gateway on ${gateway.origin} (loopback only)\nOpen: ${gateway.openUrl}\nCtrl+C stops it.\n`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await gateway.close();
    });
}
