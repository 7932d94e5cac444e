/**
 * Which agent a terminal client talks to: the gateway `--attach` names, else the one
 * serving this data directory (gateway.json). With none, the caller opens its own, unless another
 * agent holds the data directory without an answering gateway: a second agent would race it for
 * the store, so that is refused. `pincer tui` and `pincer chat` (both modes) decide here.
 */
import { lockHolder } from '../core/daemon/index.js';
import {
  type CoreLink,
  connectGateway,
  parseGatewayAddress,
  readGatewayFile,
} from '../core/gateway/index.js';
import type { CliContext } from './context.js';

export interface AttachChoice {
  /** The gateway named by the person (its Open URL; token in PINCER_GATEWAY_TOKEN otherwise). */
  attach?: string;
  /** Skip gateway.json (the lock is still honoured). */
  standalone?: boolean;
}

export interface AttachedAgent {
  link: CoreLink;
  /** The process serving it, where gateway.json names it. */
  pid: number | undefined;
}

/**
 * The agent to attach to; undefined: open one here. Throws when the data directory is held by
 * an agent no gateway answers for, and when a named gateway does not answer.
 */
export async function findAgent(
  ctx: CliContext,
  choice: AttachChoice,
): Promise<AttachedAgent | undefined> {
  const attached = await attach(ctx, choice);
  if (attached) return attached;
  // One agent per data directory (the instance lock): the daemon and the desktop app serve a gateway named in
  // gateway.json; one holding the lock without an answering gateway (started with --no-attach,
  // or still starting) is refused.
  const holder = lockHolder(ctx.dataDir);
  if (holder !== undefined) {
    throw new Error(
      `another Pincer agent (pid ${holder}: the daemon or the desktop app) holds this data directory and no gateway of it answers (gateway.json); was it started with --no-attach? Restart it without, stop it, or name a gateway with --attach`,
    );
  }
  return undefined;
}

async function attach(ctx: CliContext, choice: AttachChoice): Promise<AttachedAgent | undefined> {
  if (choice.attach) {
    const { url, token } = parseGatewayAddress(choice.attach, process.env.PINCER_GATEWAY_TOKEN);
    return { link: await connectGateway(url, token), pid: undefined };
  }
  if (choice.standalone) return undefined;
  const running = readGatewayFile(ctx.dataDir);
  if (!running) return undefined;
  try {
    const link = await connectGateway(`ws://127.0.0.1:${running.port}/ipc`, running.token);
    return { link, pid: running.pid };
  } catch {
    return undefined; // it stopped between writing the file and now: open our own
  }
}
