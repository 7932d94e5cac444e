/**
 * `pincer agents`: remote A2A agents the model may ask, each offered as the tool `a2a/<name>`.
 * `add URL` fetches the agent's card (through the same address checks as every A2A request),
 * shows it, and adds it only once the person agrees (at the terminal, or `--yes`). They live in
 * <data dir>/agents.json.
 */
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import {
  addRemoteAgent,
  RemoteAgentConfigError,
  type RemoteAgentEntry,
  readRemoteAgents,
  remoteAgentName,
  removeRemoteAgent,
} from '../../core/a2a/index.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';
import { sanitizeTerminalText } from '../terminal-text.js';

interface AddOptions {
  name?: string;
  tokenSecret?: string;
  yes?: boolean;
  replace?: boolean;
}

export function registerAgents(program: Command, ctx: CliContext, setExit: SetExitCode) {
  const agents = program
    .command('agents')
    .description('remote A2A agents the model may ask, each a tool (add shows the AgentCard)');
  const fail = (error: unknown) => {
    ctx.stderr.write(`pincer agents: ${error instanceof Error ? error.message : String(error)}\n`);
    setExit(error instanceof RemoteAgentConfigError ? ExitCode.usage : ExitCode.failed);
  };

  agents
    .command('list')
    .description('the remote agents added')
    .option('--json', 'as JSON (the agents.json shape)')
    .action(async (options: { json?: boolean }) => {
      try {
        const all = await readRemoteAgents(ctx.dataDir);
        if (options.json) {
          ctx.stdout.write(`${JSON.stringify({ agents: all }, null, 2)}\n`);
          return;
        }
        const names = Object.keys(all).sort();
        if (!names.length)
          ctx.stdout.write('No remote agents. Add one with `pincer agents add URL`.\n');
        for (const name of names) {
          const entry = all[name] as RemoteAgentEntry;
          ctx.stdout.write(
            `a2a/${name}  ${entry.url}${entry.disabled ? '  (disabled)' : ''}\n  ${sanitizeTerminalText(entry.card.description)}\n`,
          );
        }
      } catch (error) {
        fail(error);
      }
    });

  agents
    .command('add <url>')
    .description("fetch a remote agent's AgentCard, show it, and add it once you agree")
    .option('--name <name>', "the tool's name, a2a/<name> (default: from the card's name)")
    .option('--token-secret <NAME>', 'send the stored secret NAME as its bearer token')
    .option('--yes', 'agree without a prompt (the card is still shown)')
    .option('--replace', 'replace an agent of the same name')
    .action(async (url: string, options: AddOptions) => {
      try {
        if (!/^https?:\/\//i.test(url))
          throw new RemoteAgentConfigError('bad_file', `${url} is not an http(s) URL`);
        // The SDK's client loads only for this command.
        const { fetchAgentCard } = await import('../../core/a2a/client.js');
        const card = await fetchAgentCard(url, AbortSignal.timeout(30_000));
        const name = options.name ?? remoteAgentName(card.name);
        const show = (text: string) => sanitizeTerminalText(text);
        ctx.stdout.write(
          `Agent "${show(card.name)}"${card.version ? ` ${show(card.version)}` : ''} at ${url}\n` +
            `  ${show(card.description)}\n` +
            card.skills
              .map((skill) => `  skill ${show(skill.id)}: ${show(skill.description)}\n`)
              .join('') +
            card.supportedInterfaces
              .map((one) => `  answers at ${show(one.url)} (${show(one.protocolBinding)})\n`)
              .join('') +
            `It would be the tool a2a/${name}: the model could send it what it chooses from a conversation, and its answers are read as untrusted text.\n`,
        );
        const interactive =
          process.stdin.isTTY === true && (ctx.stdout as { isTTY?: boolean }).isTTY === true;
        let agreed = options.yes === true;
        if (!agreed && interactive) {
          const rl = createInterface({ input: process.stdin, output: ctx.stdout });
          try {
            agreed = /^y(es)?$/i.test((await rl.question(`Add a2a/${name}? [y/N] `)).trim());
          } finally {
            rl.close();
          }
        }
        if (!agreed) {
          ctx.stderr.write(
            `pincer agents: not added (nobody agreed; run it at a terminal, or pass --yes)\n`,
          );
          setExit(ExitCode.usage);
          return;
        }
        await addRemoteAgent(
          ctx.dataDir,
          name,
          {
            url,
            card: {
              name: card.name,
              description: card.description,
              version: card.version,
              skills: card.skills.map((skill) => ({
                id: skill.id,
                name: skill.name,
                description: skill.description,
              })),
            },
            ...(options.tokenSecret ? { token: `secret:${options.tokenSecret}` } : {}),
            added_at: new Date().toISOString(),
          },
          { replace: options.replace },
        );
        ctx.stdout.write(`Added a2a/${name}.\n`);
      } catch (error) {
        fail(error);
      }
    });

  agents
    .command('remove <name>')
    .description('remove a remote agent')
    .action(async (name: string) => {
      try {
        await removeRemoteAgent(ctx.dataDir, name);
        ctx.stdout.write(`Removed a2a/${name}.\n`);
      } catch (error) {
        fail(error);
      }
    });
}
