/**
 * The OpenAI-compatible endpoint vs node-llama-cpp called directly, on a generated model with
 * Qwen2.5-0.5B's real shape: time to first token and generation tokens/s for the same prompt
 * (ratio, goal >= 0.95), then the time to first token at turn 10 vs turn 1 of a chat client
 * that resends the whole history each turn (the endpoint's KV prefix reuse).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getLlama, LlamaChat } from 'node-llama-cpp';
import OpenAI from 'openai';
import { chatWrapperFor } from '../src/main/core/local/chat-format.js';
import { LocalEngine } from '../src/main/core/local/engine.js';
import {
  generateApiKey,
  LocalBackend,
  startOpenAiServer,
} from '../src/main/core/openai-server/index.js';
import {
  QWEN_TOOLS_TEMPLATE,
  QWEN25_05B_SHAPE,
  writeTinyGguf,
} from '../test/fixtures/tiny-gguf.js';

const THREADS = 2;
const CONTEXT = 2048;
const SAMPLES = Number(process.env.PINCER_BENCH_SAMPLES ?? 5);
const GEN_TOKENS = 24;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const now = () => performance.now();

interface Timing {
  ttftMs: number;
  tokensPerSecond: number;
}

export async function run(): Promise<void> {
  const file = path.join(os.tmpdir(), 'pincer-bench-qwen2.5-0.5b-shaped.gguf');
  if (!existsSync(file)) {
    const start = now();
    await writeTinyGguf(file, { ...QWEN25_05B_SHAPE, chatTemplate: QWEN_TOOLS_TEMPLATE });
    console.log(`generated ${file} in ${((now() - start) / 1000).toFixed(1)} s`);
  }
  // Each sample gets its own system prompt, so neither side answers from a warm KV cache.
  const system = (n: number) =>
    `Session ${n}. ${'You are Pincer, a careful local assistant. '.repeat(12)}`;
  const question = 'Summarise the plan in one line.';

  // node-llama-cpp directly: same file, threads, context size and chat wrapper.
  const llama = await getLlama({
    gpu: false,
    build: 'never',
    maxThreads: THREADS,
    progressLogs: false,
  });
  const model = await llama.loadModel({ modelPath: file });
  const context = await model.createContext({ contextSize: CONTEXT, threads: THREADS });
  const direct = async (n: number): Promise<Timing> => {
    const sequence = context.getSequence();
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: chatWrapperFor(model) });
    const start = now();
    let first = 0;
    await chat.generateResponse(
      [
        { type: 'system', text: system(n) },
        { type: 'user', text: question },
        { type: 'model', response: [] },
      ],
      {
        maxTokens: GEN_TOKENS,
        temperature: 0,
        onTextChunk: () => {
          first ||= now();
        },
      },
    );
    const end = now();
    chat.dispose({ disposeSequence: true });
    return { ttftMs: first - start, tokensPerSecond: (GEN_TOKENS - 1) / ((end - first) / 1000) };
  };

  // The endpoint: the engine behind the HTTP server, reached with the official client.
  const engine = new LocalEngine({
    modelPath: file,
    runtime: { gpu: false, threads: THREADS },
    contextSize: CONTEXT,
    maxConversations: 3,
    idleTimeoutMs: 0,
  });
  const backend = new LocalBackend({ engine, slots: 2 });
  await backend.load();
  const apiKey = generateApiKey();
  const server = await startOpenAiServer({ backend, port: 0, apiKey });
  const client = new OpenAI({ baseURL: server.baseUrl, apiKey, maxRetries: 0 });
  const modelId = backend.chatModel;
  const viaEndpoint = async (
    messages: OpenAI.ChatCompletionMessageParam[],
    maxTokens = GEN_TOKENS,
  ) => {
    const start = now();
    let first = 0;
    let text = '';
    let tokens = 0;
    const stream = await client.chat.completions.create({
      model: modelId,
      messages,
      max_tokens: maxTokens,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content;
      if (delta) {
        first ||= now();
        text += delta;
      }
      if (chunk.usage) tokens = chunk.usage.completion_tokens;
    }
    const end = now();
    return { ttftMs: first - start, tokensPerSecond: (tokens - 1) / ((end - first) / 1000), text };
  };

  const results: Record<'direct' | 'endpoint', Timing[]> = { direct: [], endpoint: [] };
  for (let i = 0; i <= SAMPLES; i++) {
    const d = await direct(i * 2);
    const e = await viaEndpoint([
      { role: 'system', content: system(i * 2 + 1) },
      { role: 'user', content: question },
    ]);
    if (i === 0) continue; // warm-up
    results.direct.push(d);
    results.endpoint.push(e);
  }
  const summary = (timings: Timing[]) => ({
    ttft: median(timings.map((t) => t.ttftMs)),
    tps: median(timings.map((t) => t.tokensPerSecond)),
  });
  const d = summary(results.direct);
  const e = summary(results.endpoint);
  console.log(
    `\nOpenAI endpoint vs node-llama-cpp directly, Qwen2.5-0.5B-shaped (Q4_0, CPU, ${THREADS} threads), medians of ${SAMPLES}`,
  );
  console.log(
    `  generation tok/s      direct ${d.tps.toFixed(1).padStart(7)}   endpoint ${e.tps.toFixed(1).padStart(7)}   ratio ${(e.tps / d.tps).toFixed(3)} (goal >= 0.95)`,
  );
  console.log(
    `  time to first token   direct ${d.ttft.toFixed(0).padStart(5)} ms   endpoint ${e.ttft.toFixed(0).padStart(5)} ms   ratio (direct/endpoint) ${(d.ttft / e.ttft).toFixed(3)} (goal >= 0.95)`,
  );

  // A chat client resending its whole history each turn.
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: system(-1) }];
  const ttft: number[] = [];
  for (let turn = 1; turn <= 10; turn++) {
    messages.push({ role: 'user', content: `Turn ${turn}: ${question}` });
    const r = await viaEndpoint(messages, 12);
    ttft.push(r.ttftMs);
    messages.push({ role: 'assistant', content: r.text });
  }
  const [t1 = 0, t10 = 0] = [ttft[0], ttft[9]];
  console.log(
    `\nprefix reuse, client resending history: TTFT turn 1 ${t1.toFixed(0)} ms, turn 10 ${t10.toFixed(0)} ms, ratio turn10/turn1 ${(t10 / t1).toFixed(2)}`,
  );

  await server.close();
  await engine.dispose();
  await context.dispose();
  await model.dispose();
  await llama.dispose();
}
