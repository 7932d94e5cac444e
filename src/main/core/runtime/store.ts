/**
 * Durable runs: sessions, the message tree, runs, steps and tool calls in SQLite, written as
 * they happen (WAL makes each small write cheap), so a killed process can be resumed from what
 * is on disk. Messages form a tree (parent_id): a run may start from an earlier message and
 * branch a session without touching the original branch.
 */

import type Database from 'better-sqlite3';
import type { Message, Usage } from '../../../shared/messages.js';
import type { Db } from '../storage/index.js';
import { type Migration, migrate, prepared } from '../storage/index.js';
import {
  type MessageId,
  newId,
  type RunId,
  type RunOrigin,
  type RunOutcome,
  type SessionId,
  type StepId,
  type StepKind,
  type TaskId,
  type TraceId,
} from '../terms.js';
import {
  type MessageHit,
  messageSiblings,
  newestBelow,
  SEARCH_MIGRATIONS,
  searchMessages,
  sessionTitles,
} from './read-model.js';
import type { RunState } from './state.js';

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, messages, runs, steps, tool calls',
    up: `
      create table sessions (
        id text primary key,
        title text not null,
        created_at text not null
      );
      create table messages (
        id text primary key,
        session_id text not null references sessions(id),
        parent_id text references messages(id),
        run_id text,
        role text not null check (role in ('user', 'assistant')),
        content text not null,
        created_at text not null
      );
      create index messages_by_session on messages(session_id, id);
      create table runs (
        id text primary key,
        session_id text not null references sessions(id),
        task_id text not null,
        trace_id text not null,
        goal text not null,
        start_message_id text references messages(id),
        last_message_id text references messages(id),
        state text not null,
        outcome text,
        reason text,
        turns integer not null default 0,
        input_tokens integer not null default 0,
        output_tokens integer not null default 0,
        cost_usd real not null default 0,
        options text not null default '{}',
        created_at text not null,
        updated_at text not null
      );
      create index runs_by_session on runs(session_id, created_at);
      create table steps (
        id text primary key,
        run_id text not null references runs(id),
        idx integer not null,
        kind text not null check (kind in ('model', 'tools')),
        started_at text not null,
        ended_at text
      );
      create table tool_calls (
        run_id text not null references runs(id),
        step_id text not null references steps(id),
        call_id text not null,
        idx integer not null,
        name text not null,
        input text not null,
        read_only integer not null,
        status text not null check (status in ('requested', 'started', 'completed', 'interrupted')),
        result text,
        is_error integer,
        started_at text,
        ended_at text,
        primary key (run_id, call_id)
      );
    `,
  },
  {
    version: 2,
    description: 'usage and cost per model step, for spending caps over time',
    up: `
      alter table steps add column input_tokens integer not null default 0;
      alter table steps add column output_tokens integer not null default 0;
      alter table steps add column cost_usd real not null default 0;
      create index steps_by_start on steps(started_at);
    `,
  },
  {
    version: 3,
    description: 'a delegated run names the run that delegated it (the tree of runs)',
    up: `
      alter table runs add column parent_run_id text references runs(id);
      create index runs_by_parent on runs(parent_run_id);
    `,
  },
  {
    version: 4,
    description: "a run's steps by run: numbering a new step no longer scans every step",
    up: `create index steps_by_run on steps(run_id, idx);`,
  },
];

export interface RunRow {
  id: RunId;
  sessionId: SessionId;
  taskId: TaskId;
  traceId: TraceId;
  goal: string;
  startMessageId: MessageId | null;
  lastMessageId: MessageId | null;
  state: RunState;
  outcome: RunOutcome | null;
  reason: string | null;
  turns: number;
  usage: Usage;
  costUsd: number;
  options: Record<string, unknown>;
  /** The run that delegated this one (agents/delegate); null for a run a person started. */
  parentRunId: RunId | null;
  createdAt: string;
  updatedAt: string;
}

export interface StoredMessage {
  id: MessageId;
  parentId: MessageId | null;
  runId: RunId | null;
  message: Message;
  createdAt: string;
}

