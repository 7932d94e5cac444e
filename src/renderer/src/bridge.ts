import type {
  AssistantEvent,
  ChannelName,
  PincerApi,
  RequestOf,
  ResponseOf,
} from '../../shared/ipc';
import { type IpcResult, unwrapResult } from '../../shared/ipc-result';
import type { ClientFrame, ServerFrame } from '../../shared/wire';

declare global {
  interface Window {
    /** Present when the Electron preload exposed the contract. */
    pincer?: PincerApi;
  }
}

const TOKEN_KEY = 'pincer.gateway.token';

/** Fired on `window` when an established gateway connection closes. */
export const DISCONNECTED_EVENT = 'pincer:disconnected';

/**
 * The transport to the core: Electron's preload when present; otherwise the gateway's WebSocket,
 * authenticated by the token `pincer gateway` printed (it arrives in the URL fragment, is kept
 * for this tab only, and is removed from the address bar at once).
 */
export async function findBridge(): Promise<PincerApi | null> {
  if (window.pincer) return window.pincer;
  const fromHash = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  const token = fromHash ?? sessionStorage.getItem(TOKEN_KEY);
  if (!token) return null;
  try {
    return await connectGateway(`ws://${window.location.host}/ipc`, token);
  } catch {
    sessionStorage.removeItem(TOKEN_KEY);
    return null;
  }
}

/** Opens the WebSocket, says hello with the token, and resolves once welcomed. */
export function connectGateway(url: string, token: string): Promise<PincerApi> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const pending = new Map<number, (result: IpcResult<unknown>) => void>();
    const listeners = new Set<(event: AssistantEvent) => void>();
    let nextId = 1;
    const send = (frame: ClientFrame) => socket.send(JSON.stringify(frame));

    socket.addEventListener('open', () => send({ type: 'hello', token }));
    let welcomed = false;
    socket.addEventListener('close', (event) => {
      if (welcomed) window.dispatchEvent(new Event(DISCONNECTED_EVENT));
      const failure = {
        ok: false as const,
        error: { code: 'internal' as const, message: `gateway closed (${event.code})` },
      };
      for (const settle of pending.values()) settle(failure);
      pending.clear();
      reject(new Error(`gateway refused the connection (${event.code})`));
    });
    socket.addEventListener('message', (event) => {
      const frame = JSON.parse(String(event.data)) as ServerFrame;
      if (frame.type === 'welcome') {
        welcomed = true;
        resolve({
          invoke<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>> {
            const id = nextId++;
            return new Promise((settle) => {
              pending.set(id, (result) => settle(result as IpcResult<ResponseOf<C>>));
              send({ type: 'call', id, channel, request });
            }).then((result) => unwrapResult(result as IpcResult<ResponseOf<C>>));
          },
          subscribe(listener) {
            listeners.add(listener);
            return () => listeners.delete(listener);
          },
        });
      } else if (frame.type === 'event') {
        for (const listener of listeners) listener(frame.event as AssistantEvent);
      } else if (frame.type === 'result') {
        pending.get(frame.id)?.(frame.result as IpcResult<unknown>);
        pending.delete(frame.id);
      }
    });
  });
}
