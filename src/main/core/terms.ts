/**
 * The runtime's vocabulary, as the seeds agree on it (001 §2): a Task is what the user wants, a
 * Run is one execution of it, a Run is made of Steps (one model call, or one round of tool
 * calls), each Step takes an Action, and a Trace ties everything one request caused together.
 */
import { randomUUID } from 'node:crypto';
import type { ToolCall, Usage } from '../../shared/messages.js';

export type TaskId = string & { readonly __kind: 'TaskId' };
export type RunId = string & { readonly __kind: 'RunId' };
export type StepId = string & { readonly __kind: 'StepId' };
export type TraceId = string & { readonly __kind: 'TraceId' };
export type SessionId = string & { readonly __kind: 'SessionId' };
export type MessageId = string & { readonly __kind: 'MessageId' };

let lastMs = 0;
let serial = 0;

/**
 * Time-ordered ids: a millisecond prefix, then a per-process counter (so ids made in the same
 * millisecond still sort in creation order), then randomness. Rows sort by id = by creation.
 */
export function newId<T extends string>(prefix: string): T {
  const ms = Date.now();
  serial = ms === lastMs ? serial + 1 : 0;
  lastMs = ms;
  const time = ms.toString(36).padStart(9, '0');
  const count = serial.toString(36).padStart(4, '0');
  return `${prefix}_${time}${count}${randomUUID().replaceAll('-', '').slice(0, 8)}` as T;
}

/**
 * Where a run came from when no person started it at a window or terminal: the channel that
 * received the message (or the schedule that fired), and who sent it. Recorded with the run, in
 * its `run.started` event and the audit, so every view can say where a run came from; the
 * policy reads `role` (a viewer triggers no tool).
 */
export interface RunOrigin {
  /** The channel's name in the manifest. */
  channel: string;
  /** Its type: telegram, webhook, cron, queue ... */
  type: string;
  /** The platform's id of the sender (a Telegram user id); absent for schedules. */
  userId?: string;
  /** The conversation on the platform (a Telegram chat id). */
  chatId?: string;
  /** The cron expression that fired. */
  schedule?: string;
  /** The queue (NATS subject) a message was consumed from. */
  queue?: string;
  /** That message's identity in its stream: a delivery of it again finds this run. */
  message?: string;
  role?: 'admin' | 'user' | 'viewer';
}

export interface Task {
  id: TaskId;
  sessionId: SessionId;
  /** The user's words that created the task. */
  goal: string;
}

export type Action =
  | { kind: 'respond'; text: string }
  | { kind: 'tool_call'; calls: ToolCall[] }
  | { kind: 'finish'; reason: RunOutcome };

export type StepKind = 'model' | 'tools';

/** How a run ended. */
export type RunOutcome =
  | 'completed'
  | 'cancelled'
  | 'max_turns'
  | 'max_tokens'
  | 'max_cost'
  | 'repeated_tool_call'
  | 'run_timeout'
  | 'turn_timeout'
  | 'model_error'
  | 'denied'
  | 'interrupted';

/**
 * What a policy decision lets a tool call touch; ends with the run. The policy fills these in,
 * the sandbox enforces them.
 */
export interface CapabilityGrant {
  scope: 'task' | 'step' | 'resource';
  tool: string;
  paths?: string[];
  hosts?: string[];
  commands?: string[];
  expiresWith: RunId;
}

export interface RunTotals {
  usage: Usage;
  costUsd: number;
  turns: number;
  toolCalls: number;
}
