/** Key-value facts (CKP `key-value` store), scoped global, per identity or per channel. */
import { type Db, prepared } from '../storage/index.js';
import { MemoryError } from './errors.js';

export type FactScope =
  | { kind: 'global' }
  | { kind: 'identity'; id: string }
  | { kind: 'channel'; id: string };

export interface Fact {
  scope: FactScope;
  key: string;
  value: string;
  updatedAt: string;
}

export const GLOBAL: FactScope = { kind: 'global' };

export function scopeKey(scope: FactScope): string {
  if (scope.kind === 'global') return 'global';
  if (!scope.id) throw new MemoryError('bad_input', `a ${scope.kind} scope needs an id`);
  return `${scope.kind}:${scope.id}`;
}

/** `global`, `identity:ID` or `channel:ID`, as the CLI takes it. */
export function parseScope(text: string): FactScope {
  if (text === 'global') return GLOBAL;
  const [kind, ...rest] = text.split(':');
  const id = rest.join(':');
  if ((kind === 'identity' || kind === 'channel') && id) return { kind, id };
  throw new MemoryError('bad_input', `"${text}" is not a scope (global, identity:ID, channel:ID)`);
}

function parseStoredScope(text: string): FactScope {
  return parseScope(text);
}

export class FactStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
  ) {}

  set(scope: FactScope, key: string, value: string): void {
    if (!key.trim()) throw new MemoryError('bad_input', 'a fact needs a key');
    prepared(
      this.db,
      `insert into memory_facts (scope, key, value, updated_at) values (?, ?, ?, ?)
         on conflict (scope, key) do update set value = excluded.value, updated_at = excluded.updated_at`,
    ).run(scopeKey(scope), key, value, this.now().toISOString());
  }

  get(scope: FactScope, key: string): string | undefined {
    const row = prepared(this.db, 'select value from memory_facts where scope = ? and key = ?').get(
      scopeKey(scope),
      key,
    ) as { value: string } | undefined;
    return row?.value;
  }

  delete(scope: FactScope, key: string): boolean {
    return (
      prepared(this.db, 'delete from memory_facts where scope = ? and key = ?').run(
        scopeKey(scope),
        key,
      ).changes > 0
    );
  }

  /** Facts of the given scopes (all scopes when none is given), by scope then key. */
  list(scopes?: readonly FactScope[]): Fact[] {
    const rows = prepared(
      this.db,
      'select scope, key, value, updated_at from memory_facts order by scope, key',
    ).all() as Array<{ scope: string; key: string; value: string; updated_at: string }>;
    const wanted = scopes ? new Set(scopes.map(scopeKey)) : undefined;
    return rows
      .filter((r) => !wanted || wanted.has(r.scope))
      .map((r) => ({
        scope: parseStoredScope(r.scope),
        key: r.key,
        value: r.value,
        updatedAt: r.updated_at,
      }));
  }
}
