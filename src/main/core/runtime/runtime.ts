/**
 * The runtime: starts, resumes and tracks the runs of this process. Each run gets its scope
 * (state, history, spending), a store recorder and a publisher as the subscribers of its facts,
 * and a place in its session's lane; the loop itself is `driveRun`.
 */
import { newId, type RunId, type SessionId, type TaskId, type TraceId } from '../terms.js';
import { RunEventStream } from './events.js';
import { DEFAULT_GUARDS, type Guards } from './guards.js';
import { Lanes } from './lanes.js';
import { driveRun } from './run-loop.js';
import { RunScope } from './run-scope.js';
import { isFinal } from './state.js';
import type { StopCause } from './stops.js';
import type { RunRow } from './store.js';
import { storeRecorder } from './store-recorder.js';
import type { RunHandle, RuntimeDeps, StartOptions } from './types.js';

export type {
  DirectCalls,
  GenerationOptions,
  RunHandle,
  RunResult,
  RuntimeDeps,
  StartOptions,
  SystemRequest,
} from './types.js';

export class AgentRuntime {
  private readonly lanes: Lanes;
  /** The runs executing or queued in this process: the one record of live runs. */
  private readonly live = new Map<RunId, RunHandle>();

  constructor(private readonly deps: RuntimeDeps) {
    this.lanes = new Lanes(deps.maxConcurrentRuns ?? 8);
  }

  /** Runs in the database that are not finished and not running in this process. */
  interrupted(): RunRow[] {
    return this.deps.store
      .listRuns({ limit: 1000 })
      .filter((run) => !isFinal(run.state) && !this.live.has(run.id));
  }

  /** Runs executing now (not those queued behind their session or the concurrency bound). */
  get activeRuns(): number {
    return this.lanes.active;
  }

  isLive(id: RunId): boolean {
    return this.live.has(id);
  }

  /** A run of this process that has not ended. */
  handle(id: RunId): RunHandle | undefined {
    return this.live.get(id);
  }

  /** Whether a run of this session has not ended. */
  isSessionBusy(sessionId: SessionId): boolean {
    for (const handle of this.live.values()) if (handle.sessionId === sessionId) return true;
    return false;
  }

  /** Cancels every run of this process and waits for each to record its end. */
  async stopAll(): Promise<void> {
    const handles = [...this.live.values()];
    for (const handle of handles) handle.cancel();
    await Promise.allSettled(handles.map((handle) => handle.done));
  }

  /**
   * Starts a run: its row is stated as the run's first fact (`run.created`), which the store
   * records, and the loop works from the same values: nothing is read back.
   */
  start(options: StartOptions): RunHandle {
    const { store } = this.deps;
    const sessionId = options.sessionId ?? newId<SessionId>('ses');
    const newSession = !options.sessionId || !store.hasSession(sessionId);
    const at = new Date().toISOString();
    const run: RunRow = {
      id: newId<RunId>('run'),
      sessionId,
      taskId: newId<TaskId>('tsk'),
      traceId: options.parent?.traceId ?? options.traceId ?? newId<TraceId>('trc'),
      goal: options.text,
      startMessageId: null,
      lastMessageId: null,
      state: 'IDLE',
      outcome: null,
      reason: null,
      turns: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: 0,
      // As the store keeps them (JSON): what a resumed run reads is what this one works from.
      options: JSON.parse(
        JSON.stringify({
          ...options.record,
          guards: options.guards ?? {},
          ...(options.calls || options.toolCall ? { direct: true } : {}),
          ...(options.origin ? { origin: options.origin } : {}),
        }),
      ),
      parentRunId: options.parent?.runId ?? null,
      createdAt: at,
      updatedAt: at,
    };
    const recorder = storeRecorder(store, run.id, sessionId);
    recorder({
      type: 'run.created',
      task_id: run.taskId,
      trace_id: run.traceId,
      goal: run.goal,
      options: run.options,
      ...(run.parentRunId ? { parent_run_id: run.parentRunId } : {}),
      ...(newSession ? { session_title: options.text } : {}),
      at,
    });
    return this.launch(run, recorder, options, false);
  }

  /** Continues a run that stopped or whose process died, without repeating completed side effects. */
  resume(
    runId: RunId,
    options: { signal?: AbortSignal; guards?: Partial<Guards> } = {},
  ): RunHandle {
    const run = this.deps.store.getRun(runId);
    if (!run) throw new Error(`no run ${runId}`);
    if (this.live.has(runId)) throw new Error(`run ${runId} is running`);
    if (run.outcome === 'completed') throw new Error(`run ${runId} already completed`);
    return this.launch(
      run,
      storeRecorder(this.deps.store, run.id, run.sessionId),
      { text: run.goal, sessionId: run.sessionId, ...options },
      true,
    );
  }

  private launch(
    run: RunRow,
    recorder: ReturnType<typeof storeRecorder>,
    options: StartOptions,
    resumed: boolean,
  ): RunHandle {
    const events = new RunEventStream();
    const controller = new AbortController();
    const onCancel = () => controller.abort('cancelled' satisfies StopCause);
    options.signal?.addEventListener('abort', onCancel, { once: true });
    const guards: Guards = {
      ...DEFAULT_GUARDS,
      ...this.deps.guards,
      ...(run.options.guards as Partial<Guards>),
      ...options.guards,
    };
    const scope = new RunScope(this.deps, run, events, controller, guards, recorder);
    const done = this.lanes
      .run(run.sessionId, () => driveRun(scope, options, resumed))
      .finally(() => {
        options.signal?.removeEventListener('abort', onCancel);
        this.live.delete(run.id);
        events.close();
      });
    const handle = { runId: run.id, sessionId: run.sessionId, events, done, cancel: onCancel };
    this.live.set(run.id, handle);
    return handle;
  }
}
