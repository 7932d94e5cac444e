/**
 * Carrying out a service plan (service.ts): write or remove its file and run the service
 * manager's commands through a runner the caller gives (the CLI: real child processes). Both
 * directions are idempotent, and a file at the service's path that Pincer did not write is
 * never overwritten or removed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_MARKER, type ServiceCommand, ServiceError, type ServicePlan } from './service.js';

export interface CommandOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one command; undefined when its program is not installed. */
export type CommandRunner = (command: ServiceCommand) => CommandOutcome | undefined;

/** A runner over real child processes, the program looked up on PATH. */
export const spawnRunner: CommandRunner = (command) => {
  const result = spawnSync(command.program, command.args, { encoding: 'utf8', timeout: 60_000 });
  if (result.error) {
    if ((result.error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { code: -1, stdout: '', stderr: result.error.message };
  }
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
};

export function describeCommand(command: ServiceCommand): string {
  return [command.program, ...command.args]
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

export interface ServiceReport {
  /** What happened, for the person who ran it. */
  outcome:
    | 'installed'
    | 'updated'
    | 'unchanged'
    | 'removed'
    | 'not-installed'
    | 'dry-run'
    | 'manual';
  /** False when a service manager command failed. */
  ok: boolean;
  lines: string[];
}

/** What is registered now: its text, or undefined when nothing is. */
function existingText(plan: ServicePlan, run: CommandRunner): string | undefined {
  if (plan.existing.kind === 'command') {
    const outcome = run(plan.existing.command);
    return outcome && outcome.code === 0 ? outcome.stdout : undefined;
  }
  try {
    const bytes = readFileSync(plan.file);
    return plan.encoding === 'utf16le' ? bytes.toString('utf16le') : bytes.toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function refuseForeign(plan: ServicePlan, text: string): void {
  if (!text.includes(SERVICE_MARKER)) {
    const where = plan.existing.kind === 'file' ? plan.file : `the task "${plan.name}"`;
    throw new ServiceError(
      'foreign_file',
      `${where} exists and was not written by Pincer; leaving it alone (remove or rename it yourself)`,
    );
  }
}

/** The registered text, compared with ours without the BOM or line-ending differences. */
function sameText(a: string, b: string): boolean {
  const norm = (text: string) =>
    text
      .replace(/^\uFEFF/, '')
      .replace(/\r\n/g, '\n')
      .trim();
  return norm(a) === norm(b);
}

/** Runs the commands in order; stops at the first that fails (unless it may), or is missing. */
function runAll(
  commands: ServiceCommand[],
  run: CommandRunner,
  lines: string[],
): { ok: boolean; manual: boolean } {
  for (const [index, command] of commands.entries()) {
    const outcome = run(command);
    if (!outcome) {
      lines.push(
        `${command.program} is not available here; run these yourself:`,
        ...commands.slice(index).map((left) => `  ${describeCommand(left)}`),
      );
      return { ok: true, manual: true };
    }
    if (outcome.code === 0) {
      lines.push(`ran: ${describeCommand(command)}`);
      continue;
    }
    if (command.mayFail) continue;
    const why = (outcome.stderr || outcome.stdout).trim();
    lines.push(
      `failed (exit ${outcome.code}): ${describeCommand(command)}${why ? `: ${why}` : ''}`,
      'then run these yourself:',
      ...commands.slice(index).map((left) => `  ${describeCommand(left)}`),
    );
    return { ok: false, manual: false };
  }
  return { ok: true, manual: false };
}

function writeServiceFile(plan: ServicePlan): void {
  mkdirSync(path.dirname(plan.file), { recursive: true });
  const bytes =
    plan.encoding === 'utf16le'
      ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(plan.content, 'utf16le')])
      : Buffer.from(plan.content, 'utf8');
  writeFileSync(`${plan.file}.tmp`, bytes, { mode: 0o644 });
  // A rename replaces the file whole: a service manager never reads half of it.
  renameSync(`${plan.file}.tmp`, plan.file);
}

export function installService(
  plan: ServicePlan,
  options: { run: CommandRunner; dryRun?: boolean },
): ServiceReport {
  const existing = existingText(plan, options.run);
  if (existing !== undefined) refuseForeign(plan, existing);
  const fresh = existing === undefined;
  const changed = fresh || !sameText(existing, plan.content);
  const commands = fresh ? plan.start : plan.restart;
  if (options.dryRun) {
    return {
      outcome: 'dry-run',
      ok: true,
      lines: [
        changed
          ? `would write ${plan.file}${fresh ? '' : ' (replacing the one Pincer wrote)'}:`
          : `${plan.file} is already installed as it would be written; nothing would change:`,
        '',
        plan.content.replace(/\r\n/g, '\n'),
        ...(changed
          ? ['and run:', ...commands.map((command) => `  ${describeCommand(command)}`)]
          : []),
      ],
    };
  }
  if (!changed) {
    return {
      outcome: 'unchanged',
      ok: true,
      lines: [
        `${plan.name} is already installed with these settings (${plan.file}); nothing to do`,
      ],
    };
  }
  writeServiceFile(plan);
  const lines = [`${fresh ? 'wrote' : 'updated'} ${plan.file}`];
  const result = runAll(commands, options.run, lines);
  if (result.ok && !result.manual) {
    lines.push(
      fresh
        ? `installed ${plan.name}: it runs \`pincer daemon\` now and at each login`
        : `updated ${plan.name} and restarted it`,
    );
  }
  return {
    outcome: result.manual ? 'manual' : fresh ? 'installed' : 'updated',
    ok: result.ok,
    lines,
  };
}

export function uninstallService(
  plan: ServicePlan,
  options: { run: CommandRunner; dryRun?: boolean },
): ServiceReport {
  const existing = existingText(plan, options.run);
  if (existing === undefined) {
    return {
      outcome: 'not-installed',
      ok: true,
      lines: [`${plan.name} is not installed (${plan.file}); nothing to remove`],
    };
  }
  refuseForeign(plan, existing);
  if (options.dryRun) {
    return {
      outcome: 'dry-run',
      ok: true,
      lines: [
        'would run:',
        ...plan.stop.map((command) => `  ${describeCommand(command)}`),
        `would remove ${plan.file}`,
        ...plan.afterRemove.map((command) => `  ${describeCommand(command)}`),
      ],
    };
  }
  const lines: string[] = [];
  const stopped = runAll(plan.stop, options.run, lines);
  if (!stopped.ok) return { outcome: 'manual', ok: false, lines };
  rmSync(plan.file, { force: true });
  lines.push(`removed ${plan.file}`);
  const after = runAll(plan.afterRemove, options.run, lines);
  if (after.ok && !stopped.manual && !after.manual) lines.push(`uninstalled ${plan.name}`);
  return {
    outcome: stopped.manual || after.manual ? 'manual' : 'removed',
    ok: after.ok,
    lines,
  };
}
