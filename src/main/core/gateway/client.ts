/**
 * Two ways to reach the core, both speaking the IPC contract (`PincerApi`): attached to a running
 * gateway over its WebSocket (the same frames and token as the browser UI), or in-process through
 * the same `dispatch` that validates every call of both transports. `pincer tui` uses both; the
 * desktop app attaches to the daemon holding its data directory.
 */

import WebSocket from 'ws';
import {
  type AssistantEvent,
  AssistantEventSchema,
  type ChannelName,
  type IpcResult,
  type PincerApi,
  type RequestOf,
  type ResponseOf,
  unwrapResult,
} from '../../../shared/ipc.js';
import type { ClientFrame, ServerFrame } from '../../../shared/wire.js';
import { PincerError } from '../errors.js';
import { dispatch, type IpcHandlers } from '../ipc/index.js';

export type LinkState = 'in-process' | 'connected' | 'disconnected';

/** The contract plus what a status bar shows about the link. */
export interface CoreLink extends PincerApi {
  /** Where the core lives, for the status bar: "in-process" or the gateway's address. */
  readonly where: string;
  /** One call, its result as the core sent it (a coded error stays a result, not a throw). */
  call(channel: ChannelName, request: unknown): Promise<IpcResult<unknown>>;
  state(): LinkState;
  onStateChange(listener: (state: LinkState) => void): () => void;
  close(): void;
}

export class LinkError extends PincerError {
  constructor(
    readonly code: 'refused' | 'unreachable' | 'bad_address',
    message: string,
  ) {
    super(code === 'bad_address' ? 'invalid_request' : 'unavailable', message);
    this.name = 'LinkError';
  }
}

/** The core in this process: every call still passes the contract's validation. */
export function inProcessLink(
  handlers: IpcHandlers,
  subscribe: (listener: (event: AssistantEvent) => void) => () => void,
): CoreLink {
  return {
    where: 'in-process',
    call: (channel, request) => dispatch(handlers, channel, request),
    async invoke<C extends ChannelName>(channel: C, request: RequestOf<C>) {
      return unwrapResult((await dispatch(handlers, channel, request)) as IpcResult<ResponseOf<C>>);
    },
    subscribe,
    state: () => 'in-process',
    onStateChange: () => () => {},
    close: () => {},
  };
}

/**
 * A gateway address as people have it: the `Open:` URL `pincer gateway` prints
 * (`http://127.0.0.1:PORT/#token=...`), or `ws://127.0.0.1:PORT/ipc` with the token apart.
 */
export function parseGatewayAddress(
  address: string,
  token?: string,
): { url: string; token: string } {
  let parsed: URL;
  try {
    parsed = new URL(address);
  } catch {
    throw new LinkError('bad_address', `not a gateway address: ${address}`);
  }
  const fromFragment = new URLSearchParams(parsed.hash.slice(1)).get('token') ?? undefined;
  const found = token ?? fromFragment;
  if (!found)
    throw new LinkError('bad_address', 'no token: use the Open URL pincer gateway printed');
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) {
    // The gateway listens on loopback only; anything else is a mistake or a lure.
    throw new LinkError('bad_address', `the gateway is on loopback only, not ${parsed.hostname}`);
  }
  return { url: `ws://${parsed.host}/ipc`, token: found };
}

/** Opens the WebSocket, says hello with the token, and resolves once welcomed. */
export function connectGateway(url: string, token: string, timeoutMs = 5000): Promise<CoreLink> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { handshakeTimeout: timeoutMs });
    const pending = new Map<number, (result: IpcResult<unknown>) => void>();
    const listeners = new Set<(event: AssistantEvent) => void>();
    const stateListeners = new Set<(state: LinkState) => void>();
    let state: LinkState = 'disconnected';
    let nextId = 1;
    const send = (frame: ClientFrame) => socket.send(JSON.stringify(frame));
    const call = (channel: ChannelName, request: unknown): Promise<IpcResult<unknown>> => {
      if (state !== 'connected') {
        return Promise.resolve({
          ok: false,
          error: { code: 'internal', message: 'not connected to the gateway' },
        });
      }
      const id = nextId++;
      return new Promise<IpcResult<unknown>>((settle) => {
        pending.set(id, settle);
        send({ type: 'call', id, channel, request });
      });
    };

    socket.on('open', () => send({ type: 'hello', token }));
    socket.on('error', (error) => {
      if (state !== 'connected') reject(new LinkError('unreachable', `${url}: ${error.message}`));
    });
    socket.on('close', (code) => {
      const wasConnected = state === 'connected';
      state = 'disconnected';
      for (const settle of pending.values()) {
        settle({ ok: false, error: { code: 'internal', message: `gateway closed (${code})` } });
      }
      pending.clear();
      if (wasConnected) for (const listener of stateListeners) listener(state);
      else reject(new LinkError('refused', `the gateway refused the connection (${code})`));
    });
    socket.on('message', (data) => {
      let frame: ServerFrame;
      try {
        frame = JSON.parse(data.toString()) as ServerFrame;
      } catch {
        return; // not ours to crash on; the server never sends this
      }
      if (frame.type === 'welcome') {
        state = 'connected';
        resolve({
          where: url.replace(/\/ipc$/, '').replace(/^ws/, 'http'),
          call,
          async invoke<C extends ChannelName>(
            channel: C,
            request: RequestOf<C>,
          ): Promise<ResponseOf<C>> {
            if (state !== 'connected') {
              throw new LinkError('unreachable', 'not connected to the gateway');
            }
            return unwrapResult((await call(channel, request)) as IpcResult<ResponseOf<C>>);
          },
          subscribe(listener) {
            listeners.add(listener);
            return () => listeners.delete(listener);
          },
          state: () => state,
          onStateChange(listener) {
            stateListeners.add(listener);
            return () => stateListeners.delete(listener);
          },
          close: () => socket.close(),
        });
      } else if (frame.type === 'event') {
        // The same schema the server sends with: what does not parse is dropped, not shown.
        const parsed = AssistantEventSchema.safeParse(frame.event);
        if (parsed.success) for (const listener of listeners) listener(parsed.data);
      } else if (frame.type === 'result') {
        pending.get(frame.id)?.(frame.result as IpcResult<unknown>);
        pending.delete(frame.id);
      }
    });
  });
}
