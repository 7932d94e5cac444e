/** The model picker and the local catalog: downloads, catalog entries, options, the active model. */
import { z } from 'zod';

export const PullStateSchema = z.object({
  name: z.string(),
  state: z.enum(['running', 'done', 'failed']),
  downloadedBytes: z.number(),
  totalBytes: z.number(),
  error: z.string().nullable(),
});
export type PullState = z.infer<typeof PullStateSchema>;

export const CatalogModelViewSchema = z.object({
  name: z.string(),
  displayName: z.string(),
  kind: z.enum(['chat', 'embedding']),
  sizeBytes: z.number(),
  license: z.string().nullable(),
  installed: z.boolean(),
  selected: z.boolean(),
  pull: PullStateSchema.nullable(),
  /** The picker's option for this model once installed (chat models only). */
  optionId: z.string().nullable(),
  /** Memory it needs to run, and whether this computer has that much. */
  ramBytes: z.number(),
  fits: z.boolean(),
});
export type CatalogModelView = z.infer<typeof CatalogModelViewSchema>;

/** One entry of the model picker; `id` goes back in `models.select`. */
export const ModelOptionSchema = z.object({
  id: z.string(),
  label: z.string(),
  group: z.enum(['local', 'provider', 'connection', 'launch']),
  /** The heading it is listed under: "This computer", a provider's name. */
  source: z.string(),
  detail: z.string().nullable(),
  /** Whether its declaration says it takes images (manifest `capabilities`, the connection's
   * choice); a local GGUF model takes text only. */
  takesImages: z.boolean(),
});
export type ModelOption = z.infer<typeof ModelOptionSchema>;

export const ModelsStateSchema = z.object({
  /** What answers chat now, e.g. "local/Qwen2.5-7B-Instruct-Q4_K_M.gguf" or "openai/gpt-4o". */
  active: z.string(),
  /** `local`: the in-process engine, whose model can be selected, loaded and unloaded here. */
  kind: z.enum(['local', 'remote', 'scripted']),
  loaded: z.boolean(),
  catalog: z.array(CatalogModelViewSchema),
  /** GGUF files in the models folder the catalog does not know (file names only). */
  otherFiles: z.array(z.string()),
  /** Everything the picker offers, and the option in force (null: no local model yet). */
  options: z.array(ModelOptionSchema),
  selectedId: z.string().nullable(),
  /** What new conversations start with. */
  defaultId: z.string().nullable(),
  /** Whether what the model in force costs is known ($0 for the local engine). */
  priced: z.boolean(),
  /** The catalog's best chat model for this computer's memory, and that memory. */
  recommended: z.string().nullable(),
  machineRamBytes: z.number(),
  /** The model in force's context window in tokens; null until known (a local model loads). */
  contextWindow: z.number().int().positive().nullable(),
  /** The selected local model's header facts; null for another kind of model or none. */
  localModel: z
    .object({
      /** The context the model was trained for: no larger window is used. */
      trainedContext: z.number().int().positive().nullable(),
      fileBytes: z.number().int().nonnegative(),
      /** KV cache bytes per token of context (16-bit cache); null where the header lacks it. */
      kvBytesPerToken: z.number().int().positive().nullable(),
      /** The context size the next load asks for (the setting, else the launch's; null: automatic). */
      contextSize: z.number().int().positive().nullable(),
    })
    .nullable(),
});
export type ModelsState = z.infer<typeof ModelsStateSchema>;
