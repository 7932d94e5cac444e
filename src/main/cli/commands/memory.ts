import type { Command } from 'commander';
import {
  findEmbeddingModel,
  formatHit,
  MemoryError,
  type OpenedMemory,
  openProfileMemory,
  parseScope,
  scopeKey,
} from '../../core/memory/index.js';
import { type CliContext, ExitCode } from '../context.js';
import { describeError } from '../errors.js';
import { integerIn } from '../options.js';
import type { SetExitCode } from '../program.js';

interface EmbeddingOptions {
  embeddingModel?: string;
  threads?: number;
}

/** `pincer memory ...`: notes and documents in the profile database, hybrid search over them. */
export function registerMemory(program: Command, ctx: CliContext, setExit: SetExitCode) {
  const memory = program
    .command('memory')
    .description('remember notes and documents, search them (keywords + embeddings)');

  const withMemory =
    (options: EmbeddingOptions, fn: (opened: OpenedMemory) => Promise<number>) => async () => {
      let opened: OpenedMemory | undefined;
      try {
        const embeddingModel = await findEmbeddingModel(ctx.dataDir, ctx.appDir, {
          explicit: options.embeddingModel,
          env: process.env,
        });
        opened = await openProfileMemory(ctx.dataDir, {
          embeddingModel,
          threads: options.threads,
        });
        setExit(await fn(opened));
      } catch (error) {
        ctx.stderr.write(`pincer memory: ${describeError(ctx, error)}\n`);
        const usage = error instanceof MemoryError && error.code === 'bad_input';
        setExit(usage ? ExitCode.usage : ExitCode.failed);
      } finally {
        await opened?.close();
      }
    };

  const embeddingFlags = (command: Command) =>
    command
      .option(
        '--embedding-model <file>',
        'GGUF embedding model (else PINCER_EMBEDDING_MODEL, else the catalog default if installed)',
      )
      .option('--threads <n>', 'CPU threads for embedding', integerIn(1, 1024));

  embeddingFlags(
    memory
      .command('add')
      .description('remember a note, or index a Markdown/text file or folder with --file')
      .argument('[text...]', 'the note')
      .option('--file <path>', 'a file or folder to index (.md, .markdown, .txt)'),
  ).action((words: string[], options: EmbeddingOptions & { file?: string }) =>
    withMemory(options, async ({ store }) => {
      if (options.file) {
        const { outcomes, errors } = await store.indexPath(options.file);
        for (const o of outcomes)
          ctx.stdout.write(`${o.status} ${o.source} (${o.chunks} chunks)\n`);
        for (const e of errors) ctx.stderr.write(`skipped ${e.source}: ${e.error.message}\n`);
        return errors.length > 0 ? ExitCode.failed : ExitCode.ok;
      }
      const text = words.join(' ');
      if (!text.trim()) {
        ctx.stderr.write('pincer memory: give the note text, or --file PATH\n');
        return ExitCode.usage;
      }
      const outcome = await store.addNote(text);
      ctx.stdout.write(`remembered ${outcome.source}\n`);
      return ExitCode.ok;
    })(),
  );

  embeddingFlags(
    memory
      .command('search')
      .description('search memory (hybrid with an embedding model, keywords only without)')
      .argument('<query...>')
      .option('--limit <n>', 'most results (1-100)', integerIn(1, 100), 5)
      .option('--json', 'print as JSON'),
  ).action((words: string[], options: EmbeddingOptions & { limit: number; json?: boolean }) =>
    withMemory(options, async ({ store }) => {
      const result = await store.search(words.join(' '), { limit: options.limit });
      if (options.json) {
        ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return ExitCode.ok;
      }
      if (result.notice) ctx.stderr.write(`note: ${result.notice}\n`);
      if (result.hits.length === 0) ctx.stdout.write('nothing found\n');
      for (const hit of result.hits) ctx.stdout.write(`${formatHit(hit)}\n\n`);
      return ExitCode.ok;
    })(),
  );

  memory
    .command('forget')
    .description('remove a note (note:...) or an indexed file from memory')
    .argument('<source>')
    .action((source: string) =>
      withMemory({}, async ({ store }) => {
        if (store.forget(source) === 0) {
          ctx.stderr.write(`pincer memory: nothing remembered as ${source}\n`);
          return ExitCode.failed;
        }
        ctx.stdout.write(`forgot ${source}\n`);
        return ExitCode.ok;
      })(),
    );

  const fact = memory
    .command('fact')
    .description(
      'key-value facts, scoped global, identity:ID or channel:ID (global ones go into context)',
    );
  fact
    .command('set')
    .argument('<key>')
    .argument('<value...>')
    .option('--scope <scope>', 'global, identity:ID or channel:ID', 'global')
    .action((key: string, value: string[], options: { scope: string }) =>
      withMemory({}, async ({ store }) => {
        store.facts.set(parseScope(options.scope), key, value.join(' '));
        ctx.stdout.write(`set ${key} (${options.scope})\n`);
        return ExitCode.ok;
      })(),
    );
  fact
    .command('list')
    .option('--scope <scope>', 'only this scope')
    .action((options: { scope?: string }) =>
      withMemory({}, async ({ store }) => {
        const facts = store.facts.list(options.scope ? [parseScope(options.scope)] : undefined);
        if (facts.length === 0) ctx.stdout.write('no facts\n');
        for (const f of facts) ctx.stdout.write(`${scopeKey(f.scope)}  ${f.key} = ${f.value}\n`);
        return ExitCode.ok;
      })(),
    );
  fact
    .command('delete')
    .argument('<key>')
    .option('--scope <scope>', 'global, identity:ID or channel:ID', 'global')
    .action((key: string, options: { scope: string }) =>
      withMemory({}, async ({ store }) => {
        if (!store.facts.delete(parseScope(options.scope), key)) {
          ctx.stderr.write(`pincer memory: no fact ${key} in ${options.scope}\n`);
          return ExitCode.failed;
        }
        ctx.stdout.write(`deleted ${key} (${options.scope})\n`);
        return ExitCode.ok;
      })(),
    );

  embeddingFlags(
    memory
      .command('reindex')
      .description(
        're-read indexed files (unchanged ones are skipped) and embed what lacks a vector',
      ),
  ).action((options: EmbeddingOptions) =>
    withMemory(options, async ({ store }) => {
      const report = await store.reindex();
      const changed = report.outcomes.filter((o) => o.status === 'indexed').length;
      ctx.stdout.write(
        `${report.outcomes.length} files: ${changed} re-indexed, ${report.outcomes.length - changed} unchanged, ` +
          `${report.removed.length} removed (gone from disk), ${report.embedded} chunks embedded\n`,
      );
      for (const e of report.errors) ctx.stderr.write(`kept ${e.source}: ${e.error.message}\n`);
      if (!store.embedderId) ctx.stderr.write('note: no embedding model: keyword search only\n');
      return report.errors.length > 0 ? ExitCode.failed : ExitCode.ok;
    })(),
  );
}
