/**
 * The served agent's CKP lifecycle (§8): INIT -> STARTING -> READY -> STOPPING -> STOPPED, and
 * ERROR when starting fails. The agent itself comes from the composition root through `open`
 * (the surface binds its options); STARTING opens it, STOPPING drains what is in flight and
 * closes it, and a stopped agent can be started again. One host serves every connection of a
 * server: the lifecycle, in-flight work and idempotency records are the agent's, not a socket's.
 *
 * A host may serve an agent it does not own (`ownsAgent: false`: the daemon's, shared with its
 * channels): then STOPPING drains and cancels only the work this host started (through `signal`)
 * and leaves the agent open; STARTING takes it again from `open`.
 */
import type { Result } from '../../../shared/result.js';
import type { Agent } from '../agent/index.js';
import type { ResolvedClaw } from '../ckp/index.js';

export type LifecycleState = 'INIT' | 'STARTING' | 'READY' | 'STOPPING' | 'STOPPED' | 'ERROR';

/** §8 "Lifecycle Events": one per transition. */
export interface LifecycleEvent {
  claw: string;
  event: 'lifecycle.transition';
  timestamp: string;
  agent: string;
  from: LifecycleState;
  to: LifecycleState;
  duration_ms: number;
  details?: Record<string, unknown>;
}

export interface CkpHostOptions {
  /** The served manifest: it alone defines the agent, its conformance level and its limits. */
  claw: ResolvedClaw;
  /** Opens the agent through the composition root. */
  open: () => Promise<Agent>;
  /** Heartbeat interval; else the manifest's `heartbeat_interval_ms` annotation, else 30 s. */
  heartbeatMs?: number;
  /** How long `claw.shutdown` drains when the request gives no `timeout_ms`. */
  drainMs?: number;
  onLifecycle?: (event: LifecycleEvent) => void;
  /**
   * Whether STOPPING closes the agent (default true). False when the agent belongs to another
   * surface: `claw.shutdown` then stops serving it over CKP without stopping the agent.
   */
  ownsAgent?: boolean;
}

export const DEFAULT_HEARTBEAT_MS = 30_000;
const DEFAULT_DRAIN_MS = 30_000;
/** After a drain gives up, how long cancelled work may take to record its end. */
const CANCEL_GRACE_MS = 5_000;
/** Finished idempotent requests kept for replay (oldest forgotten first). */
const REMEMBERED = 1_000;

/** A remembered request's end: its value, or whatever it threw (replayed as thrown). */
type Outcome = Result<unknown, unknown>;

export class CkpHost {
  private current: LifecycleState = 'INIT';
  private since = performance.now();
  private readyAt = 0;
  private agent: Agent | undefined;
  private starting: Promise<Agent> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Aborted when a stop gives up draining; renewed when the agent is READY again. */
  private work = new AbortController();
  private readonly listeners = new Set<(state: LifecycleState) => void>();
  /** Idempotent requests by method and request id: the params' fingerprint and the outcome. */
  private readonly remembered = new Map<
    string,
    { fingerprint: string; outcome: Promise<Outcome> }
  >();
  readonly heartbeatMs: number;

  constructor(private readonly options: CkpHostOptions) {
    this.heartbeatMs =
      options.heartbeatMs ?? annotatedHeartbeat(options.claw) ?? DEFAULT_HEARTBEAT_MS;
  }

  get claw(): ResolvedClaw {
    return this.options.claw;
  }

  get state(): LifecycleState {
    return this.current;
  }

  /** Milliseconds since the agent became READY (0 before). */
  get uptimeMs(): number {
    return this.readyAt ? Math.round(performance.now() - this.readyAt) : 0;
  }

  /**
   * The signal work started through this host runs under: aborted when `claw.shutdown` (or the
   * server stopping) gives up draining, so an agent this host does not own keeps nothing it
   * started running.
   */
  get signal(): AbortSignal {
    return this.work.signal;
  }