export interface StepRow {
  id: StepId;
  idx: number;
  kind: StepKind;
  startedAt: string;
  endedAt: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export type ToolCallStatus = 'requested' | 'started' | 'completed' | 'interrupted';

export interface ToolCallRow {
  callId: string;
  stepId: StepId;
  idx: number;
  name: string;
  input: Record<string, unknown>;
  readOnly: boolean;
  status: ToolCallStatus;
  result: string | null;
  isError: boolean;
}

interface RawRun {
  id: string;
  session_id: string;
  task_id: string;
  trace_id: string;
  goal: string;
  start_message_id: string | null;
  last_message_id: string | null;
  state: string;
  outcome: string | null;
  reason: string | null;
  turns: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  options: string;
  parent_run_id: string | null;
  created_at: string;
  updated_at: string;
}

const now = () => new Date().toISOString();

/** Branches kept in memory, by leaf: enough for the conversations a process has open. */
const CACHED_BRANCHES = 64;

export class RunStore {
  /**
   * Branches read or extended lately, by their leaf, so a turn does not read its whole
   * conversation back from SQLite (a cost that grew with every turn). Messages never change
   * once written, except when a session is erased, which empties this; a write by another
   * connection (another Pincer process) empties it too. Entries are frozen: shared, never edited.
   */
  private readonly branches = new Map<MessageId, readonly StoredMessage[]>();
  private seenDataVersion = -1;
  private searchIndexed = false;

  constructor(readonly db: Db) {
    migrate(db, 'runtime', MIGRATIONS);
  }

  private sql(text: string): Database.Statement {
    return prepared(this.db, text);
  }

  createSession(title: string, id: SessionId = newId<SessionId>('ses')): SessionId {
    this.sql('insert into sessions (id, title, created_at) values (?, ?, ?)').run(
      id,
      title.slice(0, 200),
      now(),
    );
    return id;
  }

  hasSession(id: SessionId): boolean {
    return this.sql('select 1 from sessions where id = ?').get(id) !== undefined;
  }

  listSessions(): Array<{ id: SessionId; title: string; createdAt: string }> {
    return (
      this.sql('select id, title, created_at from sessions order by id').all() as Array<{
        id: SessionId;
        title: string;
        created_at: string;
      }>
    ).map((row) => ({ id: row.id, title: row.title, createdAt: row.created_at }));
  }

  /** Every session with the time of its newest message (its creation when it has none). */
  sessionActivity(): Array<{
    id: SessionId;
    title: string;
    createdAt: string;
    lastActivityAt: string;
  }> {
    return this.sql(
      `select s.id, s.title, s.created_at as createdAt,
         coalesce((select max(m.created_at) from messages m where m.session_id = s.id), s.created_at) as lastActivityAt
       from sessions s order by lastActivityAt desc, s.id desc`,
    ).all() as Array<{ id: SessionId; title: string; createdAt: string; lastActivityAt: string }>;
  }

  renameSession(id: SessionId, title: string): void {
    this.sql('update sessions set title = ? where id = ?').run(title.slice(0, 200), id);
  }

  /**
   * Erases what a session said (messages, goals, tool inputs and outputs, its title) but keeps
   * the rows: spending caps count the steps, and the audit trail refers to the runs.
   */
  eraseSession(id: SessionId): void {
    this.branches.clear();
    this.db.transaction(() => {
      this.sql(`update messages set content = '[]' where session_id = ?`).run(id);
      this.sql(`update runs set goal = '' where session_id = ?`).run(id);
      this.sql(
        `update tool_calls set input = '{}', result = null where run_id in (select id from runs where session_id = ?)`,
      ).run(id);
      this.sql(`update sessions set title = '' where id = ?`).run(id);
    })();
  }

  /** A new session holding a copy of `chain` (a branch, oldest first), in one transaction. */
  copyBranch(title: string, chain: readonly StoredMessage[]): SessionId {
    return this.db.transaction(() => {
      const copy = this.createSession(title);
      let parent: MessageId | null = null;
      for (const stored of chain) parent = this.addMessage(copy, parent, null, stored.message);
      return copy;
    })();
  }

  messageInSession(messageId: MessageId, sessionId: SessionId): boolean {
    return (
      this.sql('select 1 from messages where id = ? and session_id = ?').get(
        messageId,
        sessionId,
      ) !== undefined
    );
  }

