import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { errorMessage, LocalEngineError } from './errors.js';

const entrySchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  displayName: z.string(),
  kind: z.enum(['chat', 'embedding']),
  url: z.url(),
  fileName: z.string().regex(/^[^/\\]+\.gguf$/),
  /** Approximate where sha256 is null: the checksum, not the size, is what proves a file. */
  sizeBytes: z.number().int().positive(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  license: z.string(),
  /** Memory the model needs to run with a modest context. */
  ramBytes: z.number().int().positive(),
  contextLength: z.number().int().positive(),
  dimensions: z.number().int().positive().optional(),
});

const catalogSchema = z.object({
  version: z.literal(1),
  defaultChat: z.string(),
  defaultEmbedding: z.string(),
  models: z.array(entrySchema).min(1),
});

export type CatalogEntry = z.infer<typeof entrySchema>;
export type ModelCatalog = z.infer<typeof catalogSchema>;

export function parseCatalog(json: unknown, source = 'catalog'): ModelCatalog {
  const parsed = catalogSchema.safeParse(json);
  if (!parsed.success) {
    throw new LocalEngineError(
      'invalid_request',
      `${source} is not a valid model catalog: ${parsed.error.message}`,
    );
  }
  const names = new Set(parsed.data.models.map((m) => m.name));
  for (const name of [parsed.data.defaultChat, parsed.data.defaultEmbedding]) {
    if (!names.has(name)) {
      throw new LocalEngineError(
        'invalid_request',
        `${source} names default "${name}", which it does not list`,
      );
    }
  }
  return parsed.data;
}

export async function loadCatalog(file: string): Promise<ModelCatalog> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new LocalEngineError(
      'model_not_found',
      `No model catalog at ${file}: ${errorMessage(error)}`,
    );
  }
  return parseCatalog(JSON.parse(text), file);
}

export function findEntry(catalog: ModelCatalog, name: string): CatalogEntry {
  const entry = catalog.models.find((m) => m.name === name || m.fileName === name);
  if (!entry) {
    throw new LocalEngineError(
      'unknown_model',
      `No model named "${name}" in the catalog; known: ${catalog.models.map((m) => m.name).join(', ')}`,
    );
  }
  return entry;
}

/** The share of this computer's memory a model may take: the system and the app need the rest. */
export const MODEL_MEMORY_SHARE = 0.7;

/** Whether a model needing `ramBytes` runs beside the system and the app on this much memory. */
export function fitsMemory(ramBytes: number, machineRamBytes: number): boolean {
  return ramBytes <= machineRamBytes * MODEL_MEMORY_SHARE;
}

/** The chat model to offer first: the largest that fits, else the smallest; null if none. */
export function recommendedChat(catalog: ModelCatalog, machineRamBytes: number): string | null {
  const chat = catalog.models
    .filter((m) => m.kind === 'chat')
    .sort((a, b) => b.ramBytes - a.ramBytes);
  return (chat.find((m) => fitsMemory(m.ramBytes, machineRamBytes)) ?? chat.at(-1))?.name ?? null;
}
