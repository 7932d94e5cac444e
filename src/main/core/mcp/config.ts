/**
 * The user's MCP servers: `<data dir>/mcp.json` in the shape Claude desktop and Cursor use
 * (`{"mcpServers": {"name": {"command", "args", "env"} | {"url", "headers"}}}`), so their files
 * import as they are. An `env` or header value `secret:NAME` is read from the secrets store when
 * the server starts, never written here.
 *
 * Consent is explicit: what an entry asks for beyond a bare sandboxed process (the network, a
 * stored secret) is a grant, and only the grants a person confirmed are kept in its `granted`
 * list (Pincer's own field): `pincer mcp add` confirms what its flags name, an import asks or
 * takes `--accept-grant`, and a file's own `granted` claim is dropped on import. A server gets
 * only what its entry both asks for and was granted.
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
  /** Pincer's own: the grants a person confirmed (`network`, `secret:NAME`). */
  granted: z.array(z.string()).optional(),
});

const httpServer = z.looseObject({
  type: z.enum(['http', 'streamable-http']).optional(),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
  disabled: z.boolean().optional(),
  granted: z.array(z.string()).optional(),
});

export const mcpServerEntry = z.union([stdioServer, httpServer]);
export type McpServerEntry = z.output<typeof mcpServerEntry>;

const mcpFile = z.looseObject({ mcpServers: z.record(z.string(), mcpServerEntry).default({}) });

const CATEGORY = {
  bad_file: 'invalid_request',
  bad_name: 'invalid_request',
  exists: 'conflict',
  not_found: 'not_found',
  not_confirmed: 'denied',
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

const SECRET_PREFIX = 'secret:';

/** One thing an entry asks for beyond a bare sandboxed process, as a person is shown it. */
export interface McpGrant {
  /** `network`, or `secret:NAME`: what `granted` and `--accept-grant` name. */
  grant: string;
  /** "network", "secret API_KEY as env K". */
  label: string;
}

/** What the entry asks for: the network, and each stored secret its env or headers reference. */
export function requestedGrants(entry: McpServerEntry): McpGrant[] {
  const grants: McpGrant[] = [];
  const secrets = (values: Record<string, string>, as: string) => {
    for (const [key, value] of Object.entries(values)) {
      if (!value.startsWith(SECRET_PREFIX)) continue;
      const name = value.slice(SECRET_PREFIX.length);
      grants.push({ grant: `${SECRET_PREFIX}${name}`, label: `secret ${name} as ${as} ${key}` });
    }
  };
  if (isStdioEntry(entry)) {
    if (entry.network === true) grants.push({ grant: 'network', label: 'network' });
    secrets(entry.env, 'env');
  } else {
    secrets(entry.headers, 'header');
  }
  return grants;
}

/** Whether a person confirmed `grant` for this entry. */
export function isGranted(entry: McpServerEntry, grant: string): boolean {
  return entry.granted?.includes(grant) === true;
}

/** The entry with exactly the confirmed grants among those it asks for (none: no field). */
function withGranted(entry: McpServerEntry, confirmed: readonly string[]): McpServerEntry {
  const { granted: _claimed, ...rest } = entry;
  const kept = [
    ...new Set(
      requestedGrants(entry)
        .map((g) => g.grant)
        .filter((g) => confirmed.includes(g)),
    ),
  ];
  return (kept.length ? { ...rest, granted: kept } : rest) as McpServerEntry;
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

/**
 * Adds one server. `granted` is what the person adding it confirmed (the flags they typed);
 * a `granted` list inside `entry` is not taken.
 */
export async function addMcpServer(
  dataDir: string,
  name: string,
  entry: unknown,
  options: { replace?: boolean; granted?: readonly string[] } = {},
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
  const added = withGranted(parsed.data, options.granted ?? []);
  servers[name] = added;
  await write(dataDir, servers);
  return added;
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

/** A server a file offers that is not in the list yet, with what it asks a person to grant. */
export interface McpImportOffer {
  name: string;
  entry: McpServerEntry;
  grants: McpGrant[];
}

/** The servers of a Claude desktop / Cursor file not yet in the list, nothing granted yet. */
export async function mcpImportOffers(dataDir: string, file: string): Promise<McpImportOffer[]> {
  const incoming = parseMcpServers(await readFile(file, 'utf8'), file);
  const servers = await readMcpServers(dataDir);
  return Object.entries(incoming)
    .filter(([name]) => !servers[name])
    .map(([name, entry]) => {
      const bare = withGranted(entry, []);
      return { name, entry: bare, grants: requestedGrants(bare) };
    });
}

/** Adds the offers a person took, each with the grants they confirmed; returns the names added. */
export async function importMcpServers(
  dataDir: string,
  taken: ReadonlyArray<{ offer: McpImportOffer; granted: readonly string[] }>,
): Promise<string[]> {
  const servers = await readMcpServers(dataDir);
  const added: string[] = [];
  for (const { offer, granted } of taken) {
    if (servers[offer.name]) continue;
    servers[offer.name] = withGranted(offer.entry, granted);
    added.push(offer.name);
  }
  await write(dataDir, servers);
  return added;
}