  addMessage(
    sessionId: SessionId,
    parentId: MessageId | null,
    runId: RunId | null,
    message: Message,
    id: MessageId = newId<MessageId>('msg'),
  ): MessageId {
    const content = JSON.stringify(message.content);
    const createdAt = now();
    this.sql(
      'insert into messages (id, session_id, parent_id, run_id, role, content, created_at) values (?, ?, ?, ?, ?, ?, ?)',
    ).run(id, sessionId, parentId, runId, message.role, content, createdAt);
    const before = parentId ? this.cachedBranch(parentId) : [];
    if (before) {
      // What a read of the new leaf would give: the content as it comes back from its JSON.
      const stored = {
        id,
        parentId,
        runId,
        createdAt,
        message: { role: message.role, content: JSON.parse(content) },
      };
      this.remember(id, [...before, deepFreeze(stored)]);
      // The parent's branch is a prefix of this one, seldom asked for again: one entry per
      // conversation, not one per message of it.
      if (parentId) this.branches.delete(parentId);
    }
    return id;
  }

  /** The branch ending at `leaf`, oldest first. */
  branch(leaf: MessageId | null): StoredMessage[] {
    if (!leaf) return [];
    const cached = this.cachedBranch(leaf);
    if (cached) return [...cached];
    const rows = this.sql(
      `with recursive chain(id, parent_id, run_id, role, content, created_at, depth) as (
           select id, parent_id, run_id, role, content, created_at, 0 from messages where id = ?
           union all
           select m.id, m.parent_id, m.run_id, m.role, m.content, m.created_at, chain.depth + 1
           from messages m join chain on m.id = chain.parent_id
         ) select * from chain order by depth desc`,
    ).all(leaf) as Array<{
      id: MessageId;
      parent_id: MessageId | null;
      run_id: RunId | null;
      role: 'user' | 'assistant';
      content: string;
      created_at: string;
    }>;
    const chain = rows.map((row) =>
      deepFreeze({
        id: row.id,
        parentId: row.parent_id,
        runId: row.run_id,
        message: { role: row.role, content: JSON.parse(row.content) },
        createdAt: row.created_at,
      }),
    );
    if (chain.length > 0) this.remember(leaf, chain);
    return [...chain];
  }

  /** A branch held in memory, if it still is what the database holds. */
  private cachedBranch(leaf: MessageId): readonly StoredMessage[] | undefined {
    const { data_version: version } = this.sql('pragma data_version').get() as {
      data_version: number;
    };
    if (version !== this.seenDataVersion) {
      this.branches.clear();
      this.seenDataVersion = version;
    }
    const cached = this.branches.get(leaf);
    if (cached) {
      this.branches.delete(leaf);
      this.branches.set(leaf, cached);
    }
    return cached;
  }

  private remember(leaf: MessageId, chain: readonly StoredMessage[]): void {
    this.branches.set(leaf, chain);
    if (this.branches.size > CACHED_BRANCHES) {
      const oldest = this.branches.keys().next().value;
      if (oldest !== undefined) this.branches.delete(oldest);
    }
  }

  /** The newest message of the session (the tip of the branch most recently written to). */
  latestMessage(sessionId: SessionId): MessageId | null {
    const row = this.sql(
      'select id from messages where session_id = ? order by id desc limit 1',
    ).get(sessionId) as { id: MessageId } | undefined;
    return row?.id ?? null;
  }

  createRun(fields: {
    sessionId: SessionId;
    taskId: TaskId;
    traceId: TraceId;
    goal: string;
    options: Record<string, unknown>;
    parentRunId?: RunId;
    id?: RunId;
    at?: string;
  }): RunId {
    const id = fields.id ?? newId<RunId>('run');
    const at = fields.at ?? now();
    this.sql(
      `insert into runs (id, session_id, task_id, trace_id, goal, state, options, parent_run_id, created_at, updated_at)
         values (?, ?, ?, ?, ?, 'IDLE', ?, ?, ?, ?)`,
    ).run(
      id,
      fields.sessionId,
      fields.taskId,
      fields.traceId,
      fields.goal,
      JSON.stringify(fields.options),
      fields.parentRunId ?? null,
      at,
      at,
    );
    return id;
  }

  /** The runs a run delegated, oldest first. */
  childRuns(parentRunId: RunId): RunRow[] {
    return (
      this.sql('select * from runs where parent_run_id = ? order by id').all(
        parentRunId,
      ) as RawRun[]
    ).map(toRun);
  }

