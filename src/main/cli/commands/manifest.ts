import path from 'node:path';
import type { Command } from 'commander';
import {
  checkClaw,
  initUserManifest,
  loadOptionsFor,
  ManifestExistsError,
  type ManifestPlaces,
  renderIssues,
  renderResolvedYaml,
  resolveActiveManifest,
  resolvedView,
  resourcesDirOf,
} from '../../core/ckp/index.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';

/** `pincer manifest validate|show|init`: the claw.yaml that configures the agent. */
export function registerManifest(program: Command, ctx: CliContext, setExit: SetExitCode) {
  const places: ManifestPlaces = { dataDir: ctx.dataDir, resourcesDir: resourcesDirOf(ctx.appDir) };
  const manifest = program
    .command('manifest')
    .description(
      'validate, show and create claw.yaml manifests (Claw Kernel Protocol 0.2.0 and 0.3.0)',
    );

  const check = (file?: string) => {
    const active = resolveActiveManifest(places, file);
    return checkClaw(active.file, loadOptionsFor(active, places)).then((result) => ({
      active,
      ...result,
    }));
  };

  manifest
    .command('validate')
    .description('check a manifest against every CKP rule; lists every error (exit 1 if any)')
    .argument('[file]', 'manifest to check (default: the one in force)')
    .option('--json', 'print the result as JSON')
    .action(async (file: string | undefined, options: { json?: boolean }) => {
      const { active, claw, issues } = await check(file);
      const errors = issues.filter((issue) => issue.severity === 'error');
      if (options.json) {
        const out = {
          file: active.file,
          valid: Boolean(claw),
          conformance: claw?.conformance.level ?? null,
          errors,
          warnings: issues.filter((issue) => issue.severity === 'warning'),
        };
        ctx.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      } else {
        if (issues.length > 0) ctx.stderr.write(`${renderIssues(issues, process.cwd())}\n`);
        ctx.stdout.write(
          claw
            ? `${active.file}: valid CKP ${claw.protocol} manifest, conformance ${claw.conformance.level} (${claw.conformance.label})\n`
            : `${active.file}: ${errors.length} error${errors.length === 1 ? '' : 's'}\n`,
        );
      }
      setExit(claw ? ExitCode.ok : ExitCode.failed);
    });

  manifest
    .command('show')
    .description('print the fully resolved manifest: canonical URIs, secrets as refs, conformance')
    .argument('[file]', 'manifest to show (default: the one in force)')
    .option('--json', 'print JSON instead of YAML')
    .action(async (file: string | undefined, options: { json?: boolean }) => {
      const { active, claw, issues } = await check(file);
      if (!claw) {
        ctx.stderr.write(`${renderIssues(issues, process.cwd())}\n`);
        setExit(ExitCode.failed);
        return;
      }
      ctx.stdout.write(
        options.json
          ? `${JSON.stringify({ origin: active.origin, ...resolvedView(claw) }, null, 2)}\n`
          : await renderResolvedYaml(claw, `resolved from ${active.file} (${active.origin})`),
      );
      setExit(ExitCode.ok);
    });

  manifest
    .command('init')
    .description('write a commented starter claw.yaml (default: into the data directory)')
    .argument('[file]', 'where to write it (default: <data dir>/claw.yaml)')
    .option('--force', 'overwrite an existing manifest')
    .action(async (file: string | undefined, options: { force?: boolean }) => {
      try {
        const result = await initUserManifest(places, {
          ...(file ? { target: path.resolve(file) } : {}),
          force: Boolean(options.force),
        });
        ctx.stdout.write(`wrote ${result.manifest}\n`);
        for (const seeded of result.seeded) ctx.stdout.write(`wrote ${seeded}\n`);
        setExit(ExitCode.ok);
      } catch (error) {
        if (!(error instanceof ManifestExistsError)) throw error;
        ctx.stderr.write(`pincer manifest init: ${error.message}\n`);
        setExit(ExitCode.failed);
      }
    });
}
