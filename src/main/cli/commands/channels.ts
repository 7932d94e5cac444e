/**
 * `pincer channels list|status|pair`: the manifest's channels, what the running daemon reports
 * of them, and approving a pairing code (written to the profile database, where the daemon
 * reads it on the sender's next message).
 */
import type { Command } from 'commander';
import { ChannelRecords } from '../../core/channels/index.js';
import { loadActiveClaw, resourcesDirOf } from '../../core/ckp/index.js';
import { lockHolder } from '../../core/daemon/index.js';
import { openDatabase, privateProfileDatabase } from '../../core/storage/index.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';
import { describeChannels, readStatus } from './daemon.js';

export function registerChannels(program: Command, ctx: CliContext, setExit: SetExitCode) {
  const channels = program.command('channels').description('the channels of the manifest');

  channels
    .command('list')
    .description('the channels the manifest declares, with their access control')
    .option('--manifest <file>', 'the claw.yaml to read (default: the one in force)')
    .action(async (options: { manifest?: string }) => {
      const { claw } = await loadActiveClaw(
        { dataDir: ctx.dataDir, resourcesDir: resourcesDirOf(ctx.appDir) },
        options.manifest,
      );
      for (const channel of claw.channels) {
        const spec = channel.spec;
        const what = spec.trigger?.schedule
          ? `schedule "${spec.trigger.schedule}"`
          : spec.transport;
        ctx.stdout.write(
          `${channel.name}\t${spec.type}\t${what}\taccess ${spec.access_control?.mode ?? 'none (nobody)'}\n`,
        );
      }
    });

  channels
    .command('status')
    .description('what the running daemon reports of its channels')
    .action(() => {
      const status = readStatus(ctx.dataDir);
      if (lockHolder(ctx.dataDir) === undefined || !status) {
        ctx.stdout.write('No daemon serves this data dir: start one with pincer daemon.\n');
        setExit(ExitCode.failed);
        return;
      }
      ctx.stdout.write(describeChannels(status));
    });

  channels
    .command('pair <code>')
    .description('approve a pairing code a user received from a channel')
    .action((code: string) => {
      const db = openDatabase(privateProfileDatabase(ctx.dataDir));
      try {
        const result = new ChannelRecords(db).pair(code, 'cli');
        if (result.kind === 'paired') {
          ctx.stdout.write(`Paired: user ${result.userId} on ${result.channel}.\n`);
          return;
        }
        ctx.stderr.write(
          result.kind === 'expired'
            ? 'pincer channels pair: that code has expired; the user asks again for a new one\n'
            : 'pincer channels pair: no pending pairing has that code\n',
        );
        setExit(ExitCode.failed);
      } finally {
        db.close();
      }
    });
}
