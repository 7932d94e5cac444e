import { describe, expect, it } from 'vitest';
import {
  fitsMemory,
  type ModelCatalog,
  parseCatalog,
  recommendedChat,
} from '../../../src/main/core/local/catalog.js';

const GiB = 1024 ** 3;

function entry(name: string, kind: 'chat' | 'embedding', ramBytes: number) {
  return {
    name,
    displayName: name,
    kind,
    url: `https://example.invalid/${name}.gguf`,
    fileName: `${name}.gguf`,
    sizeBytes: ramBytes,
    sha256: null,
    license: 'apache-2.0',
    ramBytes,
    contextLength: 4096,
  };
}

function catalog(models: ReturnType<typeof entry>[]): ModelCatalog {
  return parseCatalog({
    version: 1,
    defaultChat: models.find((m) => m.kind === 'chat')?.name ?? models[0]?.name,
    defaultEmbedding: models[0]?.name,
    models,
  });
}

describe('the catalog fit on this computer', () => {
  it('lets a model take 70% of the memory, no more', () => {
    expect(fitsMemory(7 * GiB, 10 * GiB)).toBe(true);
    expect(fitsMemory(7 * GiB + 1, 10 * GiB)).toBe(false);
  });

  it('recommends the largest chat model that fits, never an embedding model', () => {
    const models = catalog([
      entry('small', 'chat', 1 * GiB),
      entry('large', 'chat', 12 * GiB),
      entry('medium', 'chat', 5 * GiB),
      entry('embed', 'embedding', 6 * GiB),
    ]);
    expect(recommendedChat(models, 8 * GiB)).toBe('medium');
    expect(recommendedChat(models, 32 * GiB)).toBe('large');
  });

  it('recommends the smallest chat model where none fits', () => {
    const models = catalog([entry('large', 'chat', 12 * GiB), entry('small', 'chat', 3 * GiB)]);
    expect(recommendedChat(models, 2 * GiB)).toBe('small');
  });

  it('recommends nothing from a catalog without chat models', () => {
    expect(recommendedChat(catalog([entry('embed', 'embedding', GiB)]), 8 * GiB)).toBeNull();
  });
});
