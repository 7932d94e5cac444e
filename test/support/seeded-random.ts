/** A small seeded generator (mulberry32) so that a fuzz failure can be replayed from its seed. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  bytes(n: number): Buffer;
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    pick: <T>(items: readonly T[]) => items[int(items.length)] as T,
    bytes: (n: number) => {
      const out = Buffer.alloc(n);
      for (let i = 0; i < n; i++) out[i] = int(256);
      return out;
    },
  };
}

/** The seed for this run: PINCER_FUZZ_SEED replays one, else a fresh one. Printed either way. */
export function fuzzSeed(name: string): number {
  const seed = Number(process.env.PINCER_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`${name} fuzz seed: ${seed} (replay with PINCER_FUZZ_SEED=${seed})`);
  return seed;
}
