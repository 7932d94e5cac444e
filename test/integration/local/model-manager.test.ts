import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CatalogEntry,
  loadCatalog,
  type ModelCatalog,
} from '../../../src/main/core/local/catalog.js';
import { isLocalEngineError } from '../../../src/main/core/local/errors.js';
import {
  listInstalled,
  noModelHelp,
  pullModel,
  removeModel,
  resolveChatModel,
  settleDownloadedFile,
  sha256File,
} from '../../../src/main/core/local/model-manager.js';
import { type ModelServer, startModelServer } from '../../fixtures/model-server.js';
import { buildTinyGguf } from '../../fixtures/tiny-gguf.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
let dir = '';
let modelsDir = '';
let server: ModelServer;
let model: Buffer;
let catalog: ModelCatalog;

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const entry = (fileName: string, sha256: string | null): CatalogEntry => ({
  name: fileName.replace('.gguf', ''),
  displayName: fileName,
  kind: 'chat',
  url: server.url(fileName),
  fileName,
  sizeBytes: model.length,
  sha256,
  license: 'MIT',
  ramBytes: 1e8,
  contextLength: 2048,
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-models-'));
  modelsDir = path.join(dir, 'models');
  // Over 5 MB, so the downloader splits it into ranged chunks.
  model = buildTinyGguf({ tokenizer: 'bpe', embedding: 128, layers: 4, feedForward: 1024 });
  server = await startModelServer({ 'tiny.gguf': model, 'other.gguf': model });
  catalog = await loadCatalog(path.join(repoRoot, 'models/catalog.json'));
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  server.cutAfter = undefined;
  await rm(modelsDir, { recursive: true, force: true });
  await mkdir(modelsDir, { recursive: true });
});

const leftovers = async () => {
  const partial = await readdir(path.join(modelsDir, '.partial')).catch(() => []);
  return { installed: (await readdir(modelsDir)).filter((f) => f !== '.partial'), partial };
};

describe('the model catalog', () => {
  it('lists a default Qwen2.5 7B, smaller Qwen2.5 models and one embedding model', () => {
    expect(catalog.defaultChat).toBe('qwen2.5-7b-instruct');
    const names = catalog.models.map((m) => m.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'qwen2.5-3b-instruct',
        'qwen2.5-1.5b-instruct',
        'qwen2.5-0.5b-instruct',
      ]),
    );
    expect(catalog.models.filter((m) => m.kind === 'embedding')).toHaveLength(1);
  });
});

describe('pullModel over real HTTP', () => {
  it('downloads with progress, checks the sha256 and places the file atomically', async () => {
    const seen: number[] = [];
    const result = await pullModel(entry('tiny.gguf', sha(model)), modelsDir, {
      onProgress: (p) => seen.push(p.downloadedBytes),
    });
    expect(result).toMatchObject({
      bytes: model.length,
      sha256: sha(model),
      alreadyPresent: false,
    });
    expect(seen.at(-1)).toBe(model.length);
    expect(await leftovers()).toEqual({ installed: ['tiny.gguf'], partial: [] });
    const again = await pullModel(entry('tiny.gguf', sha(model)), modelsDir);
    expect(again.alreadyPresent).toBe(true);
  });

  it('discards a file whose checksum does not match, leaving nothing in place', async () => {
    const error = await pullModel(entry('tiny.gguf', 'a'.repeat(64)), modelsDir).catch(
      (e: unknown) => e,
    );
    expect(isLocalEngineError(error, 'checksum_mismatch')).toBe(true);
    expect((error as Error).message).toContain(sha(model));
    expect(await leftovers()).toEqual({ installed: [], partial: [] });
  });

  it('fails clearly when the connection dies mid-way, and a later pull succeeds', async () => {
    server.cutAfter = 2_000_000;
    const error = await pullModel(entry('other.gguf', sha(model)), modelsDir, {
      stallTimeoutMs: 1500,
    }).catch((e: unknown) => e);
    expect(isLocalEngineError(error, 'download_failed')).toBe(true);
    expect((error as Error).message).toMatch(/stopped at \d+ of \d+ bytes/);
    expect((await leftovers()).installed).toEqual([]);

    server.cutAfter = undefined;
    const result = await pullModel(entry('other.gguf', sha(model)), modelsDir);
    expect(result.sha256).toBe(sha(model));
    expect((await leftovers()).installed).toEqual(['other.gguf']);
  });

  it('cuts the resume state a late save leaves after the last byte, and refuses a short file', async () => {
    // ipull keeps its progress as JSON after the file's end; a save already under way when the
    // download finishes can land after the final cut (seen on a busy CI machine).
    const file = path.join(modelsDir, 'late.gguf');
    const state = JSON.stringify({ part: 0, chunks: [2, 2, 2], chunkSize: 5242880 });
    await writeFile(file, Buffer.concat([model, Buffer.from(state)]));
    await settleDownloadedFile(file, model.length);
    expect(await sha256File(file)).toBe(sha(model));

    const short = path.join(modelsDir, 'short.gguf');
    await writeFile(short, model.subarray(0, 1000));
    const error = await settleDownloadedFile(short, model.length).catch((e: unknown) => e);
    expect(isLocalEngineError(error, 'download_failed')).toBe(true);
    expect((error as Error).message).toContain(`1000 of ${model.length} bytes`);
    expect(await sha256File(short)).toBe(sha(model.subarray(0, 1000)));
  });

  it('says it is offline when the host cannot be reached, at once', async () => {
    const port = await closedPort();
    const error = await pullModel(
      { ...entry('tiny.gguf', null), url: `http://127.0.0.1:${port}/tiny.gguf` },
      modelsDir,
    ).catch((e: unknown) => e);
    expect(isLocalEngineError(error, 'offline')).toBe(true);
    expect((error as Error).message).toMatch(/offline.*--model-path/s);
    expect(await leftovers()).toEqual({ installed: [], partial: [] });
  });

  it('reports an HTTP error as a failed download', async () => {
    const error = await pullModel(
      { ...entry('tiny.gguf', null), url: server.url('missing.gguf') },
      modelsDir,
    ).catch((e: unknown) => e);
    expect(isLocalEngineError(error, 'download_failed')).toBe(true);
    expect((error as Error).message).toContain('404');
  });
});

