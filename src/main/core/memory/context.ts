/**
 * The context builder (#10, seed 002 "context loading"): the system text of each model call,
 * assembled from the identity (SOUL.md, else the manifest's personality), USER.md, the last N
 * daily threads and this week's thread, the top skills for the message, and memories retrieved
 * for it, within a token budget. What does not fit, or is not there, is reported with a reason,
 * so a missing memory is a visible decision and not a mystery.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { renderSkill, type SkillRegistry } from '../skills/registry.js';
import { GLOBAL } from './facts.js';
import type { MemoryStore, SearchHit } from './store.js';
import { readRecentThreads } from './threads.js';

export interface ContextRequest {
  sessionId?: string;
  /** The latest user text: what skills and memories are matched against. */
  text?: string;
}

export interface ContextSection {
  name: string;
  tokens: number;
  text: string;
}

export interface DroppedSection {
  name: string;
  reason: string;
  tokens?: number;
}

export interface BuiltContext {
  text: string;
  tokens: number;
  budget: number;
  included: Array<{ name: string; tokens: number }>;
  dropped: DroppedSection[];
}

export interface ContextBuilderOptions {
  workspace: string;
  /** Used when the workspace has no SOUL.md (CKP Identity `personality`). */
  personality?: string;
  /** Always first (the `--system` prompt, or the default one). */
  preamble?: string;
  memory?: MemoryStore;
  skills?: SkillRegistry;
  /** Whether a tool is allowed in this session; skills needing others are not offered. */
  isToolAllowed?: (name: string) => boolean;
  /** Tokens the system text may use: a share of the model's window (see `budgetFor`). */
  budgetTokens: number;
  /** The model's own tokenizer where there is one; else about four characters a token. */
  countTokens?: (text: string) => number;
  dailyThreads?: number;
  weeklyThread?: boolean;
  maxSkills?: number;
  maxMemories?: number;
  /** A memory found only by vector search needs at least this cosine similarity (default 0.5). */
  minSimilarity?: number;
  now?: () => Date;
}

