/**
 * Local engine benchmark on a generated model with Qwen2.5-0.5B's real shape (random Q4_0
 * weights, 151,936-token BPE vocabulary): Pincer's engine vs node-llama-cpp called directly with
 * the same model file, prompt, sampling (greedy), threads and context; time to first token at
 * turns 1, 5 and 10 with and without KV reuse; grammar-constrained vs free generation.
 *
 * How the comparison holds still on a noisy machine: each round runs both sides back to back on
 * the same prompt (A B, then B A, so neither always runs on the warmer or busier machine), and
 * the figure is the median of the per-round ratios, with their spread; a slow drift of the
 * machine's speed weighs on both halves of a pair alike. Each generation is timed from its own
 * callbacks: time to first token (the prompt's evaluation) and decode speed from the first
 * token to the end, so one doesn't leak into the other. Greedy sampling on the same prompt makes
 * both sides write the same tokens. PINCER_BENCH_SAMPLES sets the rounds (default 9),
 * PINCER_BENCH_TOKENS the tokens per generation (default 128).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type GbnfJsonSchema, getLlama, LlamaChat, type LlamaGrammar } from 'node-llama-cpp';
import { chatWrapperFor } from '../src/main/core/local/chat-format.js';
import { LocalEngine } from '../src/main/core/local/engine.js';
import { replyGrammar } from '../src/main/core/local/grammar.js';
import type { LocalMessage } from '../src/main/core/local/types.js';
import {
  QWEN_TOOLS_TEMPLATE,
  QWEN25_05B_SHAPE,
  writeTinyGguf,
} from '../test/fixtures/tiny-gguf.js';

/**
 * One thread by default: on a small machine two threads compete with everything else running
 * (one stall of either holds both), while one leaves a core to the rest and the ratio holds
 * still. PINCER_BENCH_THREADS sets it.
 */
