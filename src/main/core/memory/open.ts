/**
 * Opening memory for a command: the profile database (a damaged one is reported and left as it
 * is) and, when one can be found, the local embedding model.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { findEntry, LocalEmbedder, localSetup, resolveChatModel } from '../local/index.js';
import { type Db, openDatabase, privateProfileDatabase, StorageError } from '../storage/index.js';
import { MemoryError } from './errors.js';
import { MemoryStore, type MemoryStoreOptions } from './store.js';

/** Opens a database file for memory; corruption becomes a MemoryError, the file is not touched. */
export function openMemoryDatabase(file: string): Db {
  try {
    return openDatabase(file);
  } catch (error) {
    if (error instanceof StorageError && /malformed|not a database|corrupt/i.test(error.message)) {
      throw new MemoryError(
        'corrupt_database',
        `${file} is damaged (${error.message}); it was left untouched: restore it from a backup or move it aside`,
        { cause: error },
      );
    }
    throw error;
  }
}

export interface OpenedMemory {
  store: MemoryStore;
  db: Db;
  embedder?: LocalEmbedder;
  close(): Promise<void>;
}

/** The profile's memory; `embeddingModel` (a GGUF path) turns on hybrid search. */
export async function openProfileMemory(
  dataDir: string,
  options: { embeddingModel?: string; threads?: number } & Omit<
    MemoryStoreOptions,
    'embedder'
  > = {},
): Promise<OpenedMemory> {
  const db = openMemoryDatabase(privateProfileDatabase(dataDir));
  let embedder: LocalEmbedder | undefined;
  try {
    if (options.embeddingModel) {
      embedder = await LocalEmbedder.open({
        modelPath: options.embeddingModel,
        runtime: { threads: options.threads },
      });
    }
    const store = MemoryStore.open(db, { ...options, embedder });
    return {
      store,
      db,
      embedder,
      close: async () => {
        db.close();
        await embedder?.dispose();
      },
    };
  } catch (error) {
    db.close();
    await embedder?.dispose();
    throw error;
  }
}

/**
 * The embedding model to use: an explicit path, PINCER_EMBEDDING_MODEL (a path), or the
 * catalog's default embedding model when it is installed in the data dir. Undefined: none.
 */
export async function findEmbeddingModel(
  dataDir: string,
  appDir: string,
  options: { explicit?: string; env?: Record<string, string | undefined> } = {},
): Promise<string | undefined> {
  const chosen = options.explicit ?? options.env?.PINCER_EMBEDDING_MODEL?.trim();
  if (chosen) return chosen;
  const { catalog, locations } = await localSetup(appDir, dataDir);
  const file = path.join(
    locations.modelsDir,
    findEntry(catalog, catalog.defaultEmbedding).fileName,
  );
  return access(file).then(
    () => file,
    () => undefined,
  );
}

/** The GGUF the local engine will chat with (same search as `pincer run`), if there is one. */
export async function findLocalChatModel(
  dataDir: string,
  appDir: string,
  modelPath?: string,
): Promise<string | undefined> {
  const { catalog, locations } = await localSetup(appDir, dataDir);
  const found = await resolveChatModel(catalog, locations, { modelPath, env: process.env }).catch(
    () => undefined,
  );
  return found?.path;
}
