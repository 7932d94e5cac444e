/**
 * Grammar-constrained tool calling (#5), through Pincer's local engine:
 *  1. decoding speed with the tool-call grammar vs free generation, on a model with
 *     Qwen2.5-0.5B's real shape (151,936-token vocabulary: the grammar checks candidates from
 *     all of it), same prompt (tools included in both), prompt cached so only decoding counts;
 *  2. validity on the tiny random model: share of generations that yield a call to an allowed
 *     tool whose arguments pass the registry's guard, with the grammar (toolChoice required,
 *     narrowed schemas) vs without (free text parsed for Qwen's `<tool_call>` JSON).
 * The compact-language token counts live in toolcalls-language.bench.ts.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalEngine } from '../src/main/core/local/engine.js';
import { grammarToolDefs } from '../src/main/core/local/grammar.js';
import type { GenerateRequest, GenerateResult } from '../src/main/core/local/types.js';
import { BUILTIN_TOOLS } from '../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../src/main/core/tools/registry.js';
import {
  QWEN_TOOLS_TEMPLATE,
  QWEN25_05B_SHAPE,
  writeTinyGguf,
} from '../test/fixtures/tiny-gguf.js';

const THREADS = Number(process.env.PINCER_BENCH_THREADS ?? 2);
const SPEED_ROUNDS = Number(process.env.PINCER_BENCH_ROUNDS ?? 4);
const VALIDITY_RUNS = Number(process.env.PINCER_BENCH_VALIDITY ?? 20);
const ALLOW = ['fs/read', 'fs/list', 'sys/exec'];
const BOUNDS = { maxString: 8, maxArrayItems: 2, maxEnum: 8 };

const now = () => performance.now();
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

function setup() {
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  return { registry, tools: grammarToolDefs(registry.modelTools(ALLOW), BOUNDS) };
}

const ask = (
  tools: GenerateRequest['tools'],
  seed: number,
  extra: Partial<GenerateRequest>,
): GenerateRequest => ({
  system: 'Use the tools.',
  messages: [{ role: 'user', text: 'List the files, then read one.' }],
  tools,
  sampling: { temperature: 1, seed },
  ...extra,
});

async function timed(engine: LocalEngine, request: GenerateRequest) {
  const start = now();
  const result = await engine.generate('bench', request).catch(() => undefined);
  return { ms: now() - start, result };
}

async function speed(): Promise<void> {
  const file = path.join(os.tmpdir(), 'pincer-bench-qwen2.5-0.5b-shaped.gguf');
  if (!existsSync(file)) {
    const start = now();
    await writeTinyGguf(file, { ...QWEN25_05B_SHAPE, chatTemplate: QWEN_TOOLS_TEMPLATE });
    console.log(`generated ${file} in ${((now() - start) / 1000).toFixed(1)} s`);
  }
  const { tools } = setup();
  const engine = new LocalEngine({
    modelPath: file,
    runtime: { gpu: false, threads: THREADS },
    contextSize: 8192,
    maxConversations: 1,
    idleTimeoutMs: 0,
  });
  await engine.load();
  // Evaluate the shared prompt once; later turns reuse its KV cache.
  await engine.generate('bench', ask(tools, 0, { maxTokens: 1, toolChoice: 'auto' }));
  const rates = { constrained: [] as number[], free: [] as number[] };
  let freeCalls = 0;
  for (let round = 1; round <= SPEED_ROUNDS; round++) {
    // Interleaved, so machine noise hits both alike.
    const c = await timed(engine, ask(tools, round, { maxTokens: 48, toolChoice: 'required' }));
    const f = await timed(engine, ask(tools, round, { maxTokens: 48, toolChoice: 'auto' }));
    if (c.result) rates.constrained.push(c.result.usage.outputTokens / (c.ms / 1000));
    if (f.result) {
      rates.free.push(f.result.usage.outputTokens / (f.ms / 1000));
      if (f.result.toolCalls.length > 0) freeCalls++;
    }
  }
  await engine.dispose();
  const constrained = median(rates.constrained);
  const free = median(rates.free);
  console.log(
    `\nDecoding on the Qwen2.5-0.5B-shaped random model (${THREADS} threads, ${SPEED_ROUNDS} rounds, medians)`,
  );
  console.log(`  free generation (tools in prompt)      ${free.toFixed(1).padStart(7)} tokens/s`);
  console.log(
    `  tool-call grammar (toolChoice required) ${constrained.toFixed(1).padStart(6)} tokens/s  ` +
      `ratio ${(constrained / free).toFixed(2)}x of free`,
  );
  if (freeCalls > 0) console.log(`  (${freeCalls} free runs entered the grammar by themselves)`);
}

/** Qwen's native calls in free text: `<tool_call>{"name":…,"arguments":{…}}</tool_call>`. */
function parseNative(text: string): Array<{ name: string; input: Record<string, unknown> }> {
  const calls: Array<{ name: string; input: Record<string, unknown> }> = [];
  for (const match of text.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)) {
    try {
      const value = JSON.parse(match[1] ?? '') as { name?: unknown; arguments?: unknown };
      if (typeof value.name === 'string' && typeof value.arguments === 'object' && value.arguments)
        calls.push({ name: value.name, input: value.arguments as Record<string, unknown> });
    } catch {
      // Not JSON: not a call.
    }
  }
  return calls;
}