const THREADS = Number(process.env.PINCER_BENCH_THREADS ?? 1);
const CONTEXT = 2048;
/** The engine's context holds this many conversations; the direct side's context matches it. */
const SEQUENCES = 2;
const SAMPLES = Number(process.env.PINCER_BENCH_SAMPLES ?? 9);
const GEN_TOKENS = Number(process.env.PINCER_BENCH_TOKENS ?? 128);

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
/** "median (min..max)" */
const spread = (values: number[], digits = 1) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}..${Math.max(...values).toFixed(digits)})`;
const now = () => performance.now();

/** One generation as its callbacks saw it. */
interface Timed {
  /** Prompt tokens evaluated. */
  input: number;
  output: number;
  /** Start to the first text. */
  ttftMs: number;
  /** Tokens after the first, per second of the time after the first text. */
  decode: number;
}

/**
 * Times a generation that calls `onText` as text arrives and returns its token counts and when
 * it ended (before any clean-up, which is not generation).
 */
async function timed(
  generate: (onText: () => void) => Promise<{ input: number; output: number; end: number }>,
): Promise<Timed> {
  const start = now();
  let first = 0;
  const { input, output, end } = await generate(() => {
    first ||= now();
  });
  if (!first || output < 8)
    throw new Error(`the generation wrote ${output} tokens: too few to time decoding`);
  return {
    input,
    output,
    ttftMs: first - start,
    decode: (output - 1) / ((end - first) / 1000),
  };
}

export async function run(): Promise<void> {
  const file = path.join(os.tmpdir(), 'pincer-bench-qwen2.5-0.5b-shaped.gguf');
  if (!existsSync(file)) {
    const start = now();
    await writeTinyGguf(file, { ...QWEN25_05B_SHAPE, chatTemplate: QWEN_TOOLS_TEMPLATE });
    console.log(`generated ${file} in ${((now() - start) / 1000).toFixed(1)} s`);
  }
  const system = 'You are Pincer, a careful local assistant. '.repeat(12);
  const prompt = (n: number) => `Question ${n}: summarise the plan in one line.`;

  // Pincer's engine.
  const engine = new LocalEngine({
    modelPath: file,
    runtime: { gpu: false, threads: THREADS },
    contextSize: CONTEXT,
    maxConversations: SEQUENCES,
    idleTimeoutMs: 0,
  });
  await engine.load();
  let fresh = 0;
  /** One generation through Pincer's engine, on a fresh conversation; `jsonSchema` constrains it. */
  const pincer = (question: number, maxTokens: number, jsonSchema?: Record<string, unknown>) =>
    timed(async (onText) => {
      const id = `bench-${fresh++}`;
      const r = await engine.generate(id, {
        system,
        messages: [{ role: 'user', text: prompt(question) }],
        maxTokens,
        jsonSchema,
        onText,
      });
      const end = now();
      await engine.closeConversation(id);
      return { input: r.usage.inputTokens, output: r.usage.outputTokens, end };
    });

  // node-llama-cpp directly, same model file, threads, context and chat wrapper.
  const llama = await getLlama({
    gpu: false,
    build: 'never',
    maxThreads: THREADS,
    progressLogs: false,
  });
  const model = await llama.loadModel({ modelPath: file });
  const context = await model.createContext({
    contextSize: CONTEXT,
    sequences: SEQUENCES,
    threads: THREADS,
  });
  const direct = (question: number, maxTokens: number, grammar?: LlamaGrammar) =>
    timed(async (onText) => {
      const sequence = context.getSequence();
      const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: chatWrapperFor(model) });
      await chat.generateResponse(
        [
          { type: 'system', text: system },
          { type: 'user', text: prompt(question) },
          { type: 'model', response: [] },
        ],
        { maxTokens, onTextChunk: onText, grammar },
      );
      const end = now();
      // Counted as the engine counts (its token meter): re-tokenizing the text of a random
      // model's bytes would not give back the tokens it wrote.
      const output = sequence.tokenMeter.getState().usedOutputTokens;
      const input = sequence.contextTokens.length - output;
      chat.dispose({ disposeSequence: true });
      return { input, output, end };
    });

  const sides = { direct: [] as Timed[], pincer: [] as Timed[] };
  for (let round = 0; round <= SAMPLES; round++) {
    // A B, then B A: neither side always runs on the warmer (or busier) machine.
    const order = round % 2 ? (['pincer', 'direct'] as const) : (['direct', 'pincer'] as const);
    for (const side of order) {
      const one = await (side === 'direct' ? direct : pincer)(round, GEN_TOKENS);
      if (round > 0) sides[side].push(one); // round 0 warms both up
    }
  }
  const { direct: d, pincer: p } = sides;
  const pairs = <T>(f: (t: Timed) => number, ratio: (a: number, b: number) => T) =>
    p.map((one, i) => ratio(f(one), f(d[i] as Timed)));
  const rows: Array<[string, (t: Timed) => number, string]> = [
    ['prompt tok/s', (t) => t.input / (t.ttftMs / 1000), ''],
    ['time to first token', (t) => t.ttftMs, ' ms'],
    ['decode tok/s', (t) => t.decode, ''],
  ];
  console.log(
    `\nlocal engine on a Qwen2.5-0.5B-shaped model (Q4_0, CPU, ${THREADS} threads, context ${CONTEXT}), ` +
      `${SAMPLES} paired rounds of ${median(p.map((t) => t.output))} tokens after a ${median(p.map((t) => t.input))}-token prompt`,
  );
  console.log(
    `  ${''.padEnd(20)} ${'node-llama-cpp'.padStart(22)} ${'pincer'.padStart(22)}   pincer / direct per round`,
  );
  for (const [label, f, unit] of rows) {
    const ratios = pairs(f, (a, b) => a / b);
    console.log(
      `  ${label.padEnd(20)} ${`${spread(d.map(f))}${unit}`.padStart(22)} ${`${spread(p.map(f))}${unit}`.padStart(22)}   ratio ${spread(ratios, 3)}`,
    );
  }
  const sameTokens = p.every((t, i) => t.output === d[i]?.output && t.input === d[i]?.input);
  if (!sameTokens)
    console.log('  (the two sides evaluated or wrote different token counts in some round)');
  await context.dispose();
  await model.dispose();

  // Time to first token over a 10-turn conversation, with KV reuse (one conversation) and
  // without (each turn a fresh sequence evaluating the whole history).
  const ttft = async (reuse: boolean) => {
    const messages: LocalMessage[] = [];
    const out: Record<number, number> = {};
    for (let turn = 1; turn <= 10; turn++) {
      messages.push({ role: 'user', text: prompt(turn) });
      const id = reuse ? 'ttft-reuse' : `ttft-cold-${turn}`;
      const start = now();
      let first = 0;
      const r = await engine.generate(id, {
        system,
        messages,
        maxTokens: 12,
        onText: () => {
          first ||= now() - start;
        },
      });
      if (!reuse) await engine.closeConversation(id);
      out[turn] = first || now() - start;
      messages.push({ role: 'assistant', text: r.text });
    }
    if (reuse) await engine.closeConversation('ttft-reuse');
    return out;
  };
  const warm = await ttft(true);
  const cold = await ttft(false);
  console.log('\ntime to first token (ms)     turn 1   turn 5  turn 10');
  for (const [label, t] of [
    ['with KV reuse', warm],
    ['without KV reuse', cold],
  ] as const) {
    console.log(
      `  ${label.padEnd(26)} ${[1, 5, 10].map((n) => (t[n] ?? 0).toFixed(0).padStart(7)).join('  ')}`,
    );
  }

  // Grammar-constrained vs free generation, paired per round like the comparison above.
  const schema = {
    type: 'object',
    properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
    required: ['answer', 'confidence'],
  };
  const free: number[] = [];
  const constrained: number[] = [];
  for (let round = 0; round <= SAMPLES; round++) {
    const order = round % 2 ? [true, false] : [false, true];
    for (const json of order) {
      const one = await pincer(round, GEN_TOKENS, json ? schema : undefined);
      if (round > 0) (json ? constrained : free).push(one.decode);
    }
  }
  const ratios = constrained.map((c, i) => c / (free[i] ?? c));
  console.log(
    `\ndecode tok/s: free ${spread(free)}, JSON-schema grammar ${spread(constrained)}, ratio per round ${spread(ratios, 3)}`,
  );

  // The engine's reply grammar (local/grammar.ts) against node-llama-cpp's own grammar for the
  // same schema, both on node-llama-cpp's chat directly, paired per round.
  const ours = await llama.createGrammar({ grammar: replyGrammar(schema).gbnf });
  const jsonGrammar = llama.createGrammarForJsonSchema as (
    schema: GbnfJsonSchema,
  ) => Promise<LlamaGrammar>;
  const theirs = await jsonGrammar.call(llama, schema as GbnfJsonSchema);
  const sides2 = { ours: [] as number[], theirs: [] as number[] };
  for (let round = 0; round <= SAMPLES; round++) {
    const order = round % 2 ? (['ours', 'theirs'] as const) : (['theirs', 'ours'] as const);
    for (const side of order) {
      const one = await direct(round, GEN_TOKENS, side === 'ours' ? ours : theirs);
      if (round > 0) sides2[side].push(one.decode);
    }
  }
  const grammarRatios = sides2.ours.map((o, i) => o / (sides2.theirs[i] ?? o));
  console.log(
    `decode tok/s under a JSON schema: node-llama-cpp's grammar ${spread(sides2.theirs)}, ` +
      `Pincer's reply grammar ${spread(sides2.ours)}, ratio per round ${spread(grammarRatios, 3)}`,
  );
  await engine.dispose();
  await llama.dispose();
}
