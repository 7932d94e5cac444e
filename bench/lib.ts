/**
 * A tiny benchmark harness. Every benchmark measures its subject AND a baseline in the same
 * process, interleaved, and reports medians and the ratio: on a noisy 2-core machine only the
 * ratio is comparable between runs.
 */
export interface BenchCase {
  name: string;
  /** One unit of work; may be async. */
  fn: () => unknown;
}

export interface BenchResult {
  name: string;
  medianNs: number;
  samples: number;
}

export interface BenchOptions {
  /** Timed samples per case (interleaved between cases). */
  samples?: number;
  /** Calls per sample; the per-call time is the sample divided by this. */
  iterations?: number;
  warmup?: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export async function measure(
  cases: BenchCase[],
  options: BenchOptions = {},
): Promise<BenchResult[]> {
  const { samples = 15, iterations = 1000, warmup = 3 } = options;
  const times = cases.map(() => [] as number[]);
  for (let round = 0; round < warmup + samples; round++) {
    for (const [index, benchCase] of cases.entries()) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) await benchCase.fn();
      const elapsed = Number(process.hrtime.bigint() - start) / iterations;
      if (round >= warmup) times[index]?.push(elapsed);
    }
  }
  return cases.map((benchCase, index) => ({
    name: benchCase.name,
    medianNs: median(times[index] ?? []),
    samples,
  }));
}

function formatNs(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** Prints each case's median and its ratio against the first case (the baseline). */
export function report(title: string, results: BenchResult[]): void {
  const [baseline] = results;
  if (!baseline) return;
  console.log(`\n${title}`);
  for (const result of results) {
    const ratio = result.medianNs / baseline.medianNs;
    console.log(
      `  ${result.name.padEnd(40)} median ${formatNs(result.medianNs).padStart(10)}/op` +
        `  ratio ${ratio.toFixed(2)}x${result === baseline ? ' (baseline)' : ''}`,
    );
  }
}
