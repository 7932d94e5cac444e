import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalEngine } from '../../../src/main/core/local/engine.js';
import { isLocalEngineError } from '../../../src/main/core/local/errors.js';
import { streamLocal } from '../../../src/main/core/local/provider.js';
import type { GenerateRequest } from '../../../src/main/core/local/types.js';
import type { ModelEvent } from '../../../src/main/core/models/types.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';

let dir = '';
let modelPath = '';
let engine: LocalEngine;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-local-'));
  modelPath = path.join(dir, 'tiny-bpe.gguf');
  // Byte-level BPE vocabulary with the Qwen2.5 tool-call markers and a Hermes-style template.
  await writeTinyGguf(modelPath, { tokenizer: 'bpe', chatTemplate: QWEN_TOOLS_TEMPLATE });
  engine = new LocalEngine({
    modelPath,
    runtime: { gpu: false, threads: 2 },
    contextSize: 1024,
    maxConversations: 3,
    idleTimeoutMs: 0,
  });
});

afterAll(async () => {
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const ask = (text: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  system: 'You are a test.',
  messages: [{ role: 'user', text }],
  maxTokens: 12,
  sampling: { temperature: 0.8, seed: 3 },
  ...extra,
});

describe('LocalEngine on the generated tiny model', () => {
  it('loads it with explicit threads and a context fitted under the requested maximum', async () => {
    const info = await engine.load();
    expect(info.threads).toBe(2);
    expect(info.gpu).toBe(false);
    expect(info.contextSize).toBeGreaterThanOrEqual(512);
    expect(info.contextSize).toBeLessThanOrEqual(1024);
    expect(info.file.architecture).toBe('llama');
    expect(engine.loaded).toBe(true);
  });

  it('streams text pieces that add up to the reply, with usage counts', async () => {
    const pieces: string[] = [];
    const result = await engine.generate('stream', ask('Hello', { onText: (d) => pieces.push(d) }));
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(result.text);
    expect(result.stopReason).toBe('max_tokens');
    expect(result.usage.outputTokens).toBe(12);
    expect(result.usage.inputTokens).toBeGreaterThan(5);
  });

  it('cancels mid-stream and keeps what was generated', async () => {
    const controller = new AbortController();
    let pieces = 0;
    const result = await engine.generate(
      'cancel',
      ask('Go on forever', {
        maxTokens: 400,
        signal: controller.signal,
        onText: () => {
          if (++pieces === 3) controller.abort();
        },
      }),
    );
    expect(result.stopReason).toBe('cancelled');
    expect(result.usage.outputTokens).toBeLessThan(400);
  });

  it('reuses the KV cache: turn 2 evaluates only its new tokens', async () => {
    // A realistic system prompt: the part a multi-turn chat must not pay for again.
    const system = 'You are Pincer, a careful local assistant. Answer briefly. '.repeat(4);
    const first = await engine.generate('kv', ask('First question', { system }));
    const turn2: GenerateRequest = {
      ...ask('x', { system }),
      messages: [
        { role: 'user', text: 'First question' },
        { role: 'assistant', text: first.text },
        { role: 'user', text: 'Second question' },
      ],
    };
    const second = await engine.generate('kv', turn2);
    expect(first.usage.evaluatedInputTokens).toBe(first.usage.inputTokens);
    expect(second.usage.inputTokens).toBeGreaterThan(first.usage.inputTokens);
    // Only the tail is evaluated: reply 1 (its text may re-tokenize differently from the
    // generated tokens) and the new user turn; the system prompt and turn 1 come from the cache.
    expect(second.usage.evaluatedInputTokens).toBeLessThanOrEqual(
      second.usage.inputTokens - first.usage.inputTokens + first.usage.outputTokens + 8,
    );
    expect(second.usage.evaluatedInputTokens).toBeLessThan(second.usage.inputTokens / 2);

    // A fresh conversation with the same history starts past the system prompt only.
    const cold = await engine.generate('kv-cold', turn2);
    expect(cold.usage.evaluatedInputTokens).toBeLessThan(cold.usage.inputTokens);
    expect(cold.usage.evaluatedInputTokens).toBeGreaterThan(
      cold.usage.inputTokens - first.usage.inputTokens,
    );
  });

  it('stops at a stop sequence and leaves it out of the reply', async () => {
    // Find what the model says next, then ask it to stop at a piece of exactly that.
    const free = await engine.generate('stop-probe', ask('Count', { maxTokens: 24 }));
    const stop = free.text.slice(6, 9);
    expect(stop.length).toBe(3);
    const stopped = await engine.generate('stop', ask('Count', { maxTokens: 24, stop: [stop] }));
    expect(stopped.stopReason).toBe('stop_sequence');
    expect(stopped.stopSequence).toBe(stop);
    expect(stopped.text).toBe(free.text.slice(0, free.text.indexOf(stop)));
  });

  it('emits JSON valid for a schema under grammar constraint', async () => {
    const result = await engine.generate(
      'json',
      ask('Answer in JSON', {
        maxTokens: 80,
        jsonSchema: {
          type: 'object',
          properties: { mood: { enum: ['calm', 'busy'] }, count: { type: 'integer' } },
          required: ['mood', 'count'],
        },
      }),
    );
    const parsed = JSON.parse(result.text) as { mood: string; count: number };
    expect(['calm', 'busy']).toContain(parsed.mood);
    expect(Number.isInteger(parsed.count)).toBe(true);
  });

  it("keeps a JSON reply inside the schema's ranges: the reply grammar, not node-llama-cpp's", async () => {
    const jsonSchema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 3, maximum: 5 },
        x: { type: 'number', minimum: -1, maximum: 1 },
      },
      required: ['n', 'x'],
      additionalProperties: false,
    };
    for (let seed = 1; seed <= 4; seed++) {
      const result = await engine.generate(
        'json-range',
        ask('Answer in JSON', { maxTokens: 80, jsonSchema, sampling: { temperature: 1, seed } }),
      );
      const { n, x } = JSON.parse(result.text) as { n: number; x: number };
      expect([3, 4, 5], `seed ${seed}: ${result.text}`).toContain(n);
      expect(Math.abs(x), `seed ${seed}: ${result.text}`).toBeLessThanOrEqual(1);
    }
  });

  it('turns a tool call into a structured call and continues after its result', async () => {
    const tools = [
      {
        name: 'read_file',
        description: 'Read a text file',
        parameters: {
          type: 'object',
          properties: { path: { enum: ['notes.txt', 'todo.txt'] } },
          required: ['path'],
        },
      },
    ];
    const request = ask('Read my notes', { tools, toolChoice: 'required', maxTokens: 60 });
    const result = await engine.generate('tools', request);
    expect(result.stopReason).toBe('tool_calls');
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    expect(call?.name).toBe('read_file');
    expect(['notes.txt', 'todo.txt']).toContain(
      (call?.arguments as { path?: string } | undefined)?.path,
    );

    // The tool result goes back; the model goes on from there without re-reading everything.
    const next = await engine.generate('tools', {
      ...request,
      toolChoice: 'none',
      maxTokens: 6,
      messages: [
        ...request.messages,
        { role: 'assistant', text: result.text, toolCalls: result.toolCalls },
        { role: 'tool', toolCallId: call?.id ?? '', name: 'read_file', result: 'buy milk' },
      ],
    });
    expect(next.toolCalls).toEqual([]);
    expect(next.usage.evaluatedInputTokens).toBeLessThan(next.usage.inputTokens);
  });

  it('streams as provider events ending in a tool_use content block', async () => {
    const events: ModelEvent[] = [];
    for await (const event of streamLocal(engine, {
      providerOptions: { local: { conversationId: 'provider' } },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'List files' }] }],
      tools: [
        { name: 'list', parameters: { type: 'object', properties: { dir: { enum: ['.'] } } } },
      ],
      toolChoice: 'required',
      maxTokens: 40,
    })) {
      events.push(event);
    }
    const finish = events.at(-1);
    expect(finish?.type).toBe('finish');
    if (finish?.type !== 'finish') return;
    expect(finish.stopReason).toBe('tool_use');
    expect(finish.message.content).toContainEqual(
      expect.objectContaining({ type: 'tool_use', name: 'list', input: { dir: '.' } }),
    );
    expect(events.some((e) => e.type === 'usage')).toBe(true);
  });

  it('rejects a tool result for a call nobody made', async () => {
    const error = await engine
      .generate('bad-tool', {
        messages: [
          { role: 'user', text: 'hi' },
          { role: 'tool', toolCallId: 'nope', name: 'x', result: 1 },
        ],
      })
      .catch((e: unknown) => e);
    expect(isLocalEngineError(error, 'invalid_request')).toBe(true);
  });

  it('unloads after the idle timeout and reloads on the next request', async () => {
    engine.setIdleTimeout(20);
    await engine.generate('idle', ask('hello', { maxTokens: 2 }));
    await vi.waitFor(() => expect(engine.loaded).toBe(false), { timeout: 5000, interval: 10 });
    engine.setIdleTimeout(0);
    const again = await engine.generate('idle', ask('hello', { maxTokens: 2 }));
    expect(again.usage.outputTokens).toBe(2);
    expect(engine.loaded).toBe(true);
  });
});

