/**
 * The compact language's GBNF on the tiny random model of #4 (byte-level BPE vocabulary):
 * every grammar-constrained generation parses and calls only allowed tools with schema-valid
 * arguments; unconstrained generations essentially never parse (counted: at most one in ten).
 *
 * Count: the issue asks for 200 seeded generations. One constrained generation takes 0.6-1.2 s
 * on an idle 2-core machine (several seconds when it is shared), so the default here is 32 (+8
 * with references), about 30 s idle; timeouts allow 10 s a generation.
 * PINCER_TOOLCALL_GENERATIONS=200 runs the full count (passed 200/200 in 624 s on a busy machine).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import {
  type Llama,
  LlamaCompletion,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaModel,
} from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRuntime } from '../../../src/main/core/local/runtime.js';
import { programCalls } from '../../../src/main/core/toolcall/ast.js';
import { ToolCallSyntaxError } from '../../../src/main/core/toolcall/errors.js';
import type { GbnfOptions, GrammarTool } from '../../../src/main/core/toolcall/gbnf.js';
import { toolCallGbnf } from '../../../src/main/core/toolcall/index.js';
import { parseToolCall } from '../../../src/main/core/toolcall/parser.js';
import { writeTinyGguf } from '../../fixtures/tiny-gguf.js';

const GENERATIONS = Number(process.env.PINCER_TOOLCALL_GENERATIONS ?? 32);
const WITH_REFERENCES = Math.max(8, Math.round(GENERATIONS / 5));
const UNCONSTRAINED = 10;

const TOOLS: GrammarTool[] = [
  {
    name: 'fs/read',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        offset: { type: 'integer' },
        limit: { type: 'integer' },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'sys/exec',
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string' },
        args: { type: 'array', items: { type: 'string' } },
        shell: { type: 'boolean' },
      },
      required: ['command'],
      additionalProperties: false,
    },
  },
  {
    name: 'net/fetch',
    inputSchema: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        method: { enum: ['GET', 'HEAD'] },
        maxBytes: { type: 'number' },
      },
      required: ['url'],
      additionalProperties: false,
    },
  },
  { name: 'ui/ping', inputSchema: { type: 'object', properties: {}, additionalProperties: false } },
];
const ALLOWED = new Set(TOOLS.map((t) => t.name));
const BOUNDS: GbnfOptions = { maxString: 6, maxChain: 2, maxParallel: 2, maxArrayItems: 2 };

let dir = '';
let llama: Llama;
let model: LlamaModel;
let context: LlamaContext;
let sequence: LlamaContextSequence;
let completion: LlamaCompletion;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-toolcall-'));
  const file = path.join(dir, 'tiny-bpe.gguf');
  await writeTinyGguf(file, { tokenizer: 'bpe' });
  ({ llama } = await loadRuntime({ gpu: false, threads: 2 }));
  model = await llama.loadModel({ modelPath: file });
  context = await model.createContext({ contextSize: 1024, threads: 2 });
  sequence = context.getSequence();
  completion = new LlamaCompletion({ contextSequence: sequence });
});

afterAll(async () => {
  await context?.dispose();
  await model?.dispose();
  await rm(dir, { recursive: true, force: true });
});

async function generate(
  seed: number,
  options: { grammar?: Awaited<ReturnType<Llama['createGrammar']>>; maxTokens: number },
) {
  await sequence.clearHistory();
  return completion.generateCompletion('Call a tool: ', {
    ...(options.grammar ? { grammar: options.grammar } : {}),
    maxTokens: options.maxTokens,
    temperature: 1,
    seed,
  });
}

describe('GBNF-constrained generation on the tiny model', () => {
  it(
    `${GENERATIONS} seeded generations all parse, name allowed tools and match the schemas`,
    async () => {
      const grammar = await llama.createGrammar({
        grammar: toolCallGbnf(TOOLS, { ...BOUNDS, references: false }),
      });
      const ajv = new Ajv({ strict: false });
      const validators = new Map(TOOLS.map((t) => [t.name, ajv.compile(t.inputSchema ?? {})]));
      const shapes = new Set<string>();
      for (let seed = 0; seed < GENERATIONS; seed++) {
        const text = await generate(seed, { grammar, maxTokens: 512 });
        const program = parseToolCall(text);
        shapes.add(program.kind);
        for (const call of programCalls(program)) {
          expect(ALLOWED.has(call.tool), `${call.tool} in ${text}`).toBe(true);
          const args = Object.fromEntries(
            call.params.map((p) => [
              p.key,
              p.value.kind === 'array'
                ? p.value.items.map((i) => ('value' in i ? i.value : null))
                : 'value' in p.value
                  ? p.value.value
                  : null,
            ]),
          );
          const validate = validators.get(call.tool);
          expect(validate?.(args), `${text}: ${JSON.stringify(validate?.errors)}`).toBe(true);
        }
      }
      // The random model explores the grammar: single calls and at least one other shape.
      expect(shapes.size).toBeGreaterThan(1);
    },
    GENERATIONS * 10_000,
  );

  it(
    `${WITH_REFERENCES} generations with references allowed all parse`,
    async () => {
      const grammar = await llama.createGrammar({ grammar: toolCallGbnf(TOOLS, BOUNDS) });
      for (let seed = 1000; seed < 1000 + WITH_REFERENCES; seed++) {
        const program = parseToolCall(await generate(seed, { grammar, maxTokens: 512 }));
        for (const call of programCalls(program)) expect(ALLOWED.has(call.tool)).toBe(true);
      }
    },
    WITH_REFERENCES * 10_000,
  );

  it('the grammar with a text alternative loads, and unconstrained output almost never parses', async () => {
    await llama.createGrammar({ grammar: toolCallGbnf(TOOLS, { ...BOUNDS, allowText: true }) });
    let parsed = 0;
    for (let seed = 0; seed < UNCONSTRAINED; seed++) {
      try {
        parseToolCall(await generate(seed, { maxTokens: 24 }));
        parsed++;
      } catch (error) {
        // Expected: a random model does not write the language by chance.
        if (!(error instanceof ToolCallSyntaxError)) throw error;
      }
    }
    console.log(`unconstrained: ${parsed}/${UNCONSTRAINED} parse`);
    // The language is not what a random model writes by chance: the grammar is what makes it.
    expect(parsed).toBeLessThanOrEqual(1);
  }, 120_000);
});
