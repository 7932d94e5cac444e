/**
 * `claw.memory.query|store|compact` (§9.3.4) over the profile's memory. A store is named by the
 * served manifest's Memory primitive; its type decides where entries live: `key-value` stores
 * are the facts table (scoped per identity when the store says so), every other type is the
 * note and document index that memory search reads.
 */
import { randomUUID } from 'node:crypto';
import type { Agent } from '../agent/index.js';
import type { MemoryStore as MemoryStoreSpec } from '../ckp/index.js';
import { CKP_ERRORS } from '../ckp/index.js';
import { durationMs, type FactScope, GLOBAL } from '../memory/index.js';
import { RpcError } from './jsonrpc.js';
import type { memoryQueryParams, memoryStoreParams } from './params.js';

type Query = (typeof memoryQueryParams)['_output']['query'];
type Entries = (typeof memoryStoreParams)['_output']['entries'];

export interface MemoryEntry {
  id: string;
  content: string;
  score?: number;
  timestamp?: string;
}

function storeOf(agent: Agent, name: string): MemoryStoreSpec {
  const stores = agent.claw.memory?.spec.stores ?? [];
  const store = stores.find((s) => s.name === name);
  if (!store) {
    throw new RpcError(CKP_ERRORS.invalidParams, `Invalid params: no memory store "${name}"`, {
      store: name,
      available: stores.map((s) => s.name),
    });
  }
  return store;
}

function scopeOf(agent: Agent, store: MemoryStoreSpec): FactScope {
  return store.scope === 'per-identity' || store.isolation === 'per-identity'
    ? { kind: 'identity', id: agent.claw.identity.name }
    : GLOBAL;
}

export async function queryMemory(
  agent: Agent,
  name: string,
  query: Query,
): Promise<MemoryEntry[]> {
  const store = storeOf(agent, name);
  const limit = query.top_k ?? store.search?.top_k ?? 10;
  const memory = agent.memory.store;
  if (store.type === 'key-value') {
    const facts = memory.facts.list([scopeOf(agent, store)]);
    if (query.type === 'semantic') {
      throw new RpcError(
        CKP_ERRORS.invalidParams,
        `Invalid params: "${name}" is a key-value store; query it by key or time-range`,
        { store: name, type: store.type },
      );
    }
    const matching =
      query.type === 'key'
        ? facts.filter((fact) => fact.key === query.key)
        : facts.filter((fact) => within(fact.updatedAt, query.time_range));
    return matching
      .slice(0, limit)
      .map((fact) => ({ id: fact.key, content: fact.value, timestamp: fact.updatedAt }));
  }
  if (query.type === 'semantic') {
    const found = await memory.search(query.text, { limit });
    return found.hits.map((hit) => ({
      id: hit.source,
      content: hit.text,
      ...(hit.similarity !== undefined ? { score: clamp01(hit.similarity) } : {}),
      timestamp: hit.updatedAt,
    }));
  }
  const documents =
    query.type === 'key'
      ? memory.documents({ source: noteSource(query.key), limit })
      : memory.documents({
          from: new Date(query.time_range.from).toISOString(),
          to: new Date(query.time_range.to).toISOString(),
          limit,
        });
  return documents.map((doc) => ({ id: doc.source, content: doc.text, timestamp: doc.updatedAt }));
}

export async function storeMemory(
  agent: Agent,
  name: string,
  entries: Entries,
): Promise<{ stored: number; ids: string[] }> {
  const store = storeOf(agent, name);
  const memory = agent.memory.store;
  if (store.type === 'key-value') {
    const missing = entries.findIndex((entry) => !entry.key);
    if (missing >= 0) {
      throw new RpcError(
        CKP_ERRORS.invalidParams,
        'Invalid params: a key-value entry needs a key',
        {
          path: `entries.${missing}.key`,
        },
      );
    }
    const scope = scopeOf(agent, store);
    for (const entry of entries)
      memory.facts.set(scope, entry.key as string, textOf(entry.content));
    return { stored: entries.length, ids: entries.map((entry) => entry.key as string) };
  }
  const ids: string[] = [];
  for (const entry of entries) {
    const outcome = await memory.addNote(textOf(entry.content), {
      source: noteSource(entry.key ?? `ckp-${randomUUID()}`),
      origin: 'operator',
    });
    ids.push(outcome.source);
  }
  return { stored: ids.length, ids };
}

/**
 * Applies the store's declared retention now, and the forgetting its memory policy declares
 * (CKP 0.3.0). Key-value stores declare none that Pincer applies, so their count does not change.
 */
export async function compactMemory(
  agent: Agent,
  name: string,
): Promise<{ entries_before: number; entries_after: number }> {
  const store = storeOf(agent, name);
  const memory = agent.memory.store;
  if (store.type === 'key-value') {
    const count = memory.facts.list([scopeOf(agent, store)]).length;
    return { entries_before: count, entries_after: count };
  }
  const before = memory.stats().notes;
  const retention = store.retention;
  if (retention) {
    memory.applyRetention({
      ...(retention.max_age ? { maxAgeMs: durationMs(retention.max_age) } : {}),
      ...(retention.max_entries ? { maxEntries: retention.max_entries } : {}),
    });
  }
  await memory.applyForgetting();
  return { entries_before: before, entries_after: memory.stats().notes };
}

function noteSource(key: string): string {
  return key.startsWith('note:') ? key : `note:${key}`;
}

function textOf(content: string | Record<string, unknown>): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

function within(at: string, range: { from: string; to: string }): boolean {
  const t = Date.parse(at);
  return t >= Date.parse(range.from) && t <= Date.parse(range.to);
}

function clamp01(value: number): number {
  return Math.max(0, Math.min(1, value));
}
