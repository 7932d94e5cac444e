/**
 * What the UI does to sessions beyond what the runtime needs: rename, delete, branch, list with
 * activity. The runtime's tables are written through its store only; this module keeps its own
 * namespace of the profile database (deleted sessions, UI settings).
 *
 * Deleting erases what a session said (messages, goals, tool inputs and outputs) and hides it,
 * but keeps the rows that spending caps count and the append-only audit trail, so deleting a
 * conversation never resets a policy's budget.
 */

import type { SessionSummary, Settings } from '../../../shared/ipc-schemas.js';
import { PincerError } from '../errors.js';
import type { RunStore } from '../runtime/index.js';
import type { Db } from '../storage/index.js';
import { type Migration, migrate, prepared } from '../storage/index.js';
import type { MessageId, SessionId } from '../terms.js';

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'deleted sessions and UI settings',
    up: `
      create table assistant_deleted_sessions (
        session_id text primary key,
        deleted_at text not null
      );
      create table assistant_settings (
        key text primary key,
        value text not null
      );
    `,
  },
  {
    version: 2,
    description: 'the model each conversation answers with',
    up: `
      create table assistant_session_models (
        session_id text primary key,
        model_id text not null
      );
    `,
  },
  {
    version: 3,
    description: 'where a branched conversation came from',
    up: `
      create table assistant_session_branches (
        session_id text primary key,
        source_session_id text not null,
        source_message_id text not null
      );
    `,
  },
  {
    version: 4,
    description: 'the tools each conversation turned off',
    up: `
      create table assistant_session_tools_off (
        session_id text not null,
        tool_name text not null,
        primary key (session_id, tool_name)
      );
    `,
  },
];

export const DEFAULT_SETTINGS: Settings = {
  theme: 'system',
  showReasoning: true,
  enterSends: true,
  systemPrompt: '',
  temperature: null,
  contextSize: null,
};

export class SessionNotFoundError extends PincerError {
  readonly code = 'not_found';
  constructor(id: string) {
    super('not_found', `no session ${id}`);
    this.name = 'SessionNotFoundError';
  }
}

export class SessionBook {
  private readonly db: Db;

  constructor(
    private readonly store: RunStore,
    private readonly isBusy: (id: SessionId) => boolean,
  ) {
    this.db = store.db;
    migrate(this.db, 'assistant', MIGRATIONS);
  }

  /** Sessions deleted in the app: erased and hidden. */
  deletedIds(): Set<string> {
    return new Set(
      (
        prepared(this.db, 'select session_id from assistant_deleted_sessions').all() as Array<{
          session_id: string;
        }>
      ).map((row) => row.session_id),
    );
  }

  list(): SessionSummary[] {
    const deleted = this.deletedIds();
    const models = new Map(
      (
        prepared(
          this.db,
          'select session_id, model_id from assistant_session_models',
        ).all() as Array<{
          session_id: string;
          model_id: string;
        }>
      ).map((row) => [row.session_id, row.model_id]),
    );
    const sources = new Map(
      (
        prepared(
          this.db,
          'select session_id, source_session_id, source_message_id from assistant_session_branches',
        ).all() as Array<{
          session_id: string;
          source_session_id: string;
          source_message_id: string;
        }>
      ).map((row) => [row.session_id, row]),
    );
    const rows = this.store.sessionActivity();
    const titles = new Map<string, string>(rows.map((row) => [row.id, row.title]));
    return rows
      .filter((row) => !deleted.has(row.id))
      .map((row) => {
        const source = sources.get(row.id);
        return {
          ...row,
          busy: this.isBusy(row.id),
          modelId: models.get(row.id) ?? null,
          // A source deleted since is still linked, with no title, so the UI can say it is gone.
          branchedFrom: source
            ? {
                sessionId: source.source_session_id,
                messageId: source.source_message_id,
                title: deleted.has(source.source_session_id)
                  ? null
                  : (titles.get(source.source_session_id) ?? null),
              }
            : null,
        };
      });
  }

  /** The model option this conversation answers with; undefined when never chosen. */
  sessionModel(id: string): string | undefined {
    const row = prepared(
      this.db,
      'select model_id from assistant_session_models where session_id = ?',
    ).get(id) as { model_id: string } | undefined;
    return row?.model_id;
  }

  setSessionModel(id: string, modelId: string): void {
    prepared(
      this.db,
      `insert into assistant_session_models (session_id, model_id) values (?, ?)
         on conflict(session_id) do update set model_id = excluded.model_id`,
    ).run(id, modelId);
  }

