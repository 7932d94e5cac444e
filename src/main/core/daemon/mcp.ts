/**
 * The daemon's MCP listener: the mcp-server module over the daemon's own agent (never a second
 * one) on Streamable HTTP, bound to 127.0.0.1 unless told otherwise, wanting the same bearer
 * token as the daemon's CKP listeners (one secret for the daemon's protocol listeners, so one
 * file to guard and one `--ckp-token-env`).
 *
 * Approvals of MCP calls go to the surfaces attached to the daemon (the desktop app, `pincer
 * tui`) through its gateway; when none answers in time the call is denied (its runs are remote:
 * the origin guard). With no surface attached when the approval is asked, nobody could answer:
 * it is denied at once, as `pincer mcp serve` does, whatever the rule's timeout answer says.
 */
import type { Agent } from '../agent/index.js';
import { ToolCalls } from '../ckp-server/index.js';
// The MCP server (its SDK, Hono, and fetch's undici that Hono touches) loads only when served.
import type { McpHttpListener } from '../mcp-server/index.js';
import type { DaemonServer } from './ckp.js';

export interface DaemonMcpOptions {
  /** Port to listen on (0: any free one). */
  http: number;
  /** Interface to bind; 127.0.0.1 by default. */
  host?: string;
  /** The bearer token every request must carry. */
  token: string;
  /** Name globs of the tools offered (default: all; the policy decides each call). */
  allow?: readonly string[];
}

export interface DaemonMcp {
  servers: DaemonServer[];
  /** Answers new requests 503, waits up to `ms` for calls in flight, cancels what is left. */
  drain(ms: number): Promise<{ drained: boolean }>;
  /** Closes the listener and its sessions. */
  close(): Promise<void>;
}

export async function serveDaemonMcp(
  agent: Agent,
  options: DaemonMcpOptions,
  deps: {
    /** How many surfaces are attached now (0 without an attach gateway). */
    attached: () => number;
    log: (line: string) => void;
  },
): Promise<DaemonMcp> {
  const calls = new ToolCalls({ channel: 'mcp', type: 'mcp' });
  const cancel = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  const { broker } = agent.governance;
  const stopApprovals = broker.onRequest((pending) => {
    // Surfaces of this process first, and only this listener's calls: channels' runs wait.
    setImmediate(() => {
      if (!calls.owns(pending.runId) || deps.attached() > 0) return;
      broker.resolve(pending.id, 'deny', 'mcp: no surface attached to the daemon');
    });
  });
  let listener: McpHttpListener | undefined;
  const servers: DaemonServer[] = [];
  try {
    const { listenMcpHttp, mcpServerOver } = await import('../mcp-server/index.js');
    listener = await listenMcpHttp({
      port: options.http,
      host: options.host,
      token: options.token,
      open: () =>
        mcpServerOver(agent, {
          allow: options.allow ?? ['**'],
          calls,
          cancel: cancel.signal,
          onCall: (settled) => {
            inFlight.add(settled);
            void settled.finally(() => inFlight.delete(settled));
          },
        }),
    });
    servers.push({ protocol: 'mcp', transport: 'http', url: listener.url });
    deps.log(`MCP (http) on ${listener.url} (Authorization: Bearer <token>)`);
  } catch (error) {
    const reason = (error as Error).message;
    servers.push({ protocol: 'mcp', transport: 'http', error: reason });
    deps.log(`MCP (http) not served: ${reason}`);
  }
  return {
    servers,
    async drain(ms) {
      listener?.refuse();
      let deadline: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        Promise.all([...inFlight]).then(() => true),
        new Promise<boolean>((resolve) => {
          deadline = setTimeout(() => resolve(false), ms);
        }),
      ]);
      clearTimeout(deadline);
      if (!drained) {
        cancel.abort();
        await Promise.all([...inFlight]);
      }
      return { drained };
    },
    async close() {
      stopApprovals();
      cancel.abort();
      await listener?.close();
    },
  };
}
