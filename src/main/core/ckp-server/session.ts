/**
 * One CKP connection (a stdio pair, a WebSocket, the HTTP endpoint): the method table of §9.3
 * with its direction and type rules, the conformance gate of §11, `claw.initialize` first, and
 * heartbeats while the agent is READY. The agent and its lifecycle are the host's; a session
 * only speaks for one peer.
 */
import type { Agent } from '../agent/index.js';
import type { ConformanceLevel } from '../ckp/index.js';
import {
  CKP_ERRORS,
  CKP_PROTOCOL_VERSIONS,
  checkProtocolVersion,
  negotiateProtocolVersion,
  parseSemver,
} from '../ckp/index.js';
import { ckpCodeOf } from '../errors.js';
import type { CkpHost } from './host.js';
import {
  answerFrame,
  type JsonRpcErrorBody,
  type JsonRpcId,
  RpcError,
  type RpcHandler,
} from './jsonrpc.js';
import { compactMemory, queryMemory, storeMemory } from './memory-ops.js';
import {
  approvalParams,
  broadcastParams,
  delegateParams,
  discoverParams,
  emptyParams,
  initializeParams,
  memoryCompactParams,
  memoryQueryParams,
  memoryStoreParams,
  parseParams,
  reportParams,
  shutdownParams,
  toolCallParams,
} from './params.js';
import type { CkpSwarm, CkpTaskReport } from './swarm.js';
import type { ToolCalls } from './tool-calls.js';

const LEVELS: ConformanceLevel[] = ['level-1', 'level-2', 'level-3'];

/** Every method of §9.3: who may send it to the agent, whether it is a request, its level. */
const METHODS: Record<
  string,
  { type: 'request' | 'notification'; level: ConformanceLevel; toAgent: boolean }
> = {
  'claw.initialize': { type: 'request', level: 'level-1', toAgent: true },
  'claw.initialized': { type: 'notification', level: 'level-1', toAgent: true },
  'claw.status': { type: 'request', level: 'level-1', toAgent: true },
  'claw.shutdown': { type: 'request', level: 'level-1', toAgent: true },
  // Agent -> Operator only: the agent sends it, never receives it.
  'claw.heartbeat': { type: 'notification', level: 'level-1', toAgent: false },
  'claw.tool.call': { type: 'request', level: 'level-2', toAgent: true },
  'claw.tool.approve': { type: 'request', level: 'level-2', toAgent: true },
  'claw.tool.deny': { type: 'request', level: 'level-2', toAgent: true },
  'claw.swarm.delegate': { type: 'request', level: 'level-3', toAgent: true },
  'claw.swarm.report': { type: 'request', level: 'level-3', toAgent: true },
  'claw.swarm.broadcast': { type: 'notification', level: 'level-3', toAgent: true },
  'claw.swarm.discover': { type: 'request', level: 'level-3', toAgent: true },
  'claw.memory.query': { type: 'request', level: 'level-3', toAgent: true },
  'claw.memory.store': { type: 'request', level: 'level-3', toAgent: true },
  'claw.memory.compact': { type: 'request', level: 'level-3', toAgent: true },
  // The CKP-A2A profile's task namespace (§6.1): tasks are runs of the agent, hence level 2.
  'claw.task.create': { type: 'request', level: 'level-2', toAgent: true },
  'claw.task.get': { type: 'request', level: 'level-2', toAgent: true },
  'claw.task.list': { type: 'request', level: 'level-2', toAgent: true },
  'claw.task.cancel': { type: 'request', level: 'level-2', toAgent: true },
  'claw.task.subscribe': { type: 'request', level: 'level-2', toAgent: true },
  // Agent -> Operator only: a subscribed task's updates.
  'claw.task.update': { type: 'notification', level: 'level-2', toAgent: false },
};

/** Capability groups (§9.3.1) and the level that brings each. */
const CAPABILITIES: Record<'tools' | 'swarm' | 'memory', ConformanceLevel> = {
  tools: 'level-2',
  swarm: 'level-3',
  memory: 'level-3',
};

/**
 * The `claw.task.*` methods (CKP-A2A profile), answered over the agent's A2A tasks: the same
 * tasks an A2A client of the agent sees. `push` sends a notification to the peer (absent where
 * the transport cannot).
 */
export interface CkpTasks {
  handle(
    agent: Agent,
    method: string,
    params: unknown,
    push?: (frame: string) => void,
  ): Promise<unknown>;
}

