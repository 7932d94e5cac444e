/**
 * Pincer as an A2A client, with the official SDK: a declared remote agent's card is fetched and
 * its JSON-RPC (or REST) interface called, every request through the guarded fetch. The only
 * internal address reachable is the one the person declared (an IP literal or `localhost` in the
 * agent's URL): the card cannot send the calls anywhere else inside the network.
 */
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { type AgentCard, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { guardedFetch } from './fetch.js';
import { stateName } from './states.js';

/** The host grants a declared URL makes: its own address when it is a literal or localhost. */
export function grantsOf(url: string): string[] {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return [isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`];
  if (host === 'localhost') return [`127.0.0.1:${port}`, `[::1]:${port}`];
  return [];
}

/** The agent's card from its base URL (the well-known path) or the card's own URL. */
export async function fetchAgentCard(url: string, signal?: AbortSignal): Promise<AgentCard> {
  const fetchImpl = guardedFetch(grantsOf(url));
  const bounded: typeof fetch = (input, init) => fetchImpl(input, { ...init, signal });
  const resolver = new DefaultAgentCardResolver({ fetchImpl: bounded });
  return new URL(url).pathname.endsWith('.json')
    ? resolver.resolve(url, url)
    : resolver.resolve(url);
}

export interface RemoteAnswer {
  taskId?: string;
  contextId?: string;
  /** The task's state in CKP's words (completed, failed, canceled ...), or `message`. */
  state: string;
  reply: string;
}

export interface AskOptions {
  contextId?: string;
  /** A bearer token for the remote agent. */
  token?: string;
  signal?: AbortSignal;
}

/** Sends one message and waits for the task to end (or the agent's direct message). */
export async function askRemoteAgent(
  url: string,
  text: string,
  options: AskOptions = {},
): Promise<RemoteAnswer> {
  const fetchImpl = guardedFetch(grantsOf(url));
  const card = await fetchAgentCard(url, options.signal);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl }),
        new RestTransportFactory({ fetchImpl }),
      ],
    }),
  );
  const client = await factory.createFromAgentCard(card);
  const result = await client.sendMessage(
    {
      tenant: '',
      message: {
        messageId: randomUUID(),
        contextId: options.contextId ?? '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [
          {
            content: { $case: 'text', value: text },
            metadata: {},
            filename: '',
            mediaType: 'text/plain',
          },
        ],
        metadata: {},
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: {},
    },
    {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.token ? { serviceParameters: { authorization: `Bearer ${options.token}` } } : {}),
    },
  );
  if (!('status' in result)) {
    return {
      contextId: result.contextId || undefined,
      state: 'message',
      reply: partsText(result.parts),
    };
  }
  return answerOf(result);
}

function answerOf(task: Task): RemoteAnswer {
  const artifacts = task.artifacts.map((artifact) => partsText(artifact.parts)).filter(Boolean);
  const status = task.status?.message ? partsText(task.status.message.parts) : '';
  return {
    taskId: task.id,
    contextId: task.contextId,
    state: stateName(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
    reply: artifacts.length ? artifacts.join('\n') : status,
  };
}

export function partsText(parts: readonly Part[]): string {
  return parts
    .map((part) => {
      const content = part.content;
      if (content?.$case === 'text') return content.value;
      if (content?.$case === 'data') return JSON.stringify(content.value);
      if (content?.$case === 'url') return content.value;
      return '';
    })
    .filter(Boolean)
    .join('\n');
}
