/**
 * The served agent's A2A tasks: one request handler of the official SDK (its task store, event
 * buses, push configs) over the agent, shared by the A2A listener and CKP's `claw.task.*`
 * (CKP-A2A profile §6), so a task created on either surface is read, listed, followed and
 * cancelled on both. Task runs have the A2A origin; an approval one of them asks for is denied
 * when nobody is there to answer it (`nobodyThere`), as for every remote surface.
 */

import { randomUUID } from 'node:crypto';
import {
  type AgentCard,
  type Message,
  type Part,
  Role,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import {
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import {
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  ServerCallContext,
  type User,
} from '@a2a-js/sdk/server';
import { z } from 'zod';
import { stateName } from '../a2a/index.js';
import type { Agent } from '../agent/index.js';
import type { ResolvedClaw } from '../ckp/index.js';
import { CKP_ERRORS } from '../ckp/index.js';
import { type CkpTasks, RpcError } from '../ckp-server/index.js';
import type { RunId, RunOrigin } from '../terms.js';
import { agentCardOf } from './card.js';
import { AgentTaskExecutor } from './executor.js';
import { GuardedPushSender } from './push.js';

/** Where A2A clients' runs come from: remote, so nobody's silence approves anything. */
export const A2A_ORIGIN: RunOrigin = { channel: 'a2a', type: 'a2a' };

/** Whoever holds the bearer token: one caller, so both surfaces see the same tasks. */
class Operator implements User {
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return 'operator';
  }
}
const OPERATOR = new Operator();

/** A call context of the one operator (the SDK scopes tasks by user). */
export function operatorContext(
  options: {
    requestedVersion?: string;
    headers?: Record<string, string | string[] | undefined>;
  } = {},
): ServerCallContext {
  return new ServerCallContext({
    user: OPERATOR,
    ...(options.requestedVersion ? { requestedVersion: options.requestedVersion } : {}),
    state: new Map([['headers', options.headers ?? {}]]),
  });
}

export interface A2aTasksOptions {
  claw: ResolvedClaw;
  /** Host grants a push notification URL may reach besides public addresses. */
  pushGrants?: readonly string[];
  /** Whether anyone could answer an approval now (none: a task's approval is denied at once). */
  nobodyThere?: () => boolean;
  log?: (line: string) => void;
}

interface Served {
  handler: DefaultRequestHandler;
  executor: AgentTaskExecutor;
  stopApprovals: () => void;
}

export class A2aTasks implements CkpTasks {
  /** The card the handler answers with; the listener adds its interfaces once it listens. */
  readonly card: AgentCard;
  private readonly served = new Map<Agent, Served>();

  constructor(private readonly options: A2aTasksOptions) {
    this.card = agentCardOf(options.claw, { interfaces: [], push: true });
  }

  /** The request handler over `agent`, made on first use. */
  handlerFor(agent: Agent): DefaultRequestHandler {
    return this.servedFor(agent).handler;
  }

  /** Whether a run is one of the tasks' (or a sub-agent of one). */
  owns(runId: RunId): boolean {
    for (const served of this.served.values()) if (served.executor.owns(runId)) return true;
    return false;
  }

  inFlight(): number {
    let count = 0;
    for (const served of this.served.values()) count += served.executor.inFlight();
    return count;
  }

  cancelAll(): void {
    for (const served of this.served.values()) served.executor.cancelAll();
  }

  close(): void {
    this.cancelAll();
    for (const served of this.served.values()) served.stopApprovals();
    this.served.clear();
  }

  private servedFor(agent: Agent): Served {
    const known = this.served.get(agent);
    if (known) return known;
    const executor = new AgentTaskExecutor(agent, A2A_ORIGIN);
    const pushStore = new InMemoryPushNotificationStore();
    const handler = new DefaultRequestHandler(
      this.card,
      new InMemoryTaskStore(),
      executor,
      undefined,
      pushStore,
      new GuardedPushSender(pushStore, this.options.pushGrants ?? [], this.options.log),
    );
    const { broker } = agent.governance;
    const nobodyThere = this.options.nobodyThere ?? (() => true);
    const stopApprovals = broker.onRequest((pending) => {
      // Surfaces of this process answer first; then a task's approval with nobody there is no.
      setImmediate(() => {
        if (!executor.owns(pending.runId) || !nobodyThere()) return;
        broker.resolve(pending.id, 'deny', 'a2a: nobody is attached to approve');
      });
    });
    const served = { handler, executor, stopApprovals };
    this.served.set(agent, served);
    return served;
  }

  /** `claw.task.*` (CKP-A2A profile §6.1) over the same handler. */
  async handle(
    agent: Agent,
    method: string,
    params: unknown,
    push?: (frame: string) => void,
  ): Promise<unknown> {
    const handler = this.handlerFor(agent);
    const context = operatorContext();
    try {
      switch (method) {
        case 'claw.task.create': {
          const p = parse(createParams, params, method);
          const result = await handler.sendMessage(
            {
              tenant: '',
              message: {
                messageId: randomUUID(),
                contextId: p.message.context_id ?? '',
                taskId: p.message.task_id ?? '',
                role: Role.ROLE_USER,
                parts: p.message.parts.map(a2aPart),
                metadata: {},
                extensions: [],
                referenceTaskIds: [],
              },
              configuration: {
                acceptedOutputModes: [],
                taskPushNotificationConfig: undefined,
                returnImmediately: p.wait !== true,
              },
              metadata: {},
            },
            context,
          );
          return 'status' in result ? { task: ckpTask(result) } : { message: ckpMessage(result) };
        }
        case 'claw.task.get': {
          const p = parse(getParams, params, method);
          return {
            task: ckpTask(
              await handler.getTask(
                { tenant: '', id: p.task_id, historyLength: p.history_length },
                context,
              ),
            ),
          };
        }
        case 'claw.task.list': {
          const p = parse(listParams, params, method);
          const listed = await handler.listTasks(
            {
              tenant: '',
              contextId: p.context_id ?? '',
              status: p.status ? STATES[p.status] : TaskState.TASK_STATE_UNSPECIFIED,
              pageSize: p.page_size,
              pageToken: p.page_token ?? '',
              statusTimestampAfter: undefined,
            },
            context,
          );
          return {
            tasks: listed.tasks.map(ckpTask),
            ...(listed.nextPageToken ? { next_page_token: listed.nextPageToken } : {}),
            total: listed.totalSize,
          };
        }
        case 'claw.task.cancel': {
          const p = parse(taskIdParams, params, method);
          return {
            task: ckpTask(
              await handler.cancelTask({ tenant: '', id: p.task_id, metadata: {} }, context),
            ),
          };
        }
        case 'claw.task.subscribe': {
          const p = parse(taskIdParams, params, method);
          const task = await handler.getTask({ tenant: '', id: p.task_id }, context);
          if (isTerminal(task)) return { task: ckpTask(task), subscribed: false };
          if (!push) {
            throw new RpcError(
              CKP_ERRORS.invalidRequest,
              'Invalid request: this transport cannot send updates (use stdio or WebSocket, or claw.task.get)',
              { task_id: p.task_id },
            );
          }
          const updates = handler.resubscribe({ tenant: '', id: p.task_id }, context);
          void (async () => {
            try {
              for await (const update of updates) {
                const event = ckpUpdate(update.payload);
                if (event)
                  push(
                    JSON.stringify({
                      jsonrpc: '2.0',
                      method: 'claw.task.update',
                      params: { task_id: p.task_id, ...event },
                    }),
                  );
              }
            } catch {
              // The task ended or the handler stopped: a notification stream just stops.
            }
          })();
          return { task: ckpTask(task), subscribed: true };
        }
      }
    } catch (error) {
      throw ckpError(error, params);
    }
    throw new RpcError(CKP_ERRORS.methodNotFound, `Method not found: ${method}`, { method });
  }
}

const CKP_STATES = [
  'submitted',
  'working',
  'input_required',
  'auth_required',
  'completed',
  'failed',
  'canceled',
  'rejected',
] as const;

const STATES: Record<(typeof CKP_STATES)[number], TaskState> = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  input_required: TaskState.TASK_STATE_INPUT_REQUIRED,
  auth_required: TaskState.TASK_STATE_AUTH_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
  rejected: TaskState.TASK_STATE_REJECTED,
};

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