export interface SessionServices {
  tools: ToolCalls;
  swarm: CkpSwarm;
  /** Absent: the claw.task.* methods are not served (-32601). */
  tasks?: CkpTasks;
}

export interface CkpSessionOptions {
  host: CkpHost;
  services: SessionServices;
  /** Sends a frame to the peer; absent where the transport cannot push (plain HTTP). */
  push?: (frame: string) => void;
  /** Who answers approvals from this connection, as the audit records it. */
  label: string;
}

export class CkpSession implements RpcHandler {
  private initialized = false;
  private operatorName: string | undefined;
  private initializing: Promise<unknown> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private nextId = 0;
  private readonly stopListening: () => void;
  private readonly outgoing = new Map<
    JsonRpcId,
    (outcome: { result: unknown } | { error: JsonRpcErrorBody }) => void
  >();

  constructor(private readonly options: CkpSessionOptions) {
    this.stopListening = options.host.onState((state) => {
      if (state === 'READY' && this.initialized) this.startHeartbeat();
      else this.stopHeartbeat();
    });
  }

  /** The declared conformance level of the served manifest (level-1 when it meets none). */
  get level(): ConformanceLevel {
    return this.options.host.claw.conformance.level ?? 'level-1';
  }

  /** Answers one frame from the peer; undefined when nothing is to be sent back. */
  receive(frame: string): Promise<string | undefined> {
    return answerFrame(frame, this);
  }

  close(): void {
    this.stopHeartbeat();
    this.stopListening();
    for (const settle of this.outgoing.values())
      settle({ error: { code: CKP_ERRORS.internalError, message: 'the connection closed' } });
    this.outgoing.clear();
  }

  async request(method: string, params: unknown): Promise<unknown> {
    // Nothing else is processed before claw.initialize is answered: a pipelined request waits.
    if (method !== 'claw.initialize') await this.initializing?.catch(() => undefined);
    this.admit(method, 'request');
    if (method !== 'claw.initialize') return this.handle(method, params);
    const initializing = this.handle(method, params);
    this.initializing = initializing;
    try {
      return await initializing;
    } finally {
      if (this.initializing === initializing) this.initializing = undefined;
    }
  }

  notification(method: string, params: unknown): void {
    const known = METHODS[method];
    if (!known?.toAgent || known.type !== 'notification' || !this.allowedAtLevel(method)) return;
    if (method === 'claw.initialized' || !this.initialized) return;
    if (method === 'claw.swarm.broadcast') {
      const agent = this.options.host.ready();
      const parsed = broadcastParams.safeParse(params ?? {});
      // A notification has no answer: a broadcast the backend cannot send is dropped.
      if (agent && parsed.success)
        void Promise.resolve(
          this.options.services.swarm.broadcast(agent, parsed.data.swarm, parsed.data.message),
        ).catch(() => undefined);
    }
  }

  response(id: JsonRpcId, outcome: { result: unknown } | { error: JsonRpcErrorBody }): void {
    const settle = this.outgoing.get(id);
    if (!settle) return;
    this.outgoing.delete(id);
    settle(outcome);
  }

