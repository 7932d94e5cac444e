/**
 * The local engine's thread count on a busy machine (#25): generation tokens/s of a generated
 * model (512 hidden, 4 layers, Q4_0) through node-llama-cpp at 1 thread, at every logical CPU
 * (node-llama-cpp's own default) and at Pincer's choice (`AdaptiveThreads`), each quiet and
 * under a competing CPU load (one spinning process per logical CPU), the settings alternated
 * in every round. The ratio is against 1 thread in the same condition.
 * Then a load that starts mid-conversation: the thread count an engine opened on a quiet machine
 * kept (what Pincer did before it chose again each turn) against the count chosen again
 * before each evaluation (`AdaptiveThreads`, as the engine now does), both under the load.
 * PINCER_BENCH_SAMPLES sets the rounds (default 3), PINCER_BENCH_TOKENS the tokens (default 256).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { getLlama, LlamaCompletion } from 'node-llama-cpp';
import { AdaptiveThreads } from '../src/main/core/local/runtime.js';
import { writeTinyGguf } from '../test/fixtures/tiny-gguf.js';
import { spread } from './process.js';

/** Greedy generation from a fixed prompt, in tokens per second of wall time. */
async function tokensPerSecond(completion: LlamaCompletion, tokens: number): Promise<number> {
  const start = performance.now();
  let generated = 0;
  await completion.generateCompletion('Once upon a time', {
    maxTokens: tokens,
    temperature: 0,
    onTextChunk: () => {
      generated++;
    },
  });
  return (generated * 1000) / (performance.now() - start);
}

function competingLoad(): ChildProcess[] {
  return Array.from({ length: os.availableParallelism() }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
}

export async function run(): Promise<void> {
  const rounds = Number(process.env.PINCER_BENCH_SAMPLES ?? 3);
  const tokens = Number(process.env.PINCER_BENCH_TOKENS ?? 256);
  const file = path.join(os.tmpdir(), `pincer-bench-threads-${process.pid}.gguf`);
  await writeTinyGguf(file, {
    embedding: 512,
    layers: 4,
    heads: 8,
    kvHeads: 8,
    feedForward: 1024,
    contextLength: 1024,
    weights: 'q4_0',
  });
  const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false });
  const model = await llama.loadModel({ modelPath: file });
  const logical = os.availableParallelism();
  try {
    for (const condition of ['quiet', 'under load'] as const) {
      const load = condition === 'under load' ? competingLoad() : [];
      try {
        // Pincer's count is chosen as the engine chooses it before a turn: from what other
        // programs used over the last moments (2 s here).
        const choice = new AdaptiveThreads();
        await new Promise((resolve) => setTimeout(resolve, 2000));
        const pincer = choice.next();
        const settings = [
          { name: '1 thread (baseline)', threads: 1 },
          { name: `every logical CPU (${logical})`, threads: logical },
          { name: `Pincer's choice (${pincer})`, threads: pincer },
        ];
        const rates = new Map<string, number[]>(settings.map((s) => [s.name, []]));
        for (let round = 0; round < rounds; round++) {
          for (const setting of settings) {
            const context = await model.createContext({
              contextSize: 512,
              threads: setting.threads,
            });
            const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
            rates.get(setting.name)?.push(await tokensPerSecond(completion, tokens));
            await context.dispose();
          }
        }
        const base = spread(rates.get('1 thread (baseline)') ?? []).median;
        console.log(`\nthreads, ${condition}: ${rounds} rounds of ${tokens} tokens, tokens/s`);
        for (const setting of settings) {
          const s = spread(rates.get(setting.name) ?? []);
          console.log(
            `  ${setting.name.padEnd(28)} ${s.median.toFixed(0).padStart(6)} (${s.min.toFixed(0)}..${s.max.toFixed(0)})` +
              `  ratio ${(s.median / base).toFixed(2)}x`,
          );
        }
      } finally {
        for (const child of load) child.kill();
      }
    }
    await midConversation(llama, model, rounds, tokens);
  } finally {
    await model.dispose();
    await llama.dispose();
    await rm(file, { force: true });
  }
}

async function midConversation(
  llama: Awaited<ReturnType<typeof getLlama>>,
  model: Awaited<ReturnType<Awaited<ReturnType<typeof getLlama>>['loadModel']>>,
  rounds: number,
  tokens: number,
): Promise<void> {
  const adaptive = new AdaptiveThreads();
  // An engine opened while the machine was quiet: every core it would give.
  const atOpen = adaptive.ceiling;
  const context = await model.createContext({ contextSize: 512, threads: adaptive.ceiling });
  const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
  const generate = (threads: number) => {
    llama.maxThreads = threads;
    return tokensPerSecond(completion, tokens);
  };
  const fixed: number[] = [];
  const chosen: number[] = [];
  const counts: number[] = [];
  try {
    await generate(adaptive.next()); // the quiet first turn
    const load = competingLoad();
    try {
      for (let round = 0; round < rounds; round++) {
        fixed.push(await generate(atOpen));
        const threads = adaptive.next();
        counts.push(threads);
        chosen.push(await generate(threads));
      }
    } finally {
      for (const child of load) child.kill();
    }
  } finally {
    await context.dispose();
  }
  const a = spread(fixed);
  const b = spread(chosen);
  console.log(`
threads, a load starting mid-conversation: ${rounds} turns under it, tokens/s`);
  console.log(
    `  kept from a quiet start (${atOpen})        ${a.median.toFixed(0).padStart(6)} (${a.min.toFixed(0)}..${a.max.toFixed(0)})`,
  );
  console.log(
    `  chosen again each turn (${counts.join(', ')})  ${b.median.toFixed(0).padStart(6)} (${b.min.toFixed(0)}..${b.max.toFixed(0)})  ratio ${(b.median / a.median).toFixed(2)}x`,
  );
}
