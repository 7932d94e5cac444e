/**
 * `pincer mcp`: the user's MCP servers (list, add, remove, import, test) and `pincer mcp serve`,
 * the agent's tools for other MCP clients over stdio. Servers live in <data dir>/mcp.json, in
 * the shape Claude desktop and Cursor use.
 */
import type { Command } from 'commander';
import { openAgent } from '../../core/agent/index.js';
import {
  addMcpServer,
  importMcpServers,
  isStdioEntry,
  McpConfigError,
  readMcpServers,
  removeMcpServer,
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
        const entry = options.url
          ? { url: options.url, headers: pairs(options.header) }
          : {
              command: command[0],
              args: command.slice(1),
              env: pairs(options.env),
              ...(options.network ? { network: true } : {}),
            };
        await addMcpServer(ctx.dataDir, name, entry, { replace: options.replace });
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
    .description('add the servers of a Claude desktop or Cursor config file')
    .action(async (file: string) => {
      try {
        const added = await importMcpServers(ctx.dataDir, file);
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
