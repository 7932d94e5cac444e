/**
 * An A2A task is one run of the agent: the user message's text (data parts as JSON, URLs as
 * they are) starts a run of the root's runtime with the surface's origin, so the manifest's
 * policy decides every tool call and an approval nobody answers is denied (the origin guard).
 * The task's context is the run's conversation: a later message in the same context continues
 * it. The reply is the task's artifact; how the run ended is its final state.
 */
import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { Agent } from '../agent/index.js';
import type { RunResult } from '../runtime/index.js';
import type { RunId, RunOrigin, SessionId } from '../terms.js';

/** Where the task's run is kept, in the metadata of its status updates. */
export const RUN_METADATA_KEY = 'pincer_run_id';

export class AgentTaskExecutor implements AgentExecutor {
  private readonly running = new Map<string, { cancel: AbortController; runId: RunId }>();
  private readonly sessions = new Map<string, SessionId>();

  constructor(
    private readonly agent: Agent,
    private readonly origin: RunOrigin,
  ) {}

  /** Whether this run is a task's (or a sub-agent of one): its approvals have nobody to ask. */
  owns(runId: RunId): boolean {
    const mine = new Set([...this.running.values()].map((entry) => entry.runId));
    let run = this.agent.store.getRun(runId);
    for (let depth = 0; run && depth < 16; depth++) {
      if (mine.has(run.id)) return true;
      run = run.parentRunId ? this.agent.store.getRun(run.parentRunId) : undefined;
    }
    return false;
  }

  /** Runs of tasks in progress (the owner drains them). */
  inFlight(): number {
    return this.running.size;
  }

  /** Cancels every task still running. */
  cancelAll(): void {
    for (const entry of this.running.values()) entry.cancel.abort();
  }

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = request;
    const now = () => new Date().toISOString();
    const status = (state: TaskState, text?: string, metadata: Record<string, unknown> = {}) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message:
              text === undefined ? undefined : agentMessage(text, taskId, contextId, metadata),
            timestamp: now(),
          },
          metadata,
        }),
      );
    if (!request.task) {
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
          artifacts: [],
          history: [request.userMessage],
          metadata: {},
        }),
      );
    }
    const text = textOf(request.userMessage.parts);
    if (!text.trim()) {
      status(TaskState.TASK_STATE_REJECTED, 'the message has no text or data part to act on');
      bus.finished();
      return;
    }
    const cancel = new AbortController();
    let result: RunResult;
    try {
      const handle = this.agent.runtime.start({
        text,
        sessionId: this.sessions.get(contextId),
        signal: cancel.signal,
        origin: this.origin,
      });
      this.running.set(taskId, { cancel, runId: handle.runId });
      this.sessions.set(contextId, handle.sessionId);
      status(TaskState.TASK_STATE_WORKING, undefined, { [RUN_METADATA_KEY]: handle.runId });
      result = await handle.done;
    } catch (error) {
      status(TaskState.TASK_STATE_FAILED, error instanceof Error ? error.message : String(error));
      bus.finished();
      return;
    } finally {
      this.running.delete(taskId);
    }
    const reply = (result.reply?.content ?? [])
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('');
    const ran = { [RUN_METADATA_KEY]: result.runId, outcome: result.outcome };
    if (result.outcome === 'completed') {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: `${taskId}-reply`,
            name: 'reply',
            description: '',
            parts: [textPart(reply)],
            metadata: {},
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: {},
        }),
      );
      status(TaskState.TASK_STATE_COMPLETED, reply, ran);
    } else if (result.outcome === 'cancelled') {
      status(TaskState.TASK_STATE_CANCELED, result.reason, ran);
    } else {
      status(TaskState.TASK_STATE_FAILED, result.reason, ran);
    }
    bus.finished();
  };

  /** Cancels the task's run; its execute publishes the canceled state when the run has ended. */
  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const entry = this.running.get(taskId);
    if (entry) {
      entry.cancel.abort();
      return;
    }
    // Not (or no longer) running here: the request handler still waits for a final state.
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: {},
      }),
    );
  };
}

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: {},
    filename: '',
    mediaType: 'text/plain',
  };
}

function agentMessage(
  text: string,
  taskId: string,
  contextId: string,
  metadata: Record<string, unknown>,
): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** What the agent reads of a message: its text, structured data as JSON, URLs as written. */
export function textOf(parts: readonly Part[]): string {
  return parts
    .map((part) => {
      const content = part.content;
      if (!content) return '';
      if (content.$case === 'text') return content.value;
      if (content.$case === 'data') return JSON.stringify(content.value);
      if (content.$case === 'url') return content.value;
      return `[${part.mediaType || 'binary'} ${part.filename || 'attachment'} not read]`;
    })
    .filter((text) => text !== '')
    .join('\n');
}