  /** Sends a request to the peer (a swarm report); resolves with its answer. */
  call(
    method: string,
    params: unknown,
  ): Promise<{ result: unknown } | { error: JsonRpcErrorBody }> {
    const push = this.options.push;
    if (!push)
      return Promise.resolve({
        error: { code: CKP_ERRORS.internalError, message: 'this transport cannot send requests' },
      });
    const id = `pincer-${++this.nextId}`;
    return new Promise((resolve) => {
      this.outgoing.set(id, resolve);
      push(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** Method known, sent the way its type says, within the level, after initialize. */
  private admit(method: string, as: 'request' | 'notification'): void {
    const known = METHODS[method];
    if (!known?.toAgent) {
      throw new RpcError(CKP_ERRORS.methodNotFound, `Method not found: ${method}`, {
        method,
        ...(known ? { reason: 'the agent sends this method; it does not receive it' } : {}),
      });
    }
    if (!this.allowedAtLevel(method)) {
      throw new RpcError(CKP_ERRORS.methodNotFound, `Method not found: ${method}`, {
        method,
        conformanceLevel: this.level,
        requires: known.level,
      });
    }
    if (known.type !== as) {
      throw new RpcError(
        CKP_ERRORS.invalidRequest,
        `Invalid request: ${method} is a ${known.type}`,
        {
          method,
          type: known.type,
        },
      );
    }
    if (method !== 'claw.initialize' && !this.initialized) {
      throw new RpcError(
        CKP_ERRORS.invalidRequest,
        'Invalid request: claw.initialize must come first',
        {
          method,
          state: this.options.host.state,
        },
      );
    }
  }

  private allowedAtLevel(method: string): boolean {
    const known = METHODS[method];
    return !!known && LEVELS.indexOf(known.level) <= LEVELS.indexOf(this.level);
  }

  private async handle(method: string, params: unknown): Promise<unknown> {
    const { host, services } = this.options;
    switch (method) {
      case 'claw.initialize':
        return this.initialize(parseParams(initializeParams, params, method));
      case 'claw.status':
        parseParams(emptyParams, params, method);
        return { state: host.state, uptime_ms: host.uptimeMs };
      case 'claw.shutdown': {
        const p = parseParams(shutdownParams, params, method);
        this.stopHeartbeat();
        return host.stop(p.timeout_ms);
      }
    }
    if (method.startsWith('claw.task.') && !services.tasks)
      throw new RpcError(CKP_ERRORS.methodNotFound, `Method not found: ${method}`, {
        method,
        reason: 'this server serves no A2A tasks',
      });
    const agent = this.readyAgent(method);
    if (method.startsWith('claw.task.') && services.tasks)
      return host.track(services.tasks.handle(agent, method, params, this.options.push));
    switch (method) {
      case 'claw.tool.call': {
        const p = parseParams(toolCallParams, params, method);
        return host.once(
          method,
          p.context.request_id,
          p,
          () => services.tools.call(agent, p.name, p.arguments, p.context.request_id, host.signal),
          () => reused(p.context.request_id),
        );
      }
      case 'claw.tool.approve':
      case 'claw.tool.deny': {
        const p = parseParams(approvalParams, params, method);
        const approve = method === 'claw.tool.approve';
        return {
          acknowledged: services.tools.answer(agent, p.request_id, approve, this.answeredBy),
        };
      }
      case 'claw.swarm.delegate': {
        const p = parseParams(delegateParams, params, method);
        return host.once(
          method,
          p.context.request_id,
          p,
          async () =>
            services.swarm.delegate(
              agent,
              { task_id: p.task_id, task: p.task, swarm: p.context.swarm },
              (report) => void this.report(report),
              (work) => void host.track(work),
              host.signal,
            ),
          () => reused(p.context.request_id),
        );
      }
      case 'claw.swarm.report':
        return services.swarm.report(parseParams(reportParams, params, method) as CkpTaskReport);
      case 'claw.swarm.discover':
        return services.swarm.discover(agent, parseParams(discoverParams, params, method).swarm);
      case 'claw.memory.query': {
        const p = parseParams(memoryQueryParams, params, method);
        return { entries: await host.track(queryMemory(agent, p.store, p.query)) };
      }
      case 'claw.memory.store': {
        const p = parseParams(memoryStoreParams, params, method);
        return host.once(
          method,
          p.context.request_id,
          p,
          () => storeMemory(agent, p.store, p.entries),
          () => reused(p.context.request_id),
        );
      }
      case 'claw.memory.compact':
        return await compactMemory(agent, parseParams(memoryCompactParams, params, method).store);
    }
    throw new RpcError(CKP_ERRORS.methodNotFound, `Method not found: ${method}`, { method });
  }

  private async initialize(p: (typeof initializeParams)['_output']): Promise<unknown> {
    const { host } = this.options;
    const requested = parseSemver(p.protocolVersion);
    if (!requested) {
      throw new RpcError(
        CKP_ERRORS.invalidParams,
        'Invalid params: protocolVersion is not a semver string',
        {
          protocolVersion: p.protocolVersion,
        },
      );
    }
    // The answer is the newest version implemented that is not above what the operator asked.
    const negotiated = negotiateProtocolVersion(p.protocolVersion);
    if (!negotiated) {
      throw new RpcError(CKP_ERRORS.versionNotSupported, 'Protocol version not supported', {
        supported: [...CKP_PROTOCOL_VERSIONS],
      });
    }
    this.checkManifest(p.manifest);
    if (host.state === 'STOPPING') {
      throw new RpcError(CKP_ERRORS.invalidRequest, 'Invalid request: the agent is stopping', {
        state: host.state,
      });
    }
    try {
      await host.start();
    } catch (error) {
      const code = ckpCodeOf(error);
      throw new RpcError(
        code === CKP_ERRORS.sandboxDenied ? code : CKP_ERRORS.internalError,
        `The agent could not start: ${error instanceof Error ? error.message : String(error)}`,
        { state: host.state },
      );
    }
    this.initialized = true;
    this.startHeartbeat();
    const granted = Object.fromEntries(
      (Object.keys(CAPABILITIES) as Array<keyof typeof CAPABILITIES>)
        .filter((group) => p.capabilities[group] !== undefined)
        .filter((group) => LEVELS.indexOf(CAPABILITIES[group]) <= LEVELS.indexOf(this.level))
        .map((group) => [group, {}]),
    );
    return {
      protocolVersion: negotiated,
      agentInfo: { name: host.claw.identity.name, version: host.claw.version },
      conformanceLevel: this.level,
      capabilities: granted,
    };
  }

  /**
   * The operator's manifest (§9.3.1) is checked for shape and protocol version, never loaded in
   * place of the served one: the served manifest stays the agent (`agentInfo` comes from its
   * Identity), and the operator's name, which may differ (a harness sends its own), is recorded
   * with the session and in the audit's label for approvals answered from it.
   */
  private checkManifest(sent: string | Record<string, unknown>): void {
    const served = this.options.host.claw;
    const read = readOperatorManifest(sent);
    if ('problem' in read) {
      throw new RpcError(CKP_ERRORS.invalidParams, `Invalid params: ${read.problem}`, {
        served: { name: served.name, version: served.version, protocol: served.protocol },
      });
    }
    this.operatorName = read.name;
  }

  /** The name in the operator's manifest from the last accepted claw.initialize. */
  get operator(): string | undefined {
    return this.operatorName;
  }

  /** Who answered, as the audit records it: the connection, and the operator it named. */
  private get answeredBy(): string {
    return this.operatorName
      ? `${this.options.label} (operator ${this.operatorName})`
      : this.options.label;
  }

  private readyAgent(method: string): Agent {
    const agent = this.options.host.ready();
    if (!agent) {
      throw new RpcError(
        CKP_ERRORS.invalidRequest,
        `Invalid request: the agent is ${this.options.host.state}`,
        {
          method,
          state: this.options.host.state,
        },
      );
    }
    return agent;
  }

  private async report(report: CkpTaskReport): Promise<void> {
    await this.call('claw.swarm.report', report);
  }

  private startHeartbeat(): void {
    const { host, push } = this.options;
    if (!push || this.heartbeat || host.state !== 'READY') return;
    this.heartbeat = setInterval(() => {
      if (host.state !== 'READY') return this.stopHeartbeat();
      push(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'claw.heartbeat',
          params: {
            state: host.state,
            uptime_ms: host.uptimeMs,
            timestamp: new Date().toISOString(),
          },
        }),
      );
    }, host.heartbeatMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}

function reused(requestId: string): RpcError {
  return new RpcError(
    CKP_ERRORS.invalidParams,
    'Invalid params: request_id was already used with other params',
    {
      request_id: requestId,
    },
  );
}

/** A manifest reference (`name`, `.../name@version`) or inline manifest, and the name it gives. */
function readOperatorManifest(
  sent: string | Record<string, unknown>,
): { name: string } | { problem: string } {
  if (typeof sent === 'string') {
    const name = sent
      .slice(sent.lastIndexOf('/') + 1)
      .split('@')[0]
      ?.trim();
    return name ? { name } : { problem: `the manifest reference "${sent}" names no agent` };
  }
  if (sent.kind !== undefined && sent.kind !== 'Claw')
    return { problem: 'the manifest is not of kind Claw' };
  const metadata = sent.metadata as Record<string, unknown> | undefined;
  if (typeof metadata?.name !== 'string' || metadata.name.trim() === '')
    return { problem: 'the manifest has no metadata.name' };
  if (
    sent.claw !== undefined &&
    (typeof sent.claw !== 'string' || !checkProtocolVersion(sent.claw).ok)
  )
    return {
      problem: `the manifest's protocol ${String(sent.claw)} is not one this runtime reads`,
    };
  return { name: metadata.name };
}
