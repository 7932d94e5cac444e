import { describe, expect, it } from 'vitest';
import type { ResolvedClaw } from '../../../src/main/core/ckp/resolved.js';
import { durationMs, retentionFromManifest } from '../../../src/main/core/memory/retention.js';

describe('CKP retention', () => {
  it('reads durations', () => {
    expect(durationMs('90d')).toBe(90 * 86_400_000);
    expect(durationMs('24h')).toBe(86_400_000);
    expect(durationMs('45s')).toBe(45_000);
    expect(() => durationMs('3 weeks')).toThrow(/not a duration/);
  });

  it('takes the semantic store, else the conversation store, else none', () => {
    const claw = (stores: unknown[]) =>
      ({ memory: { spec: { stores } } }) as unknown as ResolvedClaw;
    expect(
      retentionFromManifest(
        claw([
          { name: 'c', type: 'conversation', retention: { max_age: '90d', max_entries: 50000 } },
          { name: 'k', type: 'semantic', retention: { max_entries: 10 } },
        ]),
      ),
    ).toEqual({ maxEntries: 10 });
    expect(
      retentionFromManifest(
        claw([{ name: 'c', type: 'conversation', retention: { max_age: '7d' } }]),
      ),
    ).toEqual({ maxAgeMs: 7 * 86_400_000 });
    expect(retentionFromManifest(claw([{ name: 'k', type: 'key-value' }]))).toBeUndefined();
    expect(retentionFromManifest({} as ResolvedClaw)).toBeUndefined();
  });
});
