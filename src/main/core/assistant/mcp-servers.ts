/**
 * Settings → MCP: the user's servers as `pincer mcp list|add|remove` keep them
 * (`<data dir>/mcp.json`), joined with what the running agent's connection to each is doing.
 * A change is written to the file first, then applied to the running agent, so the file and
 * the next launch agree with what the UI showed. Env and header values never leave here; what a
 * server was granted (the network, the names of the stored secrets it is given) is shown.
 */
import type { McpServerView } from '../../../shared/ipc-schemas.js';
import type { McpTools } from '../mcp/index.js';
import {
  addMcpServer,
  isGranted,
  isStdioEntry,
  type McpServerEntry,
  readMcpServers,
  removeMcpServer,
  requestedGrants,
  setMcpServerDisabled,
} from '../mcp/index.js';
import { InvalidRequest } from './types.js';

export interface McpServerRequest {
  name: string;
  command?: string;
  args?: string[];
  url?: string;
}

export class McpServers {
  constructor(
    private readonly dataDir: string,
    private readonly mcp: McpTools,
  ) {}

  async list(): Promise<{ servers: McpServerView[] }> {
    const entries = await readMcpServers(this.dataDir);
    const running = new Map(this.mcp.status().map((status) => [status.name, status]));
    const servers = Object.entries(entries).map(([name, entry]): McpServerView => {
      const status = entry.disabled ? undefined : running.get(name);
      return {
        name,
        transport: isStdioEntry(entry) ? 'stdio' : 'http',
        target: isStdioEntry(entry) ? [entry.command, ...entry.args].join(' ') : entry.url,
        enabled: !entry.disabled,
        state: status?.state ?? 'off',
        tools: status?.tools ?? [],
        error: status?.error ?? null,
        grants: requestedGrants(entry).map((g) => ({
          ...g,
          granted: isGranted(entry, g.grant),
        })),
      };
    });
    return { servers: servers.sort((a, b) => a.name.localeCompare(b.name)) };
  }

  async add(request: McpServerRequest): Promise<{ servers: McpServerView[] }> {
    const { name, command, args, url } = request;
    if ((command === undefined) === (url === undefined)) {
      throw new InvalidRequest('an MCP server has either a command or a URL');
    }
    const entry: unknown = command !== undefined ? { command, args: args ?? [] } : { url };
    const added = await addMcpServer(this.dataDir, name, entry);
    await this.mcp.startServer(name, added);
    return this.list();
  }

  async setEnabled(name: string, enabled: boolean): Promise<{ servers: McpServerView[] }> {
    const entry: McpServerEntry = await setMcpServerDisabled(this.dataDir, name, !enabled);
    if (enabled) await this.mcp.startServer(name, entry);
    else await this.mcp.stopServer(name);
    return this.list();
  }

  async remove(name: string): Promise<{ servers: McpServerView[] }> {
    await removeMcpServer(this.dataDir, name);
    await this.mcp.stopServer(name);
    return this.list();
  }
}
