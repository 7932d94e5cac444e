import type { Command } from 'commander';
import { LocalEmbedder } from '../../core/local/index.js';
import { findEmbeddingModel, openMemoryDatabase } from '../../core/memory/index.js';
import {
  parseTrust,
  type Skill,
  SkillError,
  SkillRegistry,
  TRUST_LEVELS,
} from '../../core/skills/index.js';
import { privateProfileDatabase } from '../../core/storage/index.js';
import { type CliContext, ExitCode } from '../context.js';
import { describeError } from '../errors.js';
import type { SetExitCode } from '../program.js';

/** `pincer skills ...`: the registry of SKILL.md / CKP Skill instructions in the profile database. */
export function registerSkills(program: Command, ctx: CliContext, setExit: SetExitCode) {
  const skills = program
    .command('skills')
    .description('list, search, add, enable and disable skills (instructions, never code)');

  const withRegistry =
    (
      fn: (registry: SkillRegistry) => Promise<number>,
      options: { embed?: boolean; embeddingModel?: string } = {},
    ) =>
    async () => {
      const db = openMemoryDatabase(privateProfileDatabase(ctx.dataDir));
      let embedder: LocalEmbedder | undefined;
      try {
        const model = options.embed
          ? await findEmbeddingModel(ctx.dataDir, ctx.appDir, {
              explicit: options.embeddingModel,
              env: process.env,
            })
          : undefined;
        if (model) embedder = await LocalEmbedder.open({ modelPath: model });
        setExit(await fn(SkillRegistry.open(db, { embedder })));
      } catch (error) {
        ctx.stderr.write(`pincer skills: ${describeError(ctx, error)}\n`);
        const usage = error instanceof SkillError && error.code === 'not_found';
        setExit(usage ? ExitCode.usage : ExitCode.failed);
      } finally {
        db.close();
        await embedder?.dispose();
      }
    };

  const print = (list: Skill[]) => {
    if (list.length === 0) {
      ctx.stdout.write('no skills\n');
      return;
    }
    const width = Math.max(...list.map((s) => s.name.length));
    for (const s of list) {
      ctx.stdout.write(
        `${s.name.padEnd(width)}  ${s.enabled ? 'enabled ' : 'disabled'}  ${s.trust.padEnd(10)}  v${s.version}  ${s.description}\n`,
      );
    }
  };

  skills
    .command('list')
    .description('every registered skill')
    .option('--json', 'print as JSON')
    .action((options: { json?: boolean }) =>
      withRegistry(async (registry) => {
        const list = registry.list();
        if (options.json) ctx.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        else print(list);
        return ExitCode.ok;
      })(),
    );

  skills
    .command('search')
    .description('full-text search over names, descriptions, tags and instructions')
    .argument('<query...>')
    .action((words: string[]) =>
      withRegistry(async (registry) => {
        print(registry.search(words.join(' ')));
        return ExitCode.ok;
      })(),
    );

  skills
    .command('add')
    .description('register a SKILL.md (or a folder holding one) or a CKP Skill YAML file')
    .argument('<path>')
    .option('--trust <level>', `trust level (${TRUST_LEVELS.join(', ')}); default unverified`)
    .option('--replace', 'replace a registered skill of the same name from another file')
    .option('--embedding-model <file>', 'GGUF embedding model for similarity matching')
    .action(
      (target: string, options: { trust?: string; replace?: boolean; embeddingModel?: string }) =>
        withRegistry(
          async (registry) => {
            const trust = options.trust ? parseTrust(options.trust) : undefined;
            const { skill, status } = await registry.add(target, {
              trust,
              replace: options.replace,
            });
            ctx.stdout.write(
              `${status} ${skill.name} v${skill.version} (${skill.trust}) from ${skill.source}\n`,
            );
            return ExitCode.ok;
          },
          { embed: true, embeddingModel: options.embeddingModel },
        )(),
    );

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    skills
      .command(verb)
      .description(`${verb} a skill (a disabled skill is never offered to the model)`)
      .argument('<name>')
      .action((name: string) =>
        withRegistry(async (registry) => {
          registry.setEnabled(name, enabled);
          ctx.stdout.write(`${verb}d ${name}\n`);
          return ExitCode.ok;
        })(),
      );
  }
}