  onState(listener: (state: LifecycleState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The READY agent; undefined in any other state. */
  ready(): Agent | undefined {
    return this.current === 'READY' ? this.agent : undefined;
  }

  /** Opens the agent unless it is READY already; concurrent callers share one opening. */
  async start(): Promise<Agent> {
    if (this.current === 'READY' && this.agent) return this.agent;
    if (this.starting) return this.starting;
    if (this.current === 'STOPPING') throw new Error('the agent is stopping');
    this.go('STARTING');
    this.starting = (async () => {
      try {
        const agent = await this.options.open();
        this.agent = agent;
        if (this.work.signal.aborted) this.work = new AbortController();
        this.readyAt = performance.now();
        this.go('READY', {
          tools_loaded: agent.registry.list().length,
          skills_loaded: this.options.claw.skills.length,
          providers_connected: this.options.claw.providers.length,
          memory_stores_initialized: this.options.claw.memory?.spec.stores.length ?? 0,
        });
        return agent;
      } catch (error) {
        this.go('ERROR', { error: error instanceof Error ? error.message : String(error) });
        throw error;
      } finally {
        this.starting = undefined;
      }
    })();
    return this.starting;
  }

  /**
   * STOPPING: waits up to `timeoutMs` for in-flight work, then cancels what is still running
   * (the host's `signal`) and closes the agent unless another surface owns it, and is STOPPED.
   * `drained` tells whether everything finished.
   */
  async stop(timeoutMs = this.options.drainMs ?? DEFAULT_DRAIN_MS): Promise<{ drained: boolean }> {
    if (this.current !== 'READY' && this.current !== 'ERROR')
      return { drained: this.inFlight.size === 0 };
    this.go('STOPPING');
    const drained = await settleWithin([...this.inFlight], timeoutMs);
    if (!drained) {
      this.work.abort();
      await settleWithin([...this.inFlight], CANCEL_GRACE_MS);
    }
    const agent = this.agent;
    this.agent = undefined;
    this.readyAt = 0;
    if (this.options.ownsAgent !== false) await agent?.close();
    this.remembered.clear();
    this.go('STOPPED', { drained });
    return { drained };
  }

  /** Counts `work` as in flight until it settles (shutdown drains these). */
  track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return work;
  }

  /**
   * Runs `work` once per method and request id: a repeat (while running or after) gets the same
   * outcome without running again; the same id with other params is refused by `conflict`.
   */
  once<T>(
    method: string,
    requestId: string,
    params: unknown,
    work: () => Promise<T>,
    conflict: () => Error,
  ): Promise<T> {
    const key = `${method}\u0000${requestId}`;
    const fingerprint = JSON.stringify(params);
    const known = this.remembered.get(key);
    if (known) {
      if (known.fingerprint !== fingerprint) return Promise.reject(conflict());
      return known.outcome.then(unwrap<T>);
    }
    const outcome = this.track(work()).then(
      (value): Outcome => ({ ok: true, value }),
      (error): Outcome => ({ ok: false, error }),
    );
    this.remembered.set(key, { fingerprint, outcome });
    if (this.remembered.size > REMEMBERED) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
    return outcome.then(unwrap<T>);
  }

  private go(to: LifecycleState, details?: Record<string, unknown>): void {
    const from = this.current;
    const now = performance.now();
    this.current = to;
    this.options.onLifecycle?.({
      claw: this.options.claw.protocol,
      event: 'lifecycle.transition',
      timestamp: new Date().toISOString(),
      agent: this.options.claw.name,
      from,
      to,
      duration_ms: Math.round(now - this.since),
      ...(details ? { details } : {}),
    });
    this.since = now;
    for (const listener of this.listeners) listener(to);
  }
}

function unwrap<T>(outcome: Outcome): T {
  if (outcome.ok) return outcome.value as T;
  throw outcome.error;
}

/** Whether every promise settled within `ms`. */
async function settleWithin(work: Promise<unknown>[], ms: number): Promise<boolean> {
  if (work.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const all = Promise.allSettled(work).then(() => true as const);
  try {
    return await Promise.race([all, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** §9.3.1: `metadata.annotations.heartbeat_interval_ms`, when it is a positive integer. */
function annotatedHeartbeat(claw: ResolvedClaw): number | undefined {
  const value = claw.annotations.heartbeat_interval_ms;
  const ms = typeof value === 'string' ? Number(value) : value;
  return typeof ms === 'number' && Number.isInteger(ms) && ms > 0 ? ms : undefined;
}