describe('model lookup order', () => {
  it('prefers --model-path, then PINCER_MODEL, then bundled models, then the data dir', async () => {
    const bundledDir = path.join(dir, 'bundled');
    await mkdir(bundledDir, { recursive: true });
    const flag = path.join(dir, 'flag.gguf');
    for (const file of [
      flag,
      path.join(bundledDir, 'b.gguf'),
      path.join(modelsDir, 'qwen2.5-0.5b-instruct-q4_k_m.gguf'),
    ]) {
      // A real GGUF: the folder scan skips files whose header fails the bounded check.
      await writeFile(file, model);
    }
    const locations = { modelsDir, bundledDir };
    expect(
      await resolveChatModel(catalog, locations, { modelPath: flag, env: { PINCER_MODEL: 'x' } }),
    ).toEqual({
      path: flag,
      source: 'flag',
    });
    expect(
      await resolveChatModel(catalog, locations, {
        env: { PINCER_MODEL: 'qwen2.5-0.5b-instruct' },
      }),
    ).toEqual({
      path: path.join(modelsDir, 'qwen2.5-0.5b-instruct-q4_k_m.gguf'),
      source: 'env',
    });
    expect((await resolveChatModel(catalog, locations))?.source).toBe('bundled');
    expect(await resolveChatModel(catalog, { modelsDir })).toEqual({
      path: path.join(modelsDir, 'qwen2.5-0.5b-instruct-q4_k_m.gguf'),
      source: 'data',
    });
    const missing = await resolveChatModel(catalog, locations, {
      modelPath: path.join(dir, 'nope.gguf'),
    }).catch((e: unknown) => e);
    expect(isLocalEngineError(missing, 'model_not_found')).toBe(true);
  });

  it('finds nothing in empty folders and then says exactly how to get a model', async () => {
    expect(await resolveChatModel(catalog, { modelsDir })).toBeUndefined();
    expect(noModelHelp(catalog, { modelsDir })).toContain('pincer models pull qwen2.5-7b-instruct');
  });

  it('lists and removes installed models', async () => {
    await writeFile(path.join(modelsDir, 'qwen2.5-1.5b-instruct-q4_k_m.gguf'), 'GGUF');
    const installed = await listInstalled(catalog, modelsDir);
    expect(installed.map((m) => m.entry?.name)).toEqual(['qwen2.5-1.5b-instruct']);
    expect(installed[0]?.problem).toMatch(/cut short/);
    expect(await removeModel(catalog, modelsDir, 'qwen2.5-1.5b-instruct')).toBe(true);
    expect(await removeModel(catalog, modelsDir, 'qwen2.5-1.5b-instruct')).toBe(false);
    expect(await listInstalled(catalog, modelsDir)).toEqual([]);
  });
});

/** A port nothing listens on: bind one, then close it. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
