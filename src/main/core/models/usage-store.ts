/**
 * Daily token counters kept in the profile database, so `tokens_per_day` survives a restart
 * (an in-memory counter would hand out a fresh day's budget on every launch).
 */
import type { Db } from '../storage/index.js';
import { type Migration, migrate } from '../storage/index.js';
import type { ProviderId } from './ids.js';
import type { UsageStore } from './limits.js';

export const USAGE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'daily token usage per provider',
    up: `create table model_usage_daily (
      provider text not null,
      day text not null,
      tokens integer not null,
      primary key (provider, day)
    )`,
  },
];

export class SqliteUsageStore implements UsageStore {
  private readonly select;
  private readonly upsert;

  constructor(db: Db) {
    migrate(db, 'model_usage', USAGE_MIGRATIONS);
    this.select = db.prepare<[string, string], { tokens: number }>(
      'select tokens from model_usage_daily where provider = ? and day = ?',
    );
    this.upsert = db.prepare<[string, string, number]>(
      `insert into model_usage_daily (provider, day, tokens) values (?, ?, ?)
       on conflict (provider, day) do update set tokens = tokens + excluded.tokens`,
    );
  }

  get(provider: ProviderId, day: string): number {
    return this.select.get(provider, day)?.tokens ?? 0;
  }

  add(provider: ProviderId, day: string, tokens: number): void {
    this.upsert.run(provider, day, tokens);
  }
}
