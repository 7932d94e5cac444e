/**
 * `pincer mcp`: the user's MCP servers (list, add, remove, import, test) and `pincer mcp serve`,
 * the agent's tools for other MCP clients over stdio. Servers live in <data dir>/mcp.json, in
 * the shape Claude desktop and Cursor use.
 */
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { openAgent } from '../../core/agent/index.js';
import {
  addMcpServer,
  importMcpServers,
  isGranted,
  isStdioEntry,
  McpConfigError,
  type McpImportOffer,
  type McpServerEntry,
  mcpImportOffers,
  readMcpServers,
  removeMcpServer,
  requestedGrants,
} from '../../core/mcp/index.js';
import { serveMcp } from '../../core/mcp-server/index.js';
import { agentOptionsOf, modelChoiceOf } from '../agent-options.js';
import { type CliContext, ExitCode } from '../context.js';
import type { SetExitCode } from '../program.js';
import { protocolStdout } from '../protocol-stdout.js';

interface AddOptions {
  url?: string;
  env: string[];
  header: string[];
  network?: boolean;
  replace?: boolean;
}

export function registerMcp(program: Command, ctx: CliContext, setExit: SetExitCode) {
  const mcp = program
    .command('mcp')
    .description('MCP servers whose tools the agent uses, and the agent as an MCP server');
  const fail = (error: unknown) => {
    ctx.stderr.write(`pincer mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    setExit(error instanceof McpConfigError ? ExitCode.usage : ExitCode.failed);
  };

  mcp
    .command('list')
    .description('the configured servers')
    .option('--json', 'as JSON (the mcp.json shape)')
    .action(async (options: { json?: boolean }) => {
      try {
        const servers = await readMcpServers(ctx.dataDir);
        if (options.json) {
          ctx.stdout.write(`${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
          return;
        }
        const names = Object.keys(servers).sort();
        if (names.length === 0)
          ctx.stdout.write('No MCP servers. Add one with `pincer mcp add`.\n');
        for (const name of names) {
          const entry = servers[name];
          if (!entry) continue;
          const where = isStdioEntry(entry) ? [entry.command, ...entry.args].join(' ') : entry.url;
          ctx.stdout.write(`${name}${entry.disabled ? ' (disabled)' : ''}  ${where}\n`);
          // What it asks for beyond a bare sandboxed process, and whether a person granted it.
          for (const line of grantLines(entry)) ctx.stdout.write(`  ${line}\n`);
        }
      } catch (error) {
        fail(error);
      }
    });

  mcp
    .command('add <name> [command...]')
    .description('add a server: a command to start (stdio) or --url for streamable HTTP')
    .option('--url <url>', 'an http(s) MCP endpoint')
    .option(
      '--env <NAME=value>',
      'environment for a stdio server (value secret:NAME reads a secret)',
      collect,
      [],
    )
    .option(
      '--header <Name=value>',
      'an HTTP header (value secret:NAME reads a secret)',
      collect,
      [],
    )
    .option('--network', 'let a stdio server reach the network')
    .option('--replace', 'replace a server of the same name')
    .action(async (name: string, command: string[], options: AddOptions) => {
      try {
        if (!options.url && command.length === 0)
          throw new McpConfigError('bad_file', 'give a command to start, or --url');
        const entry: McpServerEntry = options.url
          ? { url: options.url, headers: pairs(options.header) }
          : {
              command: command[0] ?? '',
              args: command.slice(1),
              env: pairs(options.env),
              ...(options.network ? { network: true } : {}),
            };
        // The person typed each grant (--network, a secret: value): adding it confirms them.
        const added = await addMcpServer(ctx.dataDir, name, entry, {
          replace: options.replace,
          granted: requestedGrants(entry).map((g) => g.grant),
        });
        for (const g of requestedGrants(added))
          if (isGranted(added, g.grant)) ctx.stdout.write(`Granted to ${name}: ${g.label}.\n`);
        ctx.stdout.write(`Added MCP server ${name}. Check it with \`pincer mcp test ${name}\`.\n`);
      } catch (error) {
        fail(error);
      }
    });

  mcp
    .command('remove <name>')
    .description('remove a server')
    .action(async (name: string) => {
      try {
        await removeMcpServer(ctx.dataDir, name);
        ctx.stdout.write(`Removed MCP server ${name}.\n`);
      } catch (error) {
        fail(error);
      }
    });

  mcp
    .command('import <file>')
    .description(
      'add the servers of a Claude desktop or Cursor config file; what they ask for (network, stored secrets) is asked at a terminal, else named with --accept-grant',
    )
    .option(
      '--accept-grant <server:grant>',
      'confirm one grant without a prompt: files:network, gh:secret:GITHUB_TOKEN (repeat for each)',
      collect,
      [],
    )
    .action(async (file: string, options: { acceptGrant: string[] }) => {
      try {
        const offers = await mcpImportOffers(ctx.dataDir, file);
        const accepted = new Set(options.acceptGrant);
        const interactive =
          accepted.size === 0 &&
          process.stdin.isTTY === true &&
          (ctx.stdout as { isTTY?: boolean }).isTTY === true;
        const taken: Array<{ offer: McpImportOffer; granted: string[] }> = [];
        const unconfirmed: string[] = [];
        const declined: string[] = [];
        for (const offer of offers) {
          const grants = offer.grants.map((g) => g.grant);
          if (grants.every((grant) => accepted.has(`${offer.name}:${grant}`))) {
            taken.push({ offer, granted: grants });
          } else if (interactive) {
            if (await confirmGrants(ctx, offer)) taken.push({ offer, granted: grants });
            else declined.push(offer.name);
          } else {
            for (const g of offer.grants) {
              if (!accepted.has(`${offer.name}:${g.grant}`))
                unconfirmed.push(
                  `  ${offer.name}: ${g.label} (--accept-grant ${offer.name}:${g.grant})`,
                );
            }
          }
        }
        // Nobody confirmed them: nothing is imported, not even the servers that ask for nothing.
        if (unconfirmed.length) {
          throw new McpConfigError(
            'not_confirmed',
            `${file} asks for grants nobody confirmed; nothing was imported. Run it at a terminal to be asked, or name each one:\n${unconfirmed.join('\n')}`,
          );
        }
        const added = await importMcpServers(ctx.dataDir, taken);
        if (declined.length) ctx.stdout.write(`Not imported: ${declined.join(', ')}.\n`);
        ctx.stdout.write(
          added.length ? `Imported ${added.join(', ')}.\n` : 'Nothing new to import.\n',
        );
      } catch (error) {
        fail(error);
      }
    });

  mcp
    .command('test <name>')
    .description('start a server as the agent would (sandboxed) and list its tools')
    .option('--manifest <file>', 'the claw.yaml whose sandbox applies')
    .action(async (name: string, options: { manifest?: string }) => {
      try {
        const servers = await readMcpServers(ctx.dataDir);
        if (!servers[name]) throw new McpConfigError('not_found', `no MCP server named "${name}"`);
        const agent = await openAgent({
          ...agentOptionsOf(ctx, { manifest: options.manifest }),
          tools: '',
        });
        try {
          const status = agent.mcp.status().find((s) => s.name === name);
          if (status?.state !== 'ready') {
            ctx.stderr.write(`${name}: ${status?.error ?? 'did not start'}\n`);
            setExit(ExitCode.failed);
            return;
          }
          ctx.stdout.write(`${name}: ready, ${status.tools.length} tool(s)\n`);
          for (const tool of status.tools)
            ctx.stdout.write(`  ${tool}  ${agent.registry.get(tool)?.description ?? ''}\n`);
        } finally {
          await agent.close();
        }
      } catch (error) {
        fail(error);
      }
    });

  mcp
    .command('serve')
    .description("serve the agent's tools to MCP clients over stdio, under the manifest's policy")
    .option('--manifest <file>', 'the claw.yaml of the agent served')
    .option(
      '--tools <globs>',
      'tools offered, comma-separated (default: all; the policy decides each call)',
      '**',
    )
    .action(async (options: { manifest?: string; tools: string }) => {
      // stdout carries MCP messages only.
      const out = protocolStdout(ctx);
      try {
        const agentOptions = agentOptionsOf(ctx, {
          manifest: options.manifest,
          tools: options.tools,
        });
        agentOptions.model = modelChoiceOf({});
        const agent = await openAgent(agentOptions);
        try {
          await serveMcp({
            agent,
            allow: options.tools
              .split(',')
              .map((glob) => glob.trim())
              .filter(Boolean),
            output: out.stream,
          });
        } finally {
          await agent.close();
        }
      } catch (error) {
        fail(error);
      } finally {
        out.restore();
      }
    });
}

/** Each grant the entry asks for, and whether a person granted it (`mcp list`, `mcp add`). */
function grantLines(entry: McpServerEntry): string[] {
  return requestedGrants(entry).map(
    (g) => `${g.label}: ${isGranted(entry, g.grant) ? 'granted' : 'not granted'}`,
  );
}

/** Lists exactly what a server of the file would be granted, and asks the person at the terminal. */
async function confirmGrants(ctx: CliContext, offer: McpImportOffer): Promise<boolean> {
  if (offer.grants.length === 0) return true;
  const rl = createInterface({ input: process.stdin, output: ctx.stdout });
  try {
    ctx.stdout.write(`The server "${offer.name}" asks for:\n`);
    for (const g of offer.grants) ctx.stdout.write(`  ${g.label}\n`);
    const answer = await rl.question(`Grant these to "${offer.name}"? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function pairs(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    if (at <= 0) throw new McpConfigError('bad_file', `"${value}" is not NAME=value`);
    out[value.slice(0, at)] = value.slice(at + 1);
  }
  return out;
}
