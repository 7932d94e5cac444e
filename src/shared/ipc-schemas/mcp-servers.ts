/** The user's MCP servers (`mcp.json`), never an env or header value. */
import { z } from 'zod';

/** One MCP server of the user's list (`<data dir>/mcp.json`): never an env or header value. */
export const McpServerViewSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  /** The command line, or the URL. */
  target: z.string(),
  enabled: z.boolean(),
  /** The connection now: `off` while disabled. */
  state: z.enum(['off', 'connecting', 'ready', 'down', 'closed']),
  tools: z.array(z.string()),
  error: z.string().nullable(),
  /**
   * What it asks for beyond a bare sandboxed process (the network, each stored secret its env or
   * headers reference, by name only) and whether a person granted it: only granted ones are given.
   */
  grants: z.array(z.object({ grant: z.string(), label: z.string(), granted: z.boolean() })),
});
export type McpServerView = z.infer<typeof McpServerViewSchema>;
