/**
 * The first run through the contract: no model anywhere, a GUI-worded refusal to send, and a
 * GGUF file imported in pieces that becomes the model once its header passes the bounded check.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Assistant, createAssistant } from '../../../src/main/core/assistant/index.js';
import { dispatch, type IpcHandlers } from '../../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../../src/main/core/ipc/handlers.js';
import type { GpuMemory } from '../../../src/shared/gpu-fit.js';
import { type ChannelName, IMPORT_CHUNK_BYTES } from '../../../src/shared/ipc.js';
import { buildTinyGguf } from '../../fixtures/tiny-gguf.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { vaultSecrets } from '../../support/secrets.js';

let dataDir = '';
let assistant: Assistant;
let handlers: IpcHandlers;

async function call(channel: ChannelName, request: unknown) {
  return dispatch(handlers, channel, request);
}
async function value<T>(channel: ChannelName, request: unknown): Promise<T> {
  const result = await call(channel, request);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as T;
}
/** Imports `bytes` under `fileName` the way the app does: begin, pieces, finish. */
async function importBytes(fileName: string, bytes: Buffer) {
  const { importId } = await value<{ importId: string }>('models.import.begin', {
    fileName,
    sizeBytes: bytes.length,
  });
  for (let offset = 0; offset < bytes.length; offset += IMPORT_CHUNK_BYTES) {
    const data = bytes.subarray(offset, offset + IMPORT_CHUNK_BYTES).toString('base64');
    await value('models.import.chunk', { importId, offset, data });
  }
  return call('models.import.finish', { importId });
}
const modelFiles = async () => readdir(path.join(dataDir, 'models')).catch(() => []);

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'pincer-first-run-'));
  assistant = await createAssistant({
    dataDir,
    appDir: APP_DIR,
    model: { kind: 'local' },
    env: {},
    local: { threads: 2 },
    secrets: vaultSecrets(dataDir, 'first-run'),
  });
  handlers = createCoreHandlers({ assistant, electronVersion: null });
});
afterAll(async () => {
  await assistant?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the first run', () => {
  it('has no model, recommends one that fits this computer, and says so when asked to chat', async () => {
    const state = await assistant.models();
    expect(state).toMatchObject({ selectedId: null, options: [], kind: 'local' });
    expect(state.machineRamBytes).toBe(os.totalmem());
    const recommended = state.catalog.find((m) => m.name === state.recommended);
    expect(recommended?.kind).toBe('chat');
    // The biggest chat model that fits, unless none does.
    const fitting = state.catalog.filter((m) => m.kind === 'chat' && m.fits);
    if (fitting.length > 0) {
      expect(recommended?.fits).toBe(true);
      expect(Math.max(...fitting.map((m) => m.ramBytes))).toBe(recommended?.ramBytes);
    }
    const refused = await call('chat.send', { text: 'hello' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const message = refused.ok ? '' : refused.error.message;
    expect(message).toContain('There is no model yet: download the recommended one');
    expect(message).not.toMatch(/--model-path|pincer models pull/);
  });

  it('tells the GPU memory llama.cpp sees, as node-llama-cpp itself reports it', async () => {
    const gpu = await value<GpuMemory | null>('models.gpu', {});
    // An independent look through node-llama-cpp, as the engine loads it (GPU if any, else CPU).
    const { getLlama } = await import('node-llama-cpp');
    const llama = await getLlama({ gpu: 'auto', build: 'never', progressLogs: false });
    try {
      if (llama.gpu === false) {
        expect(gpu).toBeNull();
      } else {
        const vram = await llama.getVramState();
        expect(gpu).toMatchObject({ backend: llama.gpu, totalBytes: vram.total });
        expect(gpu?.freeBytes).toBeLessThanOrEqual(vram.total);
        expect(gpu?.devices).toEqual(await llama.getGpuDeviceNames());
      }
    } finally {
      await llama.dispose();
    }
    // Asked once: the second answer is the first one kept, not a second probe.
    expect(await assistant.gpuMemory()).toBe(await assistant.gpuMemory());
  });

  it('refuses a file that is not a GGUF model and leaves nothing behind', async () => {
    const result = await importBytes('notes.gguf', Buffer.from('these are my notes, not a model'));
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(result.ok ? '' : result.error.message).toMatch(
      /notes\.gguf is not a usable model: .*not a GGUF model/,
    );
    expect(await modelFiles()).toEqual([]);
    const badName = await call('models.import.begin', { fileName: 'notes.txt', sizeBytes: 4 });
    expect(badName).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('refuses pieces out of order and more bytes than announced', async () => {
    const { importId } = await value<{ importId: string }>('models.import.begin', {
      fileName: 'x.gguf',
      sizeBytes: 4,
    });
    const skipped = await call('models.import.chunk', { importId, offset: 2, data: 'R0c=' });
    expect(skipped.ok ? '' : skipped.error.message).toContain('expected the piece at byte 0');
    const tooMuch = await call('models.import.chunk', {
      importId,
      offset: 0,
      data: Buffer.from('GGUF and more').toString('base64'),
    });
    expect(tooMuch.ok ? '' : tooMuch.error.message).toContain('larger than the 4 bytes announced');
    // The import is gone with its part file.
    expect(await call('models.import.finish', { importId })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await modelFiles()).toEqual([]);
  });

  it('imports a sound GGUF in pieces; with no model chosen, it becomes the model', async () => {
    const tiny = buildTinyGguf();
    expect(tiny.length).toBeGreaterThan(IMPORT_CHUNK_BYTES);
    const events: string[] = [];
    const stop = assistant.subscribe((event) => events.push(event.topic));
    const result = await importBytes('../../My Tiny.gguf', tiny);
    stop();
    expect(result.ok).toBe(true);
    const done = result.ok
      ? (result.value as { fileName: string; note?: string; models: { selectedId: string } })
      : null;
    expect(done?.fileName).toBe('My Tiny.gguf');
    // Its 2,048-token context is said before the first message, with what it means.
    expect(done?.note).toBe(
      'This model reads at most 2048 tokens at once, so Pincer will offer it fewer tools and it will remember less of a long chat.',
    );
    expect(done?.models.selectedId).toBe('local:My Tiny.gguf');
    expect(await modelFiles()).toEqual(['My Tiny.gguf']);
    expect(events).toContain('models.changed');
    const state = await assistant.models();
    expect(state).toMatchObject({
      active: 'local/My Tiny.gguf',
      defaultId: 'local:My Tiny.gguf',
    });
    expect(state.options.map((o) => o.id)).toEqual(['local:My Tiny.gguf']);
    // A second file of the same name is refused before any byte is sent.
    const again = await call('models.import.begin', { fileName: 'My Tiny.gguf', sizeBytes: 10 });
    expect(again.ok ? '' : again.error.message).toContain('already installed');
  });
});
