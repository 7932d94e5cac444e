/**
 * The attach point of an agent that already holds a data directory (the daemon, the desktop app):
 * the IPC contract's WebSocket on 127.0.0.1 with a fresh per-launch token, named in
 * `gateway.json` so `pincer tui` on the same data directory attaches instead of refusing. The
 * token lives only in that user-only file and in memory; it is never logged.
 */
import type { Agent, ModelChoice } from '../agent/index.js';
import { type Assistant, assistantOver } from '../assistant/index.js';
import type { LiveChannels } from '../channels/index.js';
import { writeGatewayFile } from './gateway-file.js';
import { type Gateway, startAssistantGateway } from './server.js';

export interface AttachPoint {
  gateway: Gateway;
  /** Removes gateway.json (if still ours), then stops the gateway. */
  close(): Promise<void>;
}

export async function serveAttachPoint(options: {
  assistant: Assistant;
  dataDir: string;
  /** The built renderer, if any; a missing one only makes the browser UI answer 404. */
  rendererDir: string;
  onError?: (error: Error) => void;
}): Promise<AttachPoint> {
  const gateway = await startAssistantGateway({
    assistant: options.assistant,
    rendererDir: options.rendererDir,
    port: 0,
    onError: options.onError,
  });
  let removeFile: () => void;
  try {
    removeFile = writeGatewayFile(options.dataDir, {
      pid: process.pid,
      port: gateway.port,
      token: gateway.token,
    });
  } catch (error) {
    await gateway.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    gateway,
    close() {
      closing ??= (async () => {
        // The file first: a dashboard starting now must not find a gateway that is going away.
        removeFile();
        await gateway.close();
      })();
      return closing;
    },
  };
}

/** The attach point over an agent that has no assistant yet (the daemon's). */
export interface AgentAttachPoint extends AttachPoint {
  /** Releases the assistant made over the agent, and with it the agent: the owner's last step. */
  closeWithAgent(): Promise<void>;
}

export async function serveAgentAttachPoint(
  agent: Agent,
  options: {
    model: ModelChoice;
    dataDir: string;
    rendererDir: string;
    /** The channels the owner serves on this agent (the daemon's), shown to what attaches. */
    live?: LiveChannels;
    onError?: (error: Error) => void;
  },
): Promise<AgentAttachPoint> {
  // A dashboard sees and drives this same agent's sessions and runs.
  const assistant = await assistantOver(agent, options.model);
  if (options.live) assistant.channels.connect(options.live);
  let point: AttachPoint;
  try {
    point = await serveAttachPoint({ ...options, assistant });
  } catch (error) {
    await assistant.close();
    throw error;
  }
  return {
    ...point,
    async closeWithAgent() {
      await point.close();
      await assistant.close();
    },
  };
}