  /** The tools this conversation turned off (a tool added later is on). */
  toolsOff(id: string): Set<string> {
    return new Set(
      (
        prepared(
          this.db,
          'select tool_name from assistant_session_tools_off where session_id = ?',
        ).all(id) as Array<{ tool_name: string }>
      ).map((row) => row.tool_name),
    );
  }

  setToolEnabled(id: string, tool: string, enabled: boolean): void {
    prepared(
      this.db,
      enabled
        ? 'delete from assistant_session_tools_off where session_id = ? and tool_name = ?'
        : 'insert or ignore into assistant_session_tools_off (session_id, tool_name) values (?, ?)',
    ).run(id, tool);
  }

  /** The model option new conversations start with (the last one picked). */
  defaultModel(): string | undefined {
    const row = prepared(
      this.db,
      `select value from assistant_settings where key = 'model.default'`,
    ).get() as { value: string } | undefined;
    return row?.value;
  }

  setDefaultModel(modelId: string): void {
    prepared(
      this.db,
      `insert into assistant_settings (key, value) values ('model.default', ?) on conflict(key) do update set value = excluded.value`,
    ).run(modelId);
  }

  get(id: string): SessionSummary {
    const found = this.list().find((session) => session.id === id);
    if (!found) throw new SessionNotFoundError(id);
    return found;
  }

  exists(id: string): boolean {
    return this.store.hasSession(id as SessionId) && !this.isDeleted(id);
  }

  create(title = 'New chat'): SessionSummary {
    return this.get(this.store.createSession(title));
  }

  rename(id: string, title: string): SessionSummary {
    this.get(id);
    this.store.renameSession(id as SessionId, title);
    return this.get(id);
  }

  delete(id: string): void {
    this.get(id);
    if (this.isBusy(id as SessionId))
      throw new Error('the session has a run in progress: cancel it first');
    this.db.transaction(() => {
      this.store.eraseSession(id as SessionId);
      prepared(this.db, 'delete from assistant_session_tools_off where session_id = ?').run(id);
      prepared(
        this.db,
        'insert or ignore into assistant_deleted_sessions (session_id, deleted_at) values (?, ?)',
      ).run(id, new Date().toISOString());
    })();
  }

  /** A new session holding a copy of the branch that ends at `messageId`. */
  branch(id: string, messageId: string): SessionSummary {
    const source = this.get(id);
    const chain = this.store.branch(messageId as MessageId);
    if (
      chain.length === 0 ||
      !this.store.messageInSession(messageId as MessageId, id as SessionId)
    ) {
      throw new Error(`message ${messageId} is not part of session ${id}`);
    }
    const copy = this.db.transaction(() => {
      const made = this.store.copyBranch(`${source.title} (branch)`, chain);
      prepared(
        this.db,
        'insert into assistant_session_branches (session_id, source_session_id, source_message_id) values (?, ?, ?)',
      ).run(made, id, messageId);
      // A branch keeps the tools its source turned off.
      prepared(
        this.db,
        `insert into assistant_session_tools_off (session_id, tool_name)
           select ?, tool_name from assistant_session_tools_off where session_id = ?`,
      ).run(made, id);
      return made;
    })();
    return this.get(copy);
  }

  /** A JSON value kept under `key` (settings of surfaces beside the UI's own). */
  kept<T>(key: string): Partial<T> {
    const row = prepared(this.db, 'select value from assistant_settings where key = ?').get(key) as
      | { value: string }
      | undefined;
    return row ? (JSON.parse(row.value) as Partial<T>) : {};
  }

  keep(key: string, value: unknown): void {
    prepared(
      this.db,
      'insert into assistant_settings (key, value) values (?, ?) on conflict(key) do update set value = excluded.value',
    ).run(key, JSON.stringify(value));
  }

  settings(): Settings {
    const row = prepared(this.db, `select value from assistant_settings where key = 'ui'`).get() as
      | { value: string }
      | undefined;
    return { ...DEFAULT_SETTINGS, ...(row ? (JSON.parse(row.value) as Partial<Settings>) : {}) };
  }

  saveSettings(patch: Partial<Settings>): Settings {
    const next = { ...this.settings(), ...patch };
    prepared(
      this.db,
      `insert into assistant_settings (key, value) values ('ui', ?) on conflict(key) do update set value = excluded.value`,
    ).run(JSON.stringify(next));
    return next;
  }

  private isDeleted(id: string): boolean {
    return (
      prepared(this.db, 'select 1 from assistant_deleted_sessions where session_id = ?').get(id) !==
      undefined
    );
  }
}