async function validity(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-tools-'));
  const file = path.join(dir, 'tiny.gguf');
  await writeTinyGguf(file, {
    tokenizer: 'bpe',
    chatTemplate: QWEN_TOOLS_TEMPLATE,
    contextLength: 8192,
  });
  const { registry, tools } = setup();
  const engine = new LocalEngine({
    modelPath: file,
    runtime: { gpu: false, threads: THREADS },
    contextSize: 8192,
    maxConversations: 1,
    idleTimeoutMs: 0,
  });
  const valid = async (calls: Array<{ name: string; input: Record<string, unknown> }>) => {
    const checked = await Promise.all(calls.map((c) => registry.check({ id: 'x', ...c }, ALLOW)));
    return calls.length > 0 && checked.every((one) => !('error' in one));
  };
  let withGrammar = 0;
  let without = 0;
  let engineErrors = 0;
  const start = now();
  for (let seed = 1; seed <= VALIDITY_RUNS; seed++) {
    let constrained: GenerateResult | undefined;
    try {
      constrained = await engine.generate(
        'v',
        ask(tools, seed, { maxTokens: 200, toolChoice: 'required' }),
      );
    } catch {
      engineErrors++;
    }
    if (
      constrained &&
      (await valid(
        constrained.toolCalls.map((c) => ({
          name: c.name,
          input: c.arguments as Record<string, unknown>,
        })),
      ))
    )
      withGrammar++;
    // Same prompt and tools, no grammar: generation never enters function-calling mode.
    const free = await engine.generate(
      'v',
      ask(tools, seed, { maxTokens: 120, toolChoice: 'none' }),
    );
    if (await valid(parseNative(free.text))) without++;
  }
  await engine.dispose();
  await rm(dir, { recursive: true, force: true });
  const pct = (n: number) => `${((100 * n) / VALIDITY_RUNS).toFixed(1)}%`;
  console.log(
    `\nValidity on the tiny random model (${VALIDITY_RUNS} seeded runs each, temperature 1, ` +
      `${((now() - start) / 1000).toFixed(0)} s)`,
  );
  console.log(`  with the grammar    ${pct(withGrammar).padStart(6)} valid calls`);
  console.log(`  without grammar     ${pct(without).padStart(6)} valid calls`);
  if (engineErrors > 0)
    console.log(
      `  (${engineErrors} grammar runs ended in node-llama-cpp's UTF-16 recount of odd bytes)`,
    );
}

export async function run(): Promise<void> {
  const only = process.env.PINCER_BENCH_PART;
  if (only !== 'speed') await validity();
  if (only !== 'validity') await speed();
}
