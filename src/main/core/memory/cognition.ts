/**
 * CKP 0.3.0's cognitive memory extensions (§5.6) as the note and document index applies them:
 * salience as a bounded boost on the fused rank, forgetting by decay (or by folding faded notes
 * into one summary note), consolidation by merging a near-duplicate note into the entry it
 * repeats, and provenance on every entry. A store that declares none of them gets no policy,
 * and memory behaves as it did before 0.3.0.
 */
import type { ResolvedClaw, MemoryStore as StoreSpec } from '../ckp/index.js';

/** Where an entry came from: shown with a hit when the store tracks sources. */
export type Origin = 'user' | 'model' | 'tool' | 'file' | 'operator';

export interface MemoryPolicy {
  /** The store's declared role (informational: it picks no behaviour by itself). */
  role?: StoreSpec['role'];
  /** Boost hits that were reused, are recent, or that a person marked. */
  salience?: { reuse: boolean; recency: boolean; userPreference: boolean };
  /** Notes neither reused nor recent fade in rank and, past the threshold, go (or are folded). */
  forgetting?: { mode: 'decay' | 'summarize'; halfLifeMs: number; threshold: number };
  /** A note this similar to an existing one updates it instead of adding another. */
  merge?: { similarity: number };
  /** Hits carry their origin (and the tool shows it). */
  provenance?: boolean;
}

/** A fresh, unused note halves its strength in this time; reuse multiplies it. */
export const DEFAULT_HALF_LIFE_MS = 30 * 86_400_000;
/** Below this strength a note is forgotten: ~4.3 half-lives for a note never reused. */
export const DEFAULT_FORGET_THRESHOLD = 0.05;
/** The most salience may add to a hit's fused score, and decay take from it (fractions). */
export const MAX_SALIENCE_BOOST = 0.2;
export const MAX_DECAY_PENALTY = 0.2;
/** Cosine similarity (or word overlap without vectors) at which a note counts as the same. */
export const MERGE_SIMILARITY = 0.92;

/** The names a manifest may give each signal Pincer observes (the spec's, and common others). */
const SIGNALS = {
  reuse: ['reuse', 'access', 'goal_relevance'],
  recency: ['recency', 'age', 'novelty'],
  userPreference: ['user_preference', 'user-preference', 'user-marked', 'user_marked'],
} as const;

/** Which signals a list names; a list naming none Pincer knows (or none at all) means all. */
function signalsOf(signals: readonly string[] | undefined): Record<keyof typeof SIGNALS, boolean> {
  const named = (key: keyof typeof SIGNALS) =>
    (SIGNALS[key] as readonly string[]).some((name) => signals?.includes(name));
  const out = {
    reuse: named('reuse'),
    recency: named('recency'),
    userPreference: named('userPreference'),
  };
  return out.reuse || out.recency || out.userPreference
    ? out
    : { reuse: true, recency: true, userPreference: true };
}

/** The policy a store spec declares, or undefined when it declares none of the extensions. */
export function policyOf(spec: StoreSpec): MemoryPolicy | undefined {
  const policy: MemoryPolicy = {};
  if (spec.role) policy.role = spec.role;
  if (spec.salience?.enabled) {
    // user_preference is a person's mark (or a note a person added); reuse and recency are
    // what Pincer observes of use.
    policy.salience = signalsOf(spec.salience.signals);
  }
  const strategy = spec.forgetting?.strategy;
  if (strategy === 'decay' || strategy === 'summarize' || strategy === 'adaptive') {
    policy.forgetting = {
      // adaptive keeps what it forgets, folded into a summary note, like summarize.
      mode: strategy === 'decay' ? 'decay' : 'summarize',
      halfLifeMs: DEFAULT_HALF_LIFE_MS,
      threshold: DEFAULT_FORGET_THRESHOLD,
    };
  }
  const consolidation = spec.lifecycle?.consolidation;
  if (consolidation === 'merge' || consolidation === 'adaptive')
    policy.merge = { similarity: MERGE_SIMILARITY };
  if (spec.confidence?.source_tracking) policy.provenance = true;
  return Object.keys(policy).length > 0 ? policy : undefined;
}

/** The policy of the store that memory search reads: the semantic store, else the conversation one. */
export function memoryPolicyFromManifest(claw: ResolvedClaw): MemoryPolicy | undefined {
  const stores = claw.memory?.spec.stores ?? [];
  const store =
    stores.find((s) => s.type === 'semantic' && policyOf(s)) ??
    stores.find((s) => s.type === 'conversation' && policyOf(s));
  return store ? policyOf(store) : undefined;
}

/** What an entry's use says about it, as the store keeps it. */
export interface UseRecord {
  uses: number;
  pinned: boolean;
  origin: Origin | null;
  /** Last time a search returned it, else when it last changed (ms since epoch). */
  lastTouchedMs: number;
}

/**
 * How strongly an entry is remembered, in (0, uses + 1]: halves every half-life since it was
 * last touched, and each reuse adds a full unit. A pinned entry never fades.
 */
export function strength(use: UseRecord, nowMs: number, halfLifeMs: number): number {
  if (use.pinned) return Number.POSITIVE_INFINITY;
  const age = Math.max(0, nowMs - use.lastTouchedMs);
  return (1 + use.uses) * 0.5 ** (age / halfLifeMs);
}

/**
 * The factor a hit's fused score is multiplied by: 1 plus a salience boost (at most
 * MAX_SALIENCE_BOOST) minus a decay penalty (at most MAX_DECAY_PENALTY). Bounded, so relevance
 * still decides between hits that are not close.
 */
export function rankFactor(use: UseRecord, nowMs: number, policy: MemoryPolicy): number {
  let factor = 1;
  const s = policy.salience;
  if (s) {
    let boost = 0;
    // Saturating: the first few reuses count most.
    if (s.reuse) boost += 0.5 * (1 - 1 / (1 + use.uses));
    if (s.recency) boost += 0.25 * 0.5 ** (Math.max(0, nowMs - use.lastTouchedMs) / 7 / 86_400_000);
    if (s.userPreference && (use.pinned || use.origin === 'user')) boost += 0.25;
    factor += MAX_SALIENCE_BOOST * Math.min(1, boost);
  }
  const f = policy.forgetting;
  if (f) {
    const st = Math.min(1, strength(use, nowMs, f.halfLifeMs));
    factor -= MAX_DECAY_PENALTY * (1 - st);
  }
  return factor;
}

/** Word-set overlap (Jaccard) of two texts: the near-duplicate test when there are no vectors. */
export function wordOverlap(a: string, b: string): number {
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []);
  const x = words(a);
  const y = words(b);
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return shared / (x.size + y.size - shared);
}

/** Faded notes folded into one, without a model: each one's first line, with its date. */
export function foldNotes(notes: ReadonlyArray<{ text: string; updatedAt: string }>): string {
  const lines = notes.map((n) => {
    const first = n.text.trim().split('\n')[0]?.trim() ?? '';
    return `- ${n.updatedAt.slice(0, 10)}: ${first.length > 200 ? `${first.slice(0, 199)}…` : first}`;
  });
  return `# Older notes, folded\n\n${lines.join('\n')}\n`;
}
