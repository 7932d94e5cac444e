/**
 * Grammar-constrained tool calls through the real local engine (tiny random Qwen-style model):
 * node-llama-cpp's function grammar keeps names inside the allow list, but by itself lets
 * schema-invalid arguments through (ranges, formats); narrowed with grammarSchema, every
 * completed call passes the registry's validation guard.
 *
 * Count: the issue asks for 200 seeded generations. A constrained generation of up to 200
 * tokens took 1-9 s on the shared 2-core machine (the grammar costs ~3x free decoding on this
 * model; 30 generations took 259 s under load), so CI runs 20 to keep the suite well inside its
 * budget; PINCER_TOOLS_GENERATIONS=200 runs the full count.
 *
 * One disagreement is counted, not hidden: the random weights emit bytes that are not valid
 * UTF-8 or characters outside the BMP inside strings. The grammar counts code points, but
 * node-llama-cpp re-checks `maxLength` on the decoded JavaScript string (UTF-16 units, U+FFFD
 * per bad byte) and throws. Asked as the agent asks (`argumentsCheckedBy: 'caller'`), the engine
 * then hands on the call the grammar made, and the registry's guard judges it against the
 * tool's own schema like any other (the OpenAI endpoint keeps sampling again instead).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/main/core/local/engine.js';
import { grammarSchema, grammarToolDefs } from '../../../src/main/core/local/grammar.js';
import type { GenerateRequest } from '../../../src/main/core/local/types.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import type { Tool } from '../../../src/main/core/tools/types.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';

const GENERATIONS = Number(process.env.PINCER_TOOLS_GENERATIONS ?? 20);
const GAP_RUNS = Number(process.env.PINCER_TOOLS_GAP_RUNS ?? 6);
const ALLOW = ['fs/read', 'fs/list', 'fs/search', 'sys/exec'];
const BOUNDS = { maxString: 8, maxArrayItems: 2, maxEnum: 8 };

let dir = '';
let engine: LocalEngine;
const registry = new ToolRegistry();
for (const tool of BUILTIN_TOOLS) registry.register(tool);

/** A tool whose schema the grammar alone cannot enforce: a number range. */
const pick: Tool = {
  name: 'test/pick',
  description: 'Pick a number',
  inputSchema: {
    type: 'object',
    properties: {
      n: { type: 'integer', minimum: 3, maximum: 5 },
      mode: { enum: ['a', 'b'] },
    },
    required: ['n'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  category: 'test',
  tier: 'safe',
  timeoutMs: 1000,
  maxOutputBytes: 1000,
  source: 'builtin',
  run: async (input) => ({ content: String(input.n) }),
};
registry.register(pick);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-tools-grammar-'));
  const modelPath = path.join(dir, 'tiny-qwen.gguf');
  await writeTinyGguf(modelPath, {
    tokenizer: 'bpe',
    chatTemplate: QWEN_TOOLS_TEMPLATE,
    contextLength: 8192,
  });
  engine = new LocalEngine({
    modelPath,
    runtime: { gpu: false, threads: 2 },
    contextSize: 8192,
    maxConversations: 2,
    idleTimeoutMs: 0,
  });
});

afterAll(async () => {
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const request = (tools: GenerateRequest['tools'], seed: number): GenerateRequest => ({
  system: 'Use the tools.',
  messages: [{ role: 'user', text: 'Go.' }],
  tools,
  toolChoice: 'required',
  // As the agent asks: the registry's guard below judges every call.
  argumentsCheckedBy: 'caller',
  maxTokens: 200,
  sampling: { temperature: 1, seed },
});

/** Text node-llama-cpp counts longer than its grammar did (broken UTF-8, beyond the BMP). */
const ODD_TEXT = /\uFFFD|[\u{10000}-\u{10FFFF}]/u;

describe('grammar-constrained tool calls on the tiny local model', () => {
  it(`${GENERATIONS} seeded generations call only allowed tools with schema-valid arguments`, async () => {
    const tools = grammarToolDefs(registry.modelTools(ALLOW), BOUNDS);
    const allowedWire = new Set(tools.map((t) => t.name));
    let calls = 0;
    let odd = 0;
    const seen = new Set<string>();
    for (let seed = 1; seed <= GENERATIONS; seed++) {
      const result = await engine.generate('grammar', request(tools, seed));
      expect(result.stopReason, `seed ${seed}: ${result.text}`).toBe('tool_calls');
      for (const call of result.toolCalls) {
        calls++;
        if (ODD_TEXT.test(JSON.stringify(call.arguments))) odd++;
        expect(allowedWire.has(call.name)).toBe(true);
        seen.add(call.name);
        // The registry's own guard: resolves the wire name, checks the allow list and validates
        // against the tool's ORIGINAL schema.
        const checked = await registry.check(
          { id: call.id, name: call.name, input: call.arguments as Record<string, unknown> },
          ALLOW,
        );
        expect('error' in checked ? checked.error.content : 'ok', `seed ${seed}`).toBe('ok');
      }
    }
    console.log(
      `[tools grammar] ${GENERATIONS} generations: ${calls} valid calls to ${[...seen].join(', ')}; ` +
        `${odd} with text node-llama-cpp's UTF-16 recount would have refused`,
    );
    expect(calls).toBe(GENERATIONS);
    expect(seen.size).toBeGreaterThan(1);
  }, 600_000);

  it('node-llama-cpp alone lets range violations through; the narrowed schema does not', async () => {
    const raw = registry.modelTools(['test/pick']);
    const narrowed = grammarToolDefs(registry.modelTools(['test/pick']));
    expect(grammarSchema(pick.inputSchema).notes).toEqual([]);
    const tally = async (tools: GenerateRequest['tools']) => {
      let invalid = 0;
      for (let seed = 1; seed <= GAP_RUNS; seed++) {
        let result: Awaited<ReturnType<LocalEngine['generate']>>;
        try {
          result = await engine.generate('gap', { ...request(tools, seed), maxTokens: 40 });
        } catch {
          // node-llama-cpp's own re-check refused what its grammar let through (say, n: 1e999).
          invalid++;
          continue;
        }
        for (const call of result.toolCalls) {
          expect(call.name).toBe('test/pick');
          const checked = await registry.check(
            { id: call.id, name: call.name, input: call.arguments as Record<string, unknown> },
            ['test/pick'],
          );
          if ('error' in checked) invalid++;
        }
      }
      return invalid;
    };
    const rawInvalid = await tally(raw);
    const narrowedInvalid = await tally(narrowed);
    console.log(
      `[tools grammar] invalid calls of ${GAP_RUNS}: raw ${rawInvalid}, narrowed ${narrowedInvalid}`,
    );
    expect(rawInvalid).toBeGreaterThan(0);
    expect(narrowedInvalid).toBe(0);
  }, 300_000);
});
