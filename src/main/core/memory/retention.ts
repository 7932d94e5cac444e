/** CKP Memory retention (`max_age: "90d"`, `max_entries`) as the store applies it. */
import type { ResolvedClaw } from '../ckp/index.js';
import type { Retention } from './forgetting.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "90d", "24h", "30m", "45s" in milliseconds (the CKP duration form). */
export function durationMs(text: string): number {
  const match = /^([0-9]+)(s|m|h|d)$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a duration like 90d, 24h, 30m or 45s`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/**
 * The retention of the manifest's semantic store (else its conversation store), or undefined
 * when the manifest sets none: notes are then kept until forgotten.
 */
export function retentionFromManifest(claw: ResolvedClaw): Retention | undefined {
  const stores = claw.memory?.spec.stores ?? [];
  const store =
    stores.find((s) => s.type === 'semantic' && s.retention) ??
    stores.find((s) => s.type === 'conversation' && s.retention);
  const retention = store?.retention;
  if (!retention) return undefined;
  return {
    ...(retention.max_age ? { maxAgeMs: durationMs(retention.max_age) } : {}),
    ...(retention.max_entries ? { maxEntries: retention.max_entries } : {}),
  };
}
