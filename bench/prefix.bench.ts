/**
 * New chat = continuing chat: time to first token of a new conversation's first message with
 * the default tools against the same message with no tools, on a generated model with
 * Qwen2.5-0.5B's real shape (random Q4_0 weights, 151,936-token BPE vocabulary, Hermes-style
 * tool template), in a running process (every new chat after the first) and after a restart
 * (a new process that finds the prefixes on disk).
 *
 * Time to first token is the wall time of a generation of one token on a new conversation: the
 * prompt's evaluation plus one step. Both sides run alternately in the same process (tools
 * first in even rounds, no tools first in odd ones), each on a new conversation; the figure is
 * the median, min..max, and the ratio of the medians. The no-tools chat's system prompt is
 * reused the same way: the ratio measures what the tool definitions still cost.
 * PINCER_BENCH_THREADS (default 2), PINCER_BENCH_SAMPLES (in-process rounds, default 7),
 * PINCER_BENCH_RESTARTS (default 5).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SYSTEM, DEFAULT_TOOLS } from '../src/main/core/agent/agent.js';
import { LocalEngine } from '../src/main/core/local/engine.js';
import { grammarToolDefs } from '../src/main/core/local/grammar.js';
import type { GenerateRequest } from '../src/main/core/local/types.js';
import { BUILTIN_TOOLS } from '../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../src/main/core/tools/registry.js';
import {
  QWEN_TOOLS_TEMPLATE,
  QWEN25_05B_SHAPE,
  writeTinyGguf,
} from '../test/fixtures/tiny-gguf.js';

const THREADS = Number(process.env.PINCER_BENCH_THREADS ?? 2);
const SAMPLES = Number(process.env.PINCER_BENCH_SAMPLES ?? 7);
const RESTARTS = Number(process.env.PINCER_BENCH_RESTARTS ?? 5);
const CONTEXT = 8192;
const CHILD = 'PINCER_BENCH_PREFIX_CHILD';
const MODEL = path.join(os.tmpdir(), 'pincer-bench-qwen2.5-0.5b-shaped.gguf');

const now = () => performance.now();
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const spread = (values: number[]) =>
  `${(median(values) / 1000).toFixed(3)} s (${(Math.min(...values) / 1000).toFixed(3)}..${(Math.max(...values) / 1000).toFixed(3)})`;

function defaultTools(): NonNullable<GenerateRequest['tools']> {
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  const allow = DEFAULT_TOOLS.split(',').map((glob) => glob.trim());
  return grammarToolDefs(registry.modelTools(allow));
}

const request = (withTools: boolean): GenerateRequest => ({
  system: DEFAULT_SYSTEM,
  tools: withTools ? defaultTools() : undefined,
  messages: [{ role: 'user', text: 'hi' }],
  maxTokens: 1,
  sampling: { temperature: 0, seed: 1 },
});

/**
 * Two conversations, so the two kinds alternating do not push each other's prefix out of
 * memory (the CLI keeps one: there `/new` after `/new` with the same tools finds the prefix in
 * the replaced conversation's sequence). The restarted process opens the same context: a state
 * file holds for one number of sequences only.
 */
function openEngine(cacheDir: string, conversations: number): LocalEngine {
  return new LocalEngine({
    modelPath: MODEL,
    runtime: { gpu: false, threads: THREADS },
    contextSize: CONTEXT,
    maxConversations: conversations,
    idleTimeoutMs: 0,
    prefixCache: { dir: cacheDir },
  });
}

let chats = 0;
/** A new conversation's first message: milliseconds to the first token, and tokens evaluated. */
async function newChat(engine: LocalEngine, withTools: boolean) {
  const start = now();
  const result = await engine.generate(`chat-${chats++}`, request(withTools));
  return {
    ms: now() - start,
    input: result.usage.inputTokens,
    evaluated: result.usage.evaluatedInputTokens,
  };
}

