/**
 * A CKP peer for tests: sends JSON-RPC frames over any transport and matches answers by id.
 * Requests the agent sends (a swarm report) are collected and answered by `onRequest`.
 */
export interface RpcAnswer {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

export interface RpcIncoming {
  jsonrpc: '2.0';
  id?: string | number;
  method: string;
  params?: Record<string, unknown>;
}

export class CkpPeer {
  readonly notifications: RpcIncoming[] = [];
  readonly requests: RpcIncoming[] = [];
  /** Frames that are not JSON-RPC: on stdio there must never be any. */
  readonly stray: string[] = [];
  private readonly waiting = new Map<string | number | null, (answer: RpcAnswer) => void>();
  private readonly watchers = new Set<() => void>();
  private next = 0;
  private readonly batches: Array<(answers: RpcAnswer[]) => void> = [];
  onRequest: (request: RpcIncoming) => unknown = () => ({ acknowledged: true });

  constructor(private readonly sendFrame: (frame: string) => void) {}

  /** Feed every frame the agent sends. */
  receive(frame: string): void {
    let message: unknown;
    try {
      message = JSON.parse(frame);
    } catch {
      this.stray.push(frame);
      return;
    }
    const batchWaiter = Array.isArray(message) ? this.batches.shift() : undefined;
    if (batchWaiter) {
      batchWaiter(message as RpcAnswer[]);
      return;
    }
    for (const one of Array.isArray(message) ? message : [message]) this.take(one);
    for (const watch of this.watchers) watch();
  }

  private take(message: RpcAnswer & RpcIncoming): void {
    if (typeof message?.method === 'string') {
      if (message.id === undefined) this.notifications.push(message);
      else {
        this.requests.push(message);
        this.sendFrame(
          JSON.stringify({ jsonrpc: '2.0', id: message.id, result: this.onRequest(message) }),
        );
      }
      return;
    }
    const settle = this.waiting.get(message.id);
    if (settle) {
      this.waiting.delete(message.id);
      settle(message);
    } else this.stray.push(JSON.stringify(message));
  }

  request(method: string, params?: unknown): Promise<RpcAnswer> {
    const id = `t${++this.next}`;
    const answer = new Promise<RpcAnswer>((resolve) => this.waiting.set(id, resolve));
    this.sendFrame(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return answer;
  }

  /** Sends a batch; resolves with the array answered for it. */
  batch(members: unknown[]): Promise<RpcAnswer[]> {
    const answer = new Promise<RpcAnswer[]>((resolve) => this.batches.push(resolve));
    this.sendFrame(JSON.stringify(members));
    return answer;
  }

  notify(method: string, params?: unknown): void {
    this.sendFrame(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  /** Sends a raw frame whose answer (if any) carries `id`. */
  raw(frame: string, id: string | number | null): Promise<RpcAnswer> {
    const answer = new Promise<RpcAnswer>((resolve) => this.waiting.set(id, resolve));
    this.sendFrame(frame);
    return answer;
  }

  /** Resolves once `check` holds after some frame arrived (the test timeout catches a hang). */
  until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => {
      const watch = () => {
        if (!check()) return;
        this.watchers.delete(watch);
        resolve();
      };
      this.watchers.add(watch);
    });
  }

  initialize(extra: Record<string, unknown> = {}, name = 'served'): Promise<RpcAnswer> {
    return this.request('claw.initialize', {
      protocolVersion: '0.2.0',
      clientInfo: { name: 'test-operator', version: '1.0.0' },
      manifest: { kind: 'Claw', metadata: { name } },
      capabilities: { tools: {}, swarm: {}, memory: {} },
      ...extra,
    });
  }

  call(name: string, args: Record<string, unknown>, requestId: string): Promise<RpcAnswer> {
    return this.request('claw.tool.call', {
      name,
      arguments: args,
      context: { request_id: requestId, identity: 'test-operator' },
    });
  }
}