/** The system text's share of a context window; the rest is history and the reply. */
export function budgetFor(contextWindow: number, share = 0.4): number {
  return Math.floor(contextWindow * share);
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

interface Candidate {
  name: string;
  text: string;
  /** Lower is more important: dropped last. */
  priority: number;
  /** Where it goes in the text (identity first, memories last). */
  order: number;
}

export class ContextBuilder {
  private readonly count: (text: string) => number;

  constructor(private readonly options: ContextBuilderOptions) {
    this.count = options.countTokens ?? estimateTokens;
  }

  async build(request: ContextRequest = {}): Promise<BuiltContext> {
    const { options } = this;
    const now = (options.now ?? (() => new Date()))();
    const dropped: DroppedSection[] = [];
    const candidates: Candidate[] = [];
    const add = (name: string, text: string, priority: number, order: number) =>
      candidates.push({ name, text: text.trim(), priority, order });

    if (options.preamble?.trim()) add('preamble', options.preamble, 0, 0);
    const soul = await readOptional(path.join(options.workspace, 'SOUL.md'));
    if (soul?.trim()) add('SOUL.md', `# Identity\n${soul}`, 0, 1);
    else if (options.personality?.trim())
      add('personality', `# Identity\n${options.personality}`, 0, 1);
    else
      dropped.push({ name: 'identity', reason: 'no SOUL.md in the workspace and no personality' });
    const user = await readOptional(path.join(options.workspace, 'USER.md'));
    if (user?.trim()) add('USER.md', `# About the user\n${user}`, 1, 2);
    else dropped.push({ name: 'USER.md', reason: 'not in the workspace' });

    const days = options.dailyThreads ?? 3;
    const threads = await readRecentThreads(options.workspace, now, days);
    threads.daily.forEach((thread, age) => {
      // Today outranks retrieved memories; older days go before skills and memories do.
      add(
        thread.name,
        `# Daily thread ${thread.name}\n${thread.text}`,
        age === 0 ? 2 : 5 + age,
        3 + age,
      );
    });
    if (options.weeklyThread ?? true) {
      if (threads.weekly)
        add(threads.weekly.name, `# Weekly thread\n${threads.weekly.text}`, 5, 3 + days);
      else dropped.push({ name: 'weekly thread', reason: 'none for this week' });
    }
    const facts = options.memory?.facts.list([GLOBAL]) ?? [];
    if (facts.length > 0)
      add(
        'facts',
        `# Known facts\n${facts.map((f) => `- ${f.key}: ${f.value}`).join('\n')}`,
        1,
        2.5,
      );
    const threadFiles = new Set(
      [...threads.daily, ...(threads.weekly ? [threads.weekly] : [])].map((t) =>
        path.resolve(options.workspace, t.name),
      ),
    );

    const text = request.text?.trim() ?? '';
    if (options.skills && text) {
      const matches = await options.skills.match(text, {
        isToolAllowed: options.isToolAllowed ?? (() => false),
        limit: options.maxSkills ?? 3,
      });
      matches.forEach((m, i) => {
        add(`skill ${m.skill.name}`, renderSkill(m.skill), 4, 10 + i);
      });
    }

    const result =
      options.memory && text
        ? await options.memory
            .search(text, { limit: options.maxMemories ?? 5 })
            .catch((error: unknown) => {
              // A failed search costs this turn its memories, not the turn itself.
              dropped.push({
                name: 'memories',
                reason: `search failed: ${(error as Error).message}`,
              });
              return undefined;
            })
        : undefined;
    if (result) {
      if (result.notice) dropped.push({ name: 'vector search', reason: result.notice });
      const fresh: SearchHit[] = [];
      for (const hit of result.hits) {
        const weak = !hit.ranks.fts && (hit.similarity ?? 0) < (options.minSimilarity ?? 0.5);
        if (threadFiles.has(hit.source))
          dropped.push({
            name: memoryName(hit),
            reason: 'already in context (its thread is loaded)',
          });
        else if (weak)
          dropped.push({
            name: memoryName(hit),
            reason: `weak match (no shared words, similarity ${(hit.similarity ?? 0).toFixed(2)})`,
          });
        else fresh.push(hit);
      }
      fresh.forEach((hit, i) => {
        add(
          memoryName(hit),
          `# Remembered (${memoryName(hit)}, ${hit.updatedAt.slice(0, 10)})\n${hit.text}`,
          3,
          20 + i,
        );
      });
    }

    // Keep the most important sections that fit; a lower-priority one never displaces a higher.
    let left = options.budgetTokens;
    const kept: Array<Candidate & { tokens: number }> = [];
    const ranked = [...candidates].sort((a, b) => a.priority - b.priority || a.order - b.order);
    for (const candidate of ranked) {
      const tokens = this.count(candidate.text);
      if (tokens <= left) {
        kept.push({ ...candidate, tokens });
        left -= tokens;
      } else {
        dropped.push({
          name: candidate.name,
          reason: `over the token budget (needs ${tokens}, ${left} of ${options.budgetTokens} left)`,
          tokens,
        });
      }
    }
    kept.sort((a, b) => a.order - b.order);
    const body = kept.map((c) => c.text).join('\n\n');
    return {
      text: body,
      tokens: options.budgetTokens - left,
      budget: options.budgetTokens,
      included: kept.map((c) => ({ name: c.name, tokens: c.tokens })),
      dropped,
    };
  }
}

function memoryName(hit: SearchHit): string {
  return hit.kind === 'note' ? hit.source : `${hit.source}:${hit.startLine}-${hit.endLine}`;
}

async function readOptional(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch(() => undefined);
}

/** One line per section, for a human: what went in and what was left out and why. */
export function describeContext(built: BuiltContext): string {
  const lines = [`context: ${built.tokens} of ${built.budget} tokens`];
  for (const s of built.included) lines.push(`  + ${s.name} (${s.tokens})`);
  for (const d of built.dropped) lines.push(`  - ${d.name}: ${d.reason}`);
  return `${lines.join('\n')}\n`;
}