/** The restarted process: load, then one new chat of each kind, in the order given. */
async function child(cacheDir: string, toolsFirst: boolean): Promise<void> {
  const engine = openEngine(cacheDir, 2);
  await engine.load();
  const order = toolsFirst ? [true, false] : [false, true];
  const out: Record<string, number> = {};
  for (const withTools of order) {
    const chat = await newChat(engine, withTools);
    out[withTools ? 'tools' : 'none'] = chat.ms;
    out[withTools ? 'toolsEvaluated' : 'noneEvaluated'] = chat.evaluated;
  }
  await engine.dispose();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function restarted(cacheDir: string, toolsFirst: boolean): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
      env: { ...process.env, [CHILD]: cacheDir, PINCER_BENCH_TOOLS_FIRST: toolsFirst ? '1' : '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    proc.on('error', reject);
    proc.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as Record<string, number>);
      else reject(new Error(`the restarted process exited ${code}: ${out}`));
    });
  });
}

export async function run(): Promise<void> {
  if (!existsSync(MODEL)) {
    const start = now();
    await writeTinyGguf(MODEL, { ...QWEN25_05B_SHAPE, chatTemplate: QWEN_TOOLS_TEMPLATE });
    console.log(`generated ${MODEL} in ${((now() - start) / 1000).toFixed(1)} s`);
  }
  const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-bench-prefix-'));
  try {
    const engine = openEngine(cacheDir, 2);
    await engine.load();
    // The first chats ever: nothing on disk, nothing evaluated.
    const coldTools = await newChat(engine, true);
    const coldNone = await newChat(engine, false);
    console.log(
      `prefix (new chat, Qwen2.5-0.5B-shaped, ${THREADS} threads, context ${CONTEXT}): ` +
        `"hi" is ${coldTools.input} prompt tokens with the default tools, ${coldNone.input} without`,
    );
    console.log(
      `  first chat ever (cold)        tools ${(coldTools.ms / 1000).toFixed(3)} s, ` +
        `no tools ${(coldNone.ms / 1000).toFixed(3)} s`,
    );

    const tools: number[] = [];
    const none: number[] = [];
    let evaluated = 0;
    for (let round = 0; round < SAMPLES; round++) {
      for (const withTools of round % 2 ? [false, true] : [true, false]) {
        const chat = await newChat(engine, withTools);
        (withTools ? tools : none).push(chat.ms);
        if (withTools) evaluated = Math.max(evaluated, chat.evaluated);
      }
    }
    await engine.dispose();
    console.log(`  running process, new chat    tools    ${spread(tools)}`);
    console.log(`                                no tools ${spread(none)}`);
    console.log(
      `                                ratio ${(median(tools) / median(none)).toFixed(2)}x ` +
        `(goal <= 1.3x; at most ${evaluated} of ${coldTools.input} tokens evaluated with tools)`,
    );

    const restartTools: number[] = [];
    const restartNone: number[] = [];
    let restartEvaluated = 0;
    for (let round = 0; round < RESTARTS; round++) {
      const out = await restarted(cacheDir, round % 2 === 0);
      restartTools.push(out.tools ?? 0);
      restartNone.push(out.none ?? 0);
      restartEvaluated = Math.max(restartEvaluated, out.toolsEvaluated ?? 0);
    }
    console.log(`  after a restart, first chat  tools    ${spread(restartTools)}`);
    console.log(`                                no tools ${spread(restartNone)}`);
    console.log(
      `                                ratio ${(median(restartTools) / median(restartNone)).toFixed(2)}x ` +
        `(goal <= 1.3x; at most ${restartEvaluated} tokens evaluated with tools)`,
    );
    console.log(
      `  against the first chat ever: tools ${(coldTools.ms / median(tools)).toFixed(1)}x faster ` +
        `in process, ${(coldTools.ms / median(restartTools)).toFixed(1)}x after a restart`,
    );
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}

const childCache = process.env[CHILD];
if (childCache) await child(childCache, process.env.PINCER_BENCH_TOOLS_FIRST === '1');
