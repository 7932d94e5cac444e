import os from 'node:os';
import type { Command } from 'commander';
import { formatBytes } from '../../../shared/format.js';
import { placementText } from '../../../shared/gpu-fit.js';
import {
  errorMessage,
  findEntry,
  isLocalEngineError,
  listInstalled,
  localSetup,
  modelPath,
  type PullProgress,
  probeGpuMemory,
  pullModel,
  removeModel,
} from '../../core/local/index.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';
import { writeControl } from '../terminal-text.js';

// The app's units (GB of 1024³ bytes), so a size reads the same in the terminal and the window.
const size = formatBytes;

export function registerModels(program: Command, ctx: CliContext, setExit: SetExitCode) {
  const models = program.command('models').description('list, pull and remove local GGUF models');
  const fail = (error: unknown) => {
    ctx.stderr.write(`pincer models: ${errorMessage(error)}\n`);
    setExit(isLocalEngineError(error, 'unknown_model') ? ExitCode.usage : ExitCode.failed);
  };

  models
    .command('list')
    .description('show the catalog and what is installed')
    .action(async () => {
      try {
        const { catalog, locations } = await localSetup(ctx.appDir, ctx.dataDir);
        const installed = await listInstalled(catalog, locations.modelsDir);
        const have = new Map(installed.map((m) => [m.fileName, m]));
        for (const m of catalog.models) {
          const found = have.get(m.fileName);
          const mark = found ? (found.problem ? 'INVALID' : 'installed') : '';
          const isDefault = m.name === catalog.defaultChat || m.name === catalog.defaultEmbedding;
          ctx.stdout.write(
            `${m.name.padEnd(24)} ${m.kind.padEnd(9)} ${size(m.sizeBytes).padStart(7)}  ` +
              `needs ${size(m.ramBytes).padStart(7)} RAM  ${m.license.padEnd(22)} ` +
              `${isDefault ? 'default ' : ''}${mark}\n`,
          );
        }
        for (const extra of installed.filter((m) => !m.entry)) {
          ctx.stdout.write(
            `${extra.fileName.padEnd(24)} (not in catalog) ${size(extra.bytes)}${extra.problem ? '  INVALID' : ''}\n`,
          );
        }
        for (const bad of installed.filter((m) => m.problem)) {
          ctx.stdout.write(`\n${bad.fileName} is invalid: ${bad.problem}\n`);
        }
        const gpu = await probeGpuMemory();
        const chat = findEntry(catalog, catalog.defaultChat);
        ctx.stdout.write(
          `\nThis computer: ${size(os.totalmem())} RAM; ` +
            (gpu
              ? `GPU ${gpu.devices.join(', ') || gpu.backend} (${gpu.backend}), ${size(gpu.freeBytes)} free of ${size(gpu.totalBytes)}`
              : 'no supported GPU') +
            `\n${chat.name} ${placementText(chat.ramBytes, gpu)}\n`,
        );
        ctx.stdout.write(`Models folder: ${locations.modelsDir}\n`);
        setExit(ExitCode.ok);
      } catch (error) {
        fail(error);
      }
    });

  models
    .command('pull')
    .description('download a catalog model (progress, sha256 check, atomic placement)')
    .argument('<name>', 'catalog name, e.g. qwen2.5-7b-instruct')
    .option('--url <url>', 'download from this mirror instead of the catalog URL')
    .action(async (name: string, options: { url?: string }) => {
      try {
        const { catalog, locations } = await localSetup(ctx.appDir, ctx.dataDir);
        const entry = findEntry(catalog, name);
        const bar = progressBar(ctx.stderr, entry.name);
        const result = await pullModel(entry, locations.modelsDir, {
          url: options.url,
          onProgress: bar.update,
        });
        bar.done();
        ctx.stdout.write(
          `${result.alreadyPresent ? 'Already installed' : 'Installed'}: ${result.path}\nsha256 ${result.sha256}\n`,
        );
        setExit(ExitCode.ok);
      } catch (error) {
        fail(error);
      }
    });

  models
    .command('path')
    .description('print the models folder, or where a catalog model lives')
    .argument('[name]', 'catalog name')
    .action(async (name?: string) => {
      try {
        const { catalog, locations } = await localSetup(ctx.appDir, ctx.dataDir);
        ctx.stdout.write(
          `${name ? modelPath(catalog, locations.modelsDir, name) : locations.modelsDir}\n`,
        );
        setExit(ExitCode.ok);
      } catch (error) {
        fail(error);
      }
    });

  models
    .command('rm')
    .description('delete an installed model')
    .argument('<name>', 'catalog name or file name')
    .action(async (name: string) => {
      try {
        const { catalog, locations } = await localSetup(ctx.appDir, ctx.dataDir);
        const removed = await removeModel(catalog, locations.modelsDir, name);
        ctx.stdout.write(removed ? `Removed ${name}\n` : `${name} is not installed\n`);
        setExit(removed ? ExitCode.ok : ExitCode.failed);
      } catch (error) {
        fail(error);
      }
    });
}

/** A one-line bar redrawn in place on a terminal, or a line per 10% when piped. */
function progressBar(out: NodeJS.WritableStream, label: string) {
  const tty = (out as { isTTY?: boolean }).isTTY === true;
  let lastTenth = -1;
  return {
    update({ downloadedBytes, totalBytes }: PullProgress) {
      if (!totalBytes) return;
      const ratio = Math.min(1, downloadedBytes / totalBytes);
      if (tty) {
        const filled = Math.round(ratio * 30);
        writeControl(out, '\r');
        out.write(
          `${label} [${'#'.repeat(filled)}${'-'.repeat(30 - filled)}] ` +
            `${(ratio * 100).toFixed(1).padStart(5)}%  ${size(downloadedBytes)} / ${size(totalBytes)}`,
        );
      } else if (Math.floor(ratio * 10) > lastTenth) {
        lastTenth = Math.floor(ratio * 10);
        out.write(`${label}: ${lastTenth * 10}% of ${size(totalBytes)}\n`);
      }
    },
    done() {
      if (tty) out.write('\n');
    },
  };
}