describe('LocalEngine on bad model files', () => {
  const open = (file: string) =>
    new LocalEngine({ modelPath: file, runtime: { gpu: false, threads: 2 }, idleTimeoutMs: 0 });

  it('says a truncated GGUF is cut short, and nothing crashes', async () => {
    const cut = path.join(dir, 'cut.gguf');
    const bytes = await readFile(modelPath);
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * 0.7)));
    const broken = open(cut);
    const error = await broken.load().catch((e: unknown) => e);
    expect(isLocalEngineError(error, 'truncated_model')).toBe(true);
    expect((error as Error).message).toMatch(/cut short/);
    expect(broken.loaded).toBe(false);
    await broken.dispose();
  });

  it('says a non-GGUF file is not a model', async () => {
    const fake = path.join(dir, 'fake.gguf');
    await writeFile(fake, 'this is a text file, not weights\n'.repeat(50));
    const broken = open(fake);
    const error = await broken.load().catch((e: unknown) => e);
    expect(isLocalEngineError(error, 'invalid_model')).toBe(true);
    expect((error as Error).message).toMatch(/not a GGUF model/);
    await broken.dispose();
  });

  it('says a missing file is missing', async () => {
    const broken = open(path.join(dir, 'absent.gguf'));
    const error = await broken.generate('x', ask('hi')).catch((e: unknown) => e);
    expect(isLocalEngineError(error, 'model_not_found')).toBe(true);
    await broken.dispose();
  });
});
