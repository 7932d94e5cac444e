import type { Command } from 'commander';
import { Redactor } from '../../core/redaction/index.js';
import {
  type BackendId,
  createSecretStore,
  type SecretStore,
  SecretsError,
} from '../../core/secrets/index.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';
import { InputCancelled, promptHidden, readSecretValue } from '../secret-input.js';
import { writeData } from '../terminal-text.js';

const TARGETS: readonly BackendId[] = ['keychain', 'vault', 'safe-storage'];

/** `pincer secrets ...`: values come from a prompt or stdin, never argv, and print only on --reveal. */
export function registerSecrets(program: Command, ctx: CliContext, setExit: SetExitCode) {
  const secrets = program
    .command('secrets')
    .description('store, list and delete credentials (OS keychain, encrypted vault, env)');

  /** Opens the store for one command, maps errors to exit codes, zeroes keys afterwards. */
  const withStore = (fn: (store: SecretStore) => Promise<number>) => async () => {
    const store = createSecretStore({
      dataDir: ctx.dataDir,
      promptPassphrase: process.stdin.isTTY ? () => promptHidden('Vault passphrase: ') : undefined,
    });
    // What the command read or wrote is redacted from its error messages.
    const redactor = new Redactor();
    store.redactInto(redactor);
    try {
      setExit(await fn(store));
    } catch (error) {
      ctx.stderr.write(`pincer secrets: ${redactor.redactError(error)}\n`);
      const usage = error instanceof SecretsError && error.code === 'invalid-name';
      setExit(usage || error instanceof InputCancelled ? ExitCode.usage : ExitCode.failed);
    } finally {
      store.close();
    }
  };

  secrets
    .command('set')
    .description('store a secret; the value is read from a hidden prompt or from stdin')
    .argument('<name>', 'e.g. ANTHROPIC_API_KEY (what a provider secret_ref names)')
    .option('--to <backend>', `store in this backend (${TARGETS.join(', ')})`)
    .action((name: string, options: { to?: string }) =>
      withStore(async (store) => {
        const to = options.to ? parseTarget(options.to) : undefined;
        const value = await readSecretValue(name);
        if (!value) {
          ctx.stderr.write('pincer secrets: empty value, nothing stored\n');
          return ExitCode.usage;
        }
        const where = await store.set(name, value, { to });
        ctx.stdout.write(`stored ${name} in ${label(store, where)}\n`);
        return ExitCode.ok;
      })(),
    );

  secrets
    .command('list')
    .description('list secret names and where each is stored (never values)')
    .option('--json', 'print as JSON')
    .action((options: { json?: boolean }) =>
      withStore(async (store) => {
        const entries = await store.list();
        if (options.json) {
          ctx.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
        } else if (entries.length === 0) {
          ctx.stdout.write('no secrets stored\n');
        } else {
          const width = Math.max(...entries.map((e) => e.name.length));
          for (const e of entries) {
            ctx.stdout.write(
              `${e.name.padEnd(width)}  ${e.backend}${e.shadowed ? ' (shadowed)' : ''}\n`,
            );
          }
        }
        return ExitCode.ok;
      })(),
    );

  secrets
    .command('get')
    .description('say whether a secret exists and where; print it only with --reveal')
    .argument('<name>')
    .option('--reveal', 'print the value to stdout')
    .action((name: string, options: { reveal?: boolean }) =>
      withStore(async (store) => {
        const found = await store.get(name);
        if (!found) {
          ctx.stderr.write(`pincer secrets: ${name} is not set in any backend\n`);
          return ExitCode.failed;
        }
        if (options.reveal) writeData(ctx.stdout, `${found.value}\n`);
        else
          ctx.stdout.write(
            `${name} is set (in ${label(store, found.backend)}); add --reveal to print it\n`,
          );
        return ExitCode.ok;
      })(),
    );

  secrets
    .command('rm')
    .description('delete a secret from every writable backend that has it')
    .argument('<name>')
    .action((name: string) =>
      withStore(async (store) => {
        const removed = await store.delete(name);
        if (removed.length > 0) {
          ctx.stdout.write(`removed ${name} from ${removed.join(', ')}\n`);
          return ExitCode.ok;
        }
        const still = await store.get(name);
        ctx.stderr.write(
          still
            ? `pincer secrets: ${name} comes from ${still.backend}, which Pincer cannot change\n`
            : `pincer secrets: ${name} is not set\n`,
        );
        return ExitCode.failed;
      })(),
    );

  secrets
    .command('migrate')
    .description('move every stored secret into one backend (copy, verify, then delete)')
    .requiredOption('--to <backend>', TARGETS.join(' | '))
    .action((options: { to: string }) =>
      withStore(async (store) => {
        const report = await store.migrate(parseTarget(options.to));
        for (const m of report.moved)
          ctx.stdout.write(`moved ${m.name}: ${m.from} -> ${report.to}\n`);
        for (const s of report.skipped)
          ctx.stderr.write(`kept ${s.name} in ${s.from}: ${s.reason}\n`);
        if (report.moved.length === 0 && report.skipped.length === 0) {
          ctx.stdout.write(`nothing to migrate; everything is in ${report.to}\n`);
        }
        return report.skipped.length > 0 ? ExitCode.failed : ExitCode.ok;
      })(),
    );
}

function parseTarget(text: string): BackendId {
  const found = TARGETS.find((t) => t === text);
  if (!found)
    throw new SecretsError('invalid-name', `unknown backend "${text}": use ${TARGETS.join(', ')}`);
  return found;
}

function label(store: SecretStore, id: BackendId): string {
  return store.backends.find((b) => b.id === id)?.label ?? id;
}