  /** How many delegations stand above a run: 0 for a run a person started. */
  depthOf(runId: RunId): number {
    const row = this.sql(
      `with recursive up(id, parent_run_id, depth) as (
           select id, parent_run_id, 0 from runs where id = ?
           union all
           select r.id, r.parent_run_id, up.depth + 1 from runs r join up on r.id = up.parent_run_id
         ) select max(depth) as depth from up`,
    ).get(runId) as { depth: number | null };
    return row.depth ?? 0;
  }

  updateRun(
    id: RunId,
    fields: Partial<{
      state: RunState;
      outcome: RunOutcome | null;
      reason: string | null;
      startMessageId: MessageId;
      lastMessageId: MessageId;
      turns: number;
      usage: Usage;
      costUsd: number;
    }>,
  ): void {
    const sets: string[] = ['updated_at = @updated_at'];
    const values: Record<string, unknown> = { id, updated_at: now() };
    const column = (name: string, value: unknown) => {
      sets.push(`${name} = @${name}`);
      values[name] = value;
    };
    if (fields.state !== undefined) column('state', fields.state);
    if (fields.outcome !== undefined) column('outcome', fields.outcome);
    if (fields.reason !== undefined) column('reason', fields.reason);
    if (fields.startMessageId !== undefined) column('start_message_id', fields.startMessageId);
    if (fields.lastMessageId !== undefined) column('last_message_id', fields.lastMessageId);
    if (fields.turns !== undefined) column('turns', fields.turns);
    if (fields.costUsd !== undefined) column('cost_usd', fields.costUsd);
    if (fields.usage !== undefined) {
      column('input_tokens', fields.usage.inputTokens);
      column('output_tokens', fields.usage.outputTokens);
    }
    this.sql(`update runs set ${sets.join(', ')} where id = @id`).run(values);
  }

  getRun(id: RunId): RunRow | undefined {
    const row = this.sql('select * from runs where id = ?').get(id) as RawRun | undefined;
    return row ? toRun(row) : undefined;
  }

  listRuns(filter: { sessionId?: SessionId; limit?: number } = {}): RunRow[] {
    const rows = (
      filter.sessionId
        ? this.db
            .prepare('select * from runs where session_id = ? order by id desc limit ?')
            .all(filter.sessionId, filter.limit ?? 50)
        : this.sql('select * from runs order by id desc limit ?').all(filter.limit ?? 50)
    ) as RawRun[];
    return rows.map(toRun);
  }

  startStep(runId: RunId, kind: StepKind, id: StepId = newId<StepId>('stp')): StepId {
    const idx = (
      this.sql('select count(*) as n from steps where run_id = ?').get(runId) as {
        n: number;
      }
    ).n;
    this.sql('insert into steps (id, run_id, idx, kind, started_at) values (?, ?, ?, ?, ?)').run(
      id,
      runId,
      idx,
      kind,
      now(),
    );
    return id;
  }

  endStep(id: StepId, spent?: { usage: Usage; costUsd: number }): void {
    this.sql(
      'update steps set ended_at = ?, input_tokens = ?, output_tokens = ?, cost_usd = ? where id = ?',
    ).run(
      now(),
      spent?.usage.inputTokens ?? 0,
      spent?.usage.outputTokens ?? 0,
      spent?.costUsd ?? 0,
      id,
    );
  }

  /** A run's steps in order, with what each model step spent. */
  steps(runId: RunId): StepRow[] {
    return this.sql(
      `select id, idx, kind, started_at as startedAt, ended_at as endedAt,
         input_tokens as inputTokens, output_tokens as outputTokens, cost_usd as costUsd
       from steps where run_id = ? order by idx`,
    ).all(runId) as StepRow[];
  }

  /** Tokens and dollars spent by model calls that started at or after `since` (all runs). */
  spentSince(since: Date): { tokens: number; costUsd: number } {
    const row = this.sql(
      'select coalesce(sum(input_tokens + output_tokens), 0) as tokens, coalesce(sum(cost_usd), 0) as cost from steps where started_at >= ?',
    ).get(since.toISOString()) as { tokens: number; cost: number };
    return { tokens: row.tokens, costUsd: row.cost };
  }

  requestToolCalls(
    runId: RunId,
    stepId: StepId,
    calls: Array<{ id: string; name: string; input: Record<string, unknown>; readOnly: boolean }>,
  ): void {
    const insert = this.sql(
      `insert into tool_calls (run_id, step_id, call_id, idx, name, input, read_only, status)
       values (?, ?, ?, ?, ?, ?, ?, 'requested')`,
    );
    this.db.transaction(() => {
      calls.forEach((call, idx) => {
        insert.run(
          runId,
          stepId,
          call.id,
          idx,
          call.name,
          JSON.stringify(call.input),
          call.readOnly ? 1 : 0,
        );
      });
    })();
  }

