/**
 * Local engine benchmark on a generated model with Qwen2.5-0.5B's real shape (random Q4_0
 * weights, 151,936-token BPE vocabulary): prompt and generation tokens/s through Pincer's engine
 * vs node-llama-cpp called directly with the same settings; time to first token at turns 1, 5
 * and 10 with and without KV reuse; grammar-constrained vs free generation.
 *
 * The two sides alternate which goes first each round (A B, B A, ...), so a machine that gets
 * busier or quieter during the run weighs on both alike; each figure is the median with its
 * spread (min..max). PINCER_BENCH_SAMPLES sets the rounds (default 7), PINCER_BENCH_TOKENS the
 * generated tokens per sample (default 48).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getLlama, LlamaChat } from 'node-llama-cpp';
import { chatWrapperFor } from '../src/main/core/local/chat-format.js';
import { LocalEngine } from '../src/main/core/local/engine.js';
import type { LocalMessage } from '../src/main/core/local/types.js';
import {
  QWEN_TOOLS_TEMPLATE,
  QWEN25_05B_SHAPE,
  writeTinyGguf,
} from '../test/fixtures/tiny-gguf.js';

const THREADS = 2;
const CONTEXT = 2048;
const SAMPLES = Number(process.env.PINCER_BENCH_SAMPLES ?? 7);
const GEN_TOKENS = Number(process.env.PINCER_BENCH_TOKENS ?? 48);

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
/** "median (min..max)" */
const spread = (values: number[]) =>
  `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}..${Math.max(...values).toFixed(1)})`;
const now = () => performance.now();

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
    maxConversations: 2,
    idleTimeoutMs: 0,
  });
  await engine.load();
  let fresh = 0;
  const pincer = async (maxTokens: number) => {
    const id = `bench-${fresh++}`;
    const start = now();
    const r = await engine.generate(id, {
      system,
      messages: [{ role: 'user', text: prompt(fresh) }],
      maxTokens,
    });
    const ms = now() - start;
    await engine.closeConversation(id);
    return { ms, input: r.usage.inputTokens, output: r.usage.outputTokens };
  };

  // node-llama-cpp directly, same model file, threads, context size and chat wrapper.
  const llama = await getLlama({
    gpu: false,
    build: 'never',
    maxThreads: THREADS,
    progressLogs: false,
  });
  const model = await llama.loadModel({ modelPath: file });
  const context = await model.createContext({ contextSize: CONTEXT, threads: THREADS });
  const direct = async (maxTokens: number) => {
    const sequence = context.getSequence();
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: chatWrapperFor(model) });
    const start = now();
    const r = await chat.generateResponse(
      [
        { type: 'system', text: system },
        { type: 'user', text: prompt(fresh++) },
        { type: 'model', response: [] },
      ],
      { maxTokens },
    );
    const ms = now() - start;
    const output = model.tokenize(r.response).length;
    const input = sequence.contextTokens.length - output;
    chat.dispose({ disposeSequence: true });
    return { ms, input, output };
  };

  const pp: Record<string, number[]> = { direct: [], pincer: [] };
  const tg: Record<string, number[]> = { direct: [], pincer: [] };
  const sides = [
    ['direct', direct],
    ['pincer', pincer],
  ] as const;
  for (let i = 0; i < SAMPLES + 1; i++) {
    // A B, then B A: neither side always runs on the warmer (or busier) machine.
    for (const [name, fn] of i % 2 ? [...sides].reverse() : sides) {
      const one = await fn(1);
      const many = await fn(GEN_TOKENS);
      if (i === 0) continue; // warm-up
      pp[name]?.push(one.input / (one.ms / 1000));
      tg[name]?.push((GEN_TOKENS - 1) / ((many.ms - one.ms) / 1000));
    }
  }
  console.log(
    `\nlocal engine on a Qwen2.5-0.5B-shaped model (Q4_0, CPU, ${THREADS} threads, context ${CONTEXT})`,
  );
  for (const [label, table] of [
    ['prompt processing', pp],
    ['generation', tg],
  ] as const) {
    const d = table.direct ?? [];
    const p = table.pincer ?? [];
    console.log(
      `  ${label.padEnd(18)} node-llama-cpp ${spread(d).padStart(22)} tok/s   pincer ${spread(p).padStart(22)} tok/s   ratio ${(median(p) / median(d)).toFixed(3)}`,
    );
  }
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

  // Grammar-constrained vs free generation.
  const schema = {
    type: 'object',
    properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
    required: ['answer', 'confidence'],
  };
  const gen = async (json: boolean) => {
    const id = `g-${fresh++}`;
    const base = { system, messages: [{ role: 'user' as const, text: prompt(1) }] };
    const start1 = now();
    await engine.generate(id, { ...base, maxTokens: 1, jsonSchema: json ? schema : undefined });
    const one = now() - start1;
    await engine.closeConversation(id);
    const start = now();
    const r = await engine.generate(id, {
      ...base,
      maxTokens: GEN_TOKENS,
      jsonSchema: json ? schema : undefined,
    });
    const ms = now() - start;
    await engine.closeConversation(id);
    return (r.usage.outputTokens - 1) / ((ms - one) / 1000);
  };
  const free: number[] = [];
  const constrained: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const order = i % 2 ? [true, false] : [false, true];
    for (const json of order) (json ? constrained : free).push(await gen(json));
  }
  console.log(
    `\ngeneration tok/s: free ${spread(free)}, JSON-schema grammar ${spread(constrained)}, ratio ${(median(constrained) / median(free)).toFixed(3)}`,
  );
  await engine.dispose();
  await llama.dispose();
}