function isTerminal(task: Task): boolean {
  return TERMINAL.has(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
}

const ckpPart = z.union([
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('data'), data: z.unknown() }),
  z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
]);
type CkpPart = z.output<typeof ckpPart>;

const createParams = z.looseObject({
  message: z.looseObject({
    role: z.literal('user').optional(),
    parts: z.array(ckpPart).min(1),
    context_id: z.string().min(1).optional(),
    task_id: z.string().min(1).optional(),
  }),
  /** Answer once the task has ended (default: once it is created). */
  wait: z.boolean().optional(),
});
const getParams = z.looseObject({
  task_id: z.string().min(1),
  history_length: z.number().int().min(0).optional(),
});
const listParams = z.looseObject({
  context_id: z.string().min(1).optional(),
  status: z.enum(CKP_STATES).optional(),
  page_size: z.number().int().min(1).max(100).optional(),
  page_token: z.string().optional(),
});
const taskIdParams = z.looseObject({ task_id: z.string().min(1) });

function parse<T extends z.ZodType>(schema: T, params: unknown, method: string): z.output<T> {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  throw new RpcError(CKP_ERRORS.invalidParams, `Invalid params for ${method}`, {
    issues: parsed.error.issues.map((issue) => ({
      path: issue.path.join('.'),
      message: issue.message,
    })),
  });
}

