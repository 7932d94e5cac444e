/**
 * The user's MCP servers: `<data dir>/mcp.json` in the shape Claude desktop and Cursor use
 * (`{"mcpServers": {"name": {"command", "args", "env"} | {"url", "headers"}}}`), so their files
 * import as they are. An `env` or header value `secret:NAME` is read from the secrets store when
 * the server starts, never written here.
 */

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { type ErrorCategory, PincerError } from '../errors.js';
import { writeFileAtomic } from '../secrets/index.js';

const SERVER_NAME = /^[a-z0-9][a-z0-9_-]*$/;

const stdioServer = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  /** Pincer's own: whether the server may reach the network (default: no network). */
  network: z.boolean().optional(),
  disabled: z.boolean().optional(),
});

const httpServer = z.looseObject({
  type: z.enum(['http', 'streamable-http']).optional(),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
  disabled: z.boolean().optional(),
});

export const mcpServerEntry = z.union([stdioServer, httpServer]);
export type McpServerEntry = z.output<typeof mcpServerEntry>;

const mcpFile = z.looseObject({ mcpServers: z.record(z.string(), mcpServerEntry).default({}) });

const CATEGORY = {
  bad_file: 'invalid_request',
  bad_name: 'invalid_request',
  exists: 'conflict',
  not_found: 'not_found',
} as const satisfies Record<string, ErrorCategory>;

export class McpConfigError extends PincerError {
  override readonly name = 'McpConfigError';
  constructor(
    readonly code: keyof typeof CATEGORY,
    message: string,
  ) {
    super(CATEGORY[code], message);
  }
}

export function mcpConfigPath(dataDir: string): string {
  return path.join(dataDir, 'mcp.json');
}

export function isStdioEntry(entry: McpServerEntry): entry is z.output<typeof stdioServer> {
  return 'command' in entry;
}

/** Parses a file in the Claude desktop shape; a problem names the server and the field. */
export function parseMcpServers(text: string, file: string): Record<string, McpServerEntry> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError('bad_file', `${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = mcpFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new McpConfigError(
      'bad_file',
      `${file}: ${issue?.path.join('.') || '(file)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  for (const name of Object.keys(parsed.data.mcpServers)) checkName(name);
  return parsed.data.mcpServers;
}

export function checkName(name: string): void {
  if (!SERVER_NAME.test(name))
    throw new McpConfigError('bad_name', `"${name}" is not a server name (a-z, 0-9, _ and -)`);
}

export async function readMcpServers(dataDir: string): Promise<Record<string, McpServerEntry>> {
  const file = mcpConfigPath(dataDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  return parseMcpServers(text, file);
}

async function write(dataDir: string, servers: Record<string, McpServerEntry>): Promise<void> {
  await writeFileAtomic(
    mcpConfigPath(dataDir),
    Buffer.from(`${JSON.stringify({ mcpServers: servers }, null, 2)}\n`),
  );
}

export async function addMcpServer(
  dataDir: string,
  name: string,
  entry: unknown,
  options: { replace?: boolean } = {},
): Promise<McpServerEntry> {
  checkName(name);
  const parsed = mcpServerEntry.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new McpConfigError('bad_file', `${name}: ${issue?.message ?? 'invalid server'}`);
  }
  const servers = await readMcpServers(dataDir);
  if (servers[name] && !options.replace)
    throw new McpConfigError('exists', `an MCP server named "${name}" exists; remove it first`);
  servers[name] = parsed.data;
  await write(dataDir, servers);
  return parsed.data;
}

export async function removeMcpServer(dataDir: string, name: string): Promise<void> {
  const servers = await readMcpServers(dataDir);
  if (!servers[name]) throw new McpConfigError('not_found', `no MCP server named "${name}"`);
  delete servers[name];
  await write(dataDir, servers);
}

/** Turns a server off (kept in the file, not started) or on again. */
export async function setMcpServerDisabled(
  dataDir: string,
  name: string,
  disabled: boolean,
): Promise<McpServerEntry> {
  const servers = await readMcpServers(dataDir);
  const entry = servers[name];
  if (!entry) throw new McpConfigError('not_found', `no MCP server named "${name}"`);
  if (disabled) entry.disabled = true;
  else delete entry.disabled;
  await write(dataDir, servers);
  return entry;
}

/** Adds every server of a Claude desktop / Cursor file; returns the names added. */
export async function importMcpServers(dataDir: string, file: string): Promise<string[]> {
  const incoming = parseMcpServers(await readFile(file, 'utf8'), file);
  const servers = await readMcpServers(dataDir);
  const added = Object.keys(incoming).filter((name) => !servers[name]);
  for (const name of added) servers[name] = incoming[name] as McpServerEntry;
  await write(dataDir, servers);
  return added;
}
