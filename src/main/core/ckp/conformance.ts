/** CKP §11 conformance level, computed from the primitive kinds a manifest declares. */
import type { PrimitiveKind } from './schemas.js';

export type ConformanceLevel = 'level-1' | 'level-2' | 'level-3';

/** Telemetry is optional at every level, so it is in none of these lists. */
const REQUIRED: Record<ConformanceLevel, PrimitiveKind[]> = {
  'level-1': ['Identity', 'Provider'],
  'level-2': ['Identity', 'Provider', 'Channel', 'Tool', 'Sandbox', 'Policy'],
  'level-3': [
    'Identity',
    'Provider',
    'Channel',
    'Tool',
    'Skill',
    'Memory',
    'Sandbox',
    'Policy',
    'Swarm',
  ],
};
const LABEL: Record<ConformanceLevel, string> = {
  'level-1': 'Core',
  'level-2': 'Standard',
  'level-3': 'Full',
};

export interface Conformance {
  level: ConformanceLevel | null;
  label: string;
  /** Kinds present in the manifest. */
  primitives: PrimitiveKind[];
  /** What the next level up still needs (empty at level 3). */
  missingForNext: PrimitiveKind[];
}

export function computeConformance(present: Iterable<PrimitiveKind>): Conformance {
  const have = new Set(present);
  const levels = Object.keys(REQUIRED) as ConformanceLevel[];
  const reached = levels.filter((level) => REQUIRED[level].every((kind) => have.has(kind)));
  const level = reached.at(-1) ?? null;
  const next = levels[level ? levels.indexOf(level) + 1 : 0];
  return {
    level,
    label: level ? LABEL[level] : 'none',
    primitives: [...have],
    missingForNext: next ? REQUIRED[next].filter((kind) => !have.has(kind)) : [],
  };
}