function a2aPart(part: CkpPart): Part {
  const base = { metadata: {}, filename: '' };
  if (part.type === 'text')
    return { ...base, content: { $case: 'text', value: part.text }, mediaType: 'text/plain' };
  if (part.type === 'data')
    return { ...base, content: { $case: 'data', value: part.data }, mediaType: 'application/json' };
  return { ...base, content: { $case: 'url', value: part.url }, mediaType: '' };
}

function ckpParts(parts: readonly Part[]): Array<Record<string, unknown>> {
  return parts.flatMap((part): Array<Record<string, unknown>> => {
    const content = part.content;
    if (content?.$case === 'text') return [{ type: 'text', text: content.value }];
    if (content?.$case === 'data') return [{ type: 'data', data: content.value }];
    if (content?.$case === 'url') return [{ type: 'url', url: content.value }];
    if (content?.$case === 'raw')
      return [
        {
          type: 'raw',
          media_type: part.mediaType,
          data: Buffer.from(content.value).toString('base64'),
        },
      ];
    return [];
  });
}

function ckpMessage(message: Message): Record<string, unknown> {
  return {
    role: message.role === Role.ROLE_AGENT ? 'agent' : 'user',
    parts: ckpParts(message.parts),
    ...(message.contextId ? { context_id: message.contextId } : {}),
  };
}

/** A task in the CKP interop model's words (§6.3, §7). */
export function ckpTask(task: Task): Record<string, unknown> {
  const status = task.status;
  return {
    task_id: task.id,
    context_id: task.contextId,
    status: {
      state: stateName(status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
      ...(status?.message ? { message: ckpMessage(status.message) } : {}),
      ...(status?.timestamp ? { timestamp: status.timestamp } : {}),
    },
    artifacts: task.artifacts.map((artifact) => ({
      artifact_id: artifact.artifactId,
      ...(artifact.name ? { name: artifact.name } : {}),
      parts: ckpParts(artifact.parts),
    })),
    ...(task.history.length ? { history: task.history.map(ckpMessage) } : {}),
    ...(task.metadata && Object.keys(task.metadata).length ? { metadata: task.metadata } : {}),
  };
}

function ckpUpdate(payload: StreamResponse['payload']): Record<string, unknown> | undefined {
  switch (payload?.$case) {
    case 'task':
      return { kind: 'task', task: ckpTask(payload.value) };
    case 'message':
      return { kind: 'message', message: ckpMessage(payload.value) };
    case 'statusUpdate': {
      const status = payload.value.status;
      return {
        kind: 'status',
        state: stateName(status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
        ...(status?.message ? { message: ckpMessage(status.message) } : {}),
      };
    }
    case 'artifactUpdate': {
      const artifact = payload.value.artifact;
      return artifact
        ? {
            kind: 'artifact',
            artifact: { artifact_id: artifact.artifactId, parts: ckpParts(artifact.parts) },
          }
        : undefined;
    }
    default:
      return undefined;
  }
}

/** The SDK's task errors in CKP's codes: an unknown task is a bad param, a finished one a bad request. */
function ckpError(error: unknown, params: unknown): unknown {
  if (error instanceof RpcError) return error;
  const taskId = (params as { task_id?: unknown } | undefined)?.task_id;
  if (error instanceof TaskNotFoundError)
    return new RpcError(CKP_ERRORS.invalidParams, `Invalid params: no task "${String(taskId)}"`, {
      task_id: taskId,
    });
  if (error instanceof TaskNotCancelableError)
    return new RpcError(
      CKP_ERRORS.invalidRequest,
      'Invalid request: the task has ended and cannot be canceled',
      {
        task_id: taskId,
      },
    );
  if (error instanceof UnsupportedOperationError)
    return new RpcError(CKP_ERRORS.invalidRequest, `Invalid request: ${error.message}`, {
      task_id: taskId,
    });
  return new RpcError(
    CKP_ERRORS.internalError,
    `Internal error: ${error instanceof Error ? error.message : String(error)}`,
  );
}
