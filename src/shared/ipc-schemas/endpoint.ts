/** The OpenAI-compatible endpoint: its state (never the key) and its request log (metadata only). */
import { z } from 'zod';
import { Iso } from './common.js';

/** The OpenAI-compatible endpoint as the app runs it: never the key, only its name. */
export const OpenAiEndpointViewSchema = z.object({
  enabled: z.boolean(),
  running: z.boolean(),
  /** The shared model is still being read into memory (requests get 503 meanwhile). */
  loading: z.boolean(),
  /** What clients use, e.g. http://127.0.0.1:11435/v1; null while it is not serving. */
  baseUrl: z.string().nullable(),
  host: z.string(),
  port: z.number().int(),
  /** This machine's network addresses: the LAN opt-in picks one. */
  lanAddresses: z.array(z.string()),
  /** The secret store entry holding the bearer key. */
  keyName: z.string(),
  hasKey: z.boolean(),
  /** The model id clients name (the app's local model). */
  model: z.string().nullable(),
  error: z.string().nullable(),
  /** External requests generating now, and waiting (behind others or the app's own turn). */
  active: z.number().int(),
  queued: z.number().int(),
});
export type OpenAiEndpointView = z.infer<typeof OpenAiEndpointViewSchema>;

/** One endpoint request, metadata only: never a prompt, a reply or a key. */
export const OpenAiRequestLogEntrySchema = z.object({
  /** Counts up from 1 since launch. */
  id: z.number().int(),
  at: Iso,
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  /** `ok`, `cancelled` or the error code. */
  outcome: z.string(),
  model: z.string().nullable(),
  stream: z.boolean(),
  promptTokens: z.number().nullable(),
  cachedTokens: z.number().nullable(),
  completionTokens: z.number().nullable(),
  durationMs: z.number(),
});
export type OpenAiRequestLogEntry = z.infer<typeof OpenAiRequestLogEntrySchema>;
