import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine, type LocalEngineOptions } from '../../../src/main/core/local/engine.js';
import { PrefixStateStore } from '../../../src/main/core/local/prefix-store.js';
import type { GenerateRequest, LocalToolDef } from '../../../src/main/core/local/types.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';

let dir = '';
let modelPath = '';
const engines: LocalEngine[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-prefix-'));
  modelPath = path.join(dir, 'tiny-bpe.gguf');
  await writeTinyGguf(modelPath, { tokenizer: 'bpe', chatTemplate: QWEN_TOOLS_TEMPLATE });
});

afterAll(async () => {
  for (const engine of engines) await engine.dispose();
  await rm(dir, { recursive: true, force: true });
});

function open(extra: Partial<LocalEngineOptions> = {}): LocalEngine {
  const engine = new LocalEngine({
    modelPath,
    runtime: { gpu: false, threads: 2 },
    contextSize: 1024,
    maxConversations: 2,
    idleTimeoutMs: 0,
    ...extra,
  });
  engines.push(engine);
  return engine;
}

const tools: LocalToolDef[] = [
  {
    name: 'read_file',
    description: 'Reads a file of the workspace and returns its text.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'list_dir',
    description: 'Lists the entries of a folder of the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

const ask = (text: string, system = 'You are Pincer, a careful assistant.'): GenerateRequest => ({
  system,
  tools,
  toolChoice: 'auto',
  messages: [{ role: 'user', text }],
  maxTokens: 2,
  sampling: { temperature: 0, seed: 1 },
});

describe('the evaluated system-and-tools prefix', () => {
  it('is evaluated once: a second new conversation evaluates only its own tokens', async () => {
    const engine = open();
    const first = await engine.generate('one', ask('Hello there'));
    expect(first.usage.evaluatedInputTokens).toBe(first.usage.inputTokens);
    // A free sequence got a copy of the prefix after that turn.
    const [prefix = 0] = await engine.warmedPrefixes();
    expect(prefix).toBeGreaterThan(64);
    const second = await engine.generate('two', ask('Something else entirely'));
    expect(second.usage.evaluatedInputTokens).toBeLessThanOrEqual(
      second.usage.inputTokens - prefix,
    );
  });

  it('is kept when the one conversation a context holds is replaced by a new one', async () => {
    const engine = open({ maxConversations: 1 });
    const first = await engine.generate('a', ask('Hello there'));
    expect(first.usage.evaluatedInputTokens).toBe(first.usage.inputTokens);
    const second = await engine.generate('b', ask('Something else entirely'));
    // The evicted conversation's sequence, cut back to the prefix, is where "b" starts.
    expect(second.usage.evaluatedInputTokens).toBeLessThan(second.usage.inputTokens / 3);
  });

  it('is restored from disk after a restart, in the background, before anyone asks', async () => {
    const cache = path.join(dir, 'restart');
    const before = open({ prefixCache: { dir: cache } });
    const first = await before.generate('one', ask('Hello there'));
    expect(first.usage.evaluatedInputTokens).toBe(first.usage.inputTokens);
    await before.dispose();
    const files = await readdir(cache);
    expect(files.filter((name) => name.endsWith('.state'))).toHaveLength(1);
    for (const name of files) expect((await stat(path.join(cache, name))).mode & 0o077).toBe(0);

    const after = open({ prefixCache: { dir: cache } });
    await after.load();
    const [prefix = 0] = await after.warmedPrefixes();
    expect(prefix).toBeGreaterThan(64);
    const next = await after.generate('fresh', ask('Something else entirely'));
    expect(next.usage.evaluatedInputTokens).toBeLessThanOrEqual(next.usage.inputTokens - prefix);
    await after.dispose();

    // Another number of sequences is another context: llama.cpp would refuse that state.
    const other = open({ prefixCache: { dir: cache }, maxConversations: 1 });
    await other.load();
    expect(await other.warmedPrefixes()).toEqual([]);
    const cold = await other.generate('fresh', ask('Something else entirely'));
    expect(cold.usage.evaluatedInputTokens).toBe(cold.usage.inputTokens);
  });

  it('ignores and replaces a corrupt or mismatched state file', async () => {
    const cache = path.join(dir, 'corrupt');
    const maker = open({ prefixCache: { dir: cache } });
    await maker.generate('one', ask('Hello there'));
    await maker.dispose();
    const base = (await readdir(cache)).find((name) => name.endsWith('.state'))?.slice(0, -6);
    if (!base) throw new Error('no state file was written');
    const stateFile = path.join(cache, `${base}.state`);
    const metaFile = path.join(cache, `${base}.json`);
    const good = await readFile(stateFile);

    // Corrupt: the same size, some bytes flipped in the middle of the KV data.
    const bad = Buffer.from(good);
    for (let i = bad.length >> 1; i < (bad.length >> 1) + 64; i++) bad[i] = (bad[i] ?? 0) ^ 0xff;
    await writeFile(stateFile, bad);
    const first = open({ prefixCache: { dir: cache } });
    await first.load();
    expect(await first.warmedPrefixes()).toEqual([]);
    const reread = await first.generate('x', ask('Something else entirely'));
    expect(reread.usage.evaluatedInputTokens).toBe(reread.usage.inputTokens);
    await first.dispose();
    // Replaced by a good one.
    expect((await readFile(stateFile)).equals(good)).toBe(true);

    // Mismatched: the description says another context made it.
    const meta = JSON.parse(await readFile(metaFile, 'utf8')) as {
      identity: { context: Record<string, unknown> };
    };
    meta.identity.context.contextSize = 4096;
    await writeFile(metaFile, JSON.stringify(meta));
    const second = open({ prefixCache: { dir: cache } });
    await second.load();
    expect(await second.warmedPrefixes()).toEqual([]);
    const again = await second.generate('y', ask('Something else entirely'));
    expect(again.usage.evaluatedInputTokens).toBe(again.usage.inputTokens);
    await second.dispose();
    expect(JSON.parse(await readFile(metaFile, 'utf8')).identity.context.contextSize).not.toBe(
      4096,
    );
  });

  it('keeps the folder under its cap, dropping the least recently used prefix', async () => {
    const cache = path.join(dir, 'capped');
    const sizer = open({ prefixCache: { dir: cache } });
    await sizer.generate(
      'one',
      ask('Hello there', 'You are prefix number one, a careful assistant.'),
    );
    await sizer.dispose();
    const store = new PrefixStateStore(cache);
    const [one] = await store.entries();
    if (!one) throw new Error('no entry was written');

    const capped = open({ prefixCache: { dir: cache, maxBytes: Math.floor(one.bytes * 1.5) } });
    await capped.generate(
      'two',
      ask('Hello there', 'You are prefix number two, a careful helper.'),
    );
    const left = await store.entries();
    expect(left).toHaveLength(1);
    expect(left[0]?.name).not.toBe(one.name);
  });
});