  markToolStarted(runId: RunId, callId: string): void {
    this.sql(
      `update tool_calls set status = 'started', started_at = ? where run_id = ? and call_id = ?`,
    ).run(now(), runId, callId);
  }

  finishToolCall(
    runId: RunId,
    callId: string,
    result: { content: string; isError: boolean },
    status: 'completed' | 'interrupted' = 'completed',
  ): void {
    this.sql(
      'update tool_calls set status = ?, result = ?, is_error = ?, ended_at = ? where run_id = ? and call_id = ?',
    ).run(status, result.content, result.isError ? 1 : 0, now(), runId, callId);
  }

  /** The tool calls of a run's newest tools step, in call order. */
  lastToolCalls(runId: RunId): ToolCallRow[] {
    const step = this.sql(
      `select id from steps where run_id = ? and kind = 'tools' order by idx desc limit 1`,
    ).get(runId) as { id: StepId } | undefined;
    return step ? this.toolCalls(runId).filter((call) => call.stepId === step.id) : [];
  }

  // The read model of past conversations (search, versions): see read-model.ts.

  /**
   * Installs the full-text index (and fills it from the messages on disk) where it is not yet:
   * a surface that offers search calls this when it opens, so the first search does not wait.
   */
  indexForSearch(): void {
    if (this.searchIndexed) return;
    migrate(this.db, 'chat_search', SEARCH_MIGRATIONS);
    this.searchIndexed = true;
  }

  /** Messages whose words start with every one of `words`, newest first. */
  searchMessages(words: readonly string[], limit: number): MessageHit[] {
    this.indexForSearch();
    return searchMessages(this.db, words, limit);
  }

  /** Every session's title, newest session first. */
  sessionTitles(): Array<{ sessionId: SessionId; title: string; at: string }> {
    return sessionTitles(this.db);
  }

  /** The messages sharing this one's parent and role, oldest first (itself included). */
  messageSiblings(sessionId: SessionId, messageId: MessageId): MessageId[] {
    return messageSiblings(this.db, sessionId, messageId);
  }

  /** The newest message at or below `messageId`; undefined when it is not in the session. */
  newestBelow(sessionId: SessionId, messageId: MessageId): MessageId | undefined {
    return newestBelow(this.db, sessionId, messageId);
  }

  /** Every tool call of a run, in the order they were requested. */
  toolCalls(runId: RunId): ToolCallRow[] {
    return (
      this.sql('select * from tool_calls where run_id = ? order by rowid').all(runId) as Array<{
        call_id: string;
        step_id: StepId;
        idx: number;
        name: string;
        input: string;
        read_only: number;
        status: ToolCallStatus;
        result: string | null;
        is_error: number | null;
      }>
    ).map((row) => ({
      callId: row.call_id,
      stepId: row.step_id,
      idx: row.idx,
      name: row.name,
      input: JSON.parse(row.input),
      readOnly: row.read_only === 1,
      status: row.status,
      result: row.result,
      isError: row.is_error === 1,
    }));
  }
}

/** The channel or schedule that started a run, as recorded in its options (none: a person). */
export function originOf(run: RunRow): RunOrigin | undefined {
  const origin = run.options.origin;
  return typeof origin === 'object' && origin !== null && 'channel' in origin
    ? (origin as RunOrigin)
    : undefined;
}

function toRun(row: RawRun): RunRow {
  return {
    id: row.id as RunId,
    sessionId: row.session_id as SessionId,
    taskId: row.task_id as TaskId,
    traceId: row.trace_id as TraceId,
    goal: row.goal,
    startMessageId: row.start_message_id as MessageId | null,
    lastMessageId: row.last_message_id as MessageId | null,
    state: row.state as RunState,
    outcome: row.outcome as RunOutcome | null,
    reason: row.reason,
    turns: row.turns,
    usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens },
    costUsd: row.cost_usd,
    options: JSON.parse(row.options),
    parentRunId: row.parent_run_id as RunId | null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Freezes a value read from JSON all the way down, so a shared copy cannot be edited. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
