/**
 * Limits every run carries. Hitting one ends the run with a stated reason, never a hang.
 */
export interface Guards {
  /** Model calls per run. */
  maxTurns: number;
  /** Deadline of one model call, stream included. */
  turnTimeoutMs: number;
  /** Deadline of the whole run, tools included. */
  runTimeoutMs: number;
  /** Input plus output tokens over the run. */
  maxTokens: number;
  maxCostUsd: number;
  /** The same call (tool and arguments) this many times in one run ends it: a loop. */
  maxIdenticalCalls: number;
  /** Read-only calls running at once. */
  maxParallelTools: number;
}

export const DEFAULT_GUARDS: Readonly<Guards> = Object.freeze({
  maxTurns: 12,
  turnTimeoutMs: 180_000,
  runTimeoutMs: 900_000,
  maxTokens: 400_000,
  maxCostUsd: 1,
  maxIdenticalCalls: 3,
  maxParallelTools: 4,
});

/** Stable text of a call for the repeat guard: key order does not make two calls different. */
export function callSignature(name: string, input: unknown): string {
  return `${name} ${stableJson(input)}`;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : 1,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
