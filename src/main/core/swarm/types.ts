/**
 * The Swarm primitive's vocabulary (CKP §5.9, §9.3.3) and the one interface its coordination
 * backends implement: `in-process` (one process, tests and single-machine swarms) and `nats`
 * (JetStream work queue, KV discovery, across processes and machines).
 */
import { type ErrorCategory, PincerError } from '../errors.js';

/** A unit of work a leader hands to a worker (`claw.swarm.delegate`). */
export interface SwarmTask {
  /** Unique per task; a redelivered task keeps its id. */
  id: string;
  swarm: string;
  /** The swarm operation it belongs to: a stop for the operation reaches every one of its tasks. */
  operation: string;
  description: string;
  input?: unknown;
  /** The trace the leader's run is in: the worker's run joins it. */
  traceId?: string;
  /** What the worker may spend on it: the swarm's remaining budget when it was sent. */
  budget?: { tokens?: number; costUsd?: number; timeMs?: number };
}

export type ReportStatus = 'completed' | 'failed' | 'partial';

/** A worker's answer to one task (`claw.swarm.report`). */
export interface SwarmReport {
  taskId: string;
  status: ReportStatus;
  /** The worker's reply text (or why it failed). */
  result: string;
  /** The peer that ran it. */
  worker: string;
  tokens: number;
  costUsd: number;
  durationMs: number;
  /** How often the task was delivered before this report (1: first try). */
  attempt: number;
}

/** A swarm member as discovery sees it (`claw.swarm.discover`). */
export interface Peer {
  id: string;
  swarm: string;
  identity: string;
  role: string;
  status: 'ready' | 'busy';
  /** ISO time of its last heartbeat. */
  seenAt: string;
}

/**
 * Runs one task; the signal aborts when the operation is stopped or the worker closes.
 * `traceparent` names the leader's delegation span for the task (NATS: the message header).
 */
export type TaskHandler = (
  task: SwarmTask,
  context: { signal: AbortSignal; attempt: number; traceparent?: string },
) => Promise<Omit<SwarmReport, 'taskId' | 'worker' | 'attempt'>>;

export interface Serving {
  stop(): Promise<void>;
}

export interface DeadLetter {
  task: SwarmTask;
  reason: string;
  at: string;
}

export interface BackendOptions {
  /** A worker that stops acknowledging (crashed) gets its task taken back after this long. */
  ackWaitMs: number;
  /** Deliveries of one task before it is dead-lettered. */
  maxDeliveries: number;
  /** Discovery entries without a heartbeat expire after this long. */
  peerTtlMs: number;
}

export const DEFAULT_BACKEND_OPTIONS: Readonly<BackendOptions> = Object.freeze({
  ackWaitMs: 30_000,
  maxDeliveries: 3,
  peerTtlMs: 15_000,
});

export interface SwarmBackend {
  readonly kind: 'in-process' | 'nats';
  /** Serves tasks of `peer.swarm`, one at a time, until stopped; heartbeats into discovery. */
  serve(peer: Omit<Peer, 'status' | 'seenAt'>, handler: TaskHandler): Promise<Serving>;
  /**
   * Queues a task and waits for its report, or rejects with SwarmError `deadline` past
   * `timeoutMs`. `traceparent` (the delegation span's) travels with the task to its handler.
   */
  delegate(task: SwarmTask, timeoutMs: number, traceparent?: string): Promise<SwarmReport>;
  /** Every serving member of the swarm is told (`claw.swarm.broadcast`). */
  broadcast(swarm: string, message: unknown): Promise<void>;
  /** Tells every member to abort the running tasks of an operation (a swarm limit was reached). */
  stopOperation(swarm: string, operation: string): Promise<void>;
  /** Members seen recently (`claw.swarm.discover`); all swarms when `swarm` is absent. */
  discover(swarm?: string): Promise<Peer[]>;
  deadLetter(task: SwarmTask, reason: string): Promise<void>;
  deadLetters(swarm: string): Promise<DeadLetter[]>;
  /** Listens to broadcasts of a swarm; returns the unsubscribe function. */
  onBroadcast(swarm: string, listener: (message: unknown) => void): () => void;
  close(): Promise<void>;
}

export type SwarmErrorCode =
  | 'deadline'
  | 'limit'
  | 'circuit_open'
  | 'unsupported'
  | 'connection'
  | 'no_workers'
  | 'bad_task';

const CATEGORY: Record<SwarmErrorCode, ErrorCategory> = {
  deadline: 'timeout',
  limit: 'rate_limited',
  circuit_open: 'unavailable',
  unsupported: 'unsupported',
  connection: 'unavailable',
  no_workers: 'unavailable',
  bad_task: 'invalid_request',
};

/** A swarm failure with a code a surface (CLI, CKP server) can map. */
export class SwarmError extends PincerError {
  override readonly name = 'SwarmError';
  constructor(
    readonly code: SwarmErrorCode,
    message: string,
  ) {
    super(CATEGORY[code], message);
  }
}
